import {
  type CreateInstanceRequest,
  GpuCloudError,
  type GpuCloudClient,
  type InstanceOffer,
  type Instance as InstanceWire,
} from "../../client";
import { CancelledError, isCancelled, recordAfterCancelMs } from "../../cancellation";
import { whileEngineWatched } from "../../engine-watch";
import { encodeOnstart } from "../../onstart";
import { providerClient, reportProgress } from "../../provider-runtime";
import { settleLeftovers } from "./adoption";
import { creatingLabelOf, markersOf, rememberRecorded, resourceNameOf } from "./identity";
import {
  asksOf,
  runtypeOf,
  type InstanceAttempt,
  type InstanceInputs,
  type InstanceOutputs,
} from "./inputs";
import { followState } from "./power";
import { chooseOffer, effectiveQuery, NoOfferError, releaseOffers, renting } from "./offer-choice";
import {
  type BootOutcome,
  CreateOutcomeUnknownError,
  destroyAfterCancel,
  destroyRented,
  handOver,
  InstanceLeftBehindError,
  rentInstance,
  waitUntilRunning,
} from "./lifecycle";

export function connectionOutputs(instance: InstanceWire | undefined) {
  return {
    actualStatus: instance?.actual_status ?? null,
    sshHost: instance?.ssh_host ?? null,
    sshPort: instance?.ssh_port ?? null,
    publicIp: instance?.public_ipaddr ?? null,
    gpuRamMb: instance?.gpu_ram ?? null,
    statusMessage: instance?.status_msg ?? null,
    intendedStatus: instance?.intended_status ?? null,
  };
}

/** What an instance was rented from, as it shows it (for instances rented by ask id). */
export function offerShownBy(instance: InstanceWire | undefined) {
  if (instance?.bundle_id === undefined || instance.bundle_id === null) return undefined;
  return {
    askId: instance.bundle_id,
    gpuName: instance.gpu_name ?? null,
    numGpus: instance.num_gpus ?? null,
    dollarsPerHour: instance.dph_total ?? null,
    machineId: instance.machine_id ?? null,
  };
}

function describeAttempts(attempts: readonly InstanceAttempt[]): string {
  return attempts
    .map((attempt, index) => {
      const what =
        attempt.instanceId === undefined
          ? `ask ${attempt.askId}: ${attempt.error ?? "not created"}`
          : `instance ${attempt.instanceId} from ask ${attempt.askId}: last status ` +
            (attempt.lastStatus ?? "provisioning") +
            (attempt.statusMessage ? ` (${attempt.statusMessage})` : "") +
            (attempt.error ? `; ${attempt.error}` : "");
      return `  attempt ${index + 1}: ${what}`;
    })
    .join("\n");
}

type Created = { id: string; outs: InstanceOutputs };

/**
 * Rents an instance from the asks and waits until it runs, destroying and retrying on dead
 * ends; fails, leaving nothing running, when no attempt succeeds. An instance an interrupted
 * run of this stack rented for this resource is adopted (as the first attempt) instead of
 * renting another. The instance is handed over (identity.ts) only as create returns it.
 */
export async function createInstance(
  inputs: InstanceInputs,
  /** What is done to the running instance before it is handed over (attaching SSH keys). */
  finish: (created: Created) => Promise<Created> = async (created) => created,
): Promise<Created> {
  const client = providerClient();
  // Rented and not yet handed to the engine: destroyed if the engine goes away meanwhile, so
  // that a killed `pulumi up` leaves nothing billing that no one will record.
  const unrecorded = new Set<number>();
  const destroyUnrecorded = async () => {
    await Promise.allSettled([...unrecorded].map((id) => client.instances.destroy(id)));
  };
  // Offers this create chose by query, which other creates of the run leave to it until it ends.
  const claimed = new Set<number>();
  try {
    return await whileEngineWatched(destroyUnrecorded, async () => {
      let created: Created;
      try {
        created = await finish(await rentUntilRunning(inputs, unrecorded, claimed));
      } catch (error) {
        if (error instanceof InstanceLeftBehindError) {
          // Recorded all the same (with init errors): handed over too, or said not to be.
          const instanceId = Number(error.id);
          unrecorded.delete(instanceId);
          rememberRecorded(inputs.owner, instanceId);
          // After a cancellation the relabel is bounded (cancellation.ts): the run must end.
          const bound = isCancelled() ? AbortSignal.timeout(recordAfterCancelMs) : undefined;
          const handedOver = await handOver(client, instanceId, inputs, bound).then(
            () => true,
            () => false,
          );
          if (!handedOver) throw recordedAsBeingCreated(error, inputs);
        }
        if (error instanceof CancelledError) {
          // Cancelled before an instance of this create was rented (looking for leftovers, an
          // offer, or a stop); anything rented was destroyed or recorded on its way here.
          throw new Error(
            `${resourceNameOf(inputs.owner)}: cancelled before an instance was running; ` +
              `nothing this create rented is left running.`,
          );
        }
        throw error;
      }
      await handOverOrDestroy(client, created, inputs, unrecorded);
      rememberRecorded(inputs.owner, Number(created.id));
      return created;
    });
  } finally {
    releaseOffers(claimed);
  }
}

/**
 * Hands a running instance over to the engine: one relabel, from the being-created label to
 * the program's. When the service refuses it, the instance is not this stack's to keep: it is
 * destroyed (and recorded only if that fails too, for a later run to deal with).
 */
async function handOverOrDestroy(
  client: GpuCloudClient,
  created: Created,
  inputs: InstanceInputs,
  unrecorded: Set<number>,
): Promise<void> {
  const instanceId = Number(created.id);
  const name = resourceNameOf(inputs.owner);
  try {
    // After a cancellation the relabel is bounded (cancellation.ts): the run must end.
    const bound = isCancelled() ? AbortSignal.timeout(recordAfterCancelMs) : undefined;
    await handOver(client, instanceId, inputs, bound);
    unrecorded.delete(instanceId);
    return;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    reportProgress(
      `${name}: instance ${instanceId} could not be relabelled (${why}); destroying it`,
    );
    const destroyed = await destroyRented(client, instanceId, inputs.pollIntervalSeconds).catch(
      () => false,
    );
    unrecorded.delete(instanceId);
    if (destroyed) {
      throw new Error(
        `${name}: instance ${instanceId} ran, but setting its label failed (${why}), so it was ` +
          `destroyed; nothing is left running. Run \`pulumi up\` again.`,
      );
    }
    const message =
      `${name}: instance ${instanceId} ran, but setting its label failed (${why}) and it could ` +
      `not be destroyed; it is kept in the stack so that a later \`pulumi up\` or ` +
      `\`pulumi destroy\` deals with it.`;
    rememberRecorded(inputs.owner, instanceId);
    throw recordedAsBeingCreated(
      new InstanceLeftBehindError(message, created.id, created.outs, [message]),
      inputs,
    );
  }
}

/**
 * An instance recorded while the service still shows its being-created label: the recorded
 * label says so, so that the next `up` (which updates a resource kept with init errors) sets
 * the program's label and the hand-over completes. Until then a cleanup could take it for a
 * leftover; the recorded label is what lets the stack finish it.
 */
function recordedAsBeingCreated(
  error: InstanceLeftBehindError,
  inputs: InstanceInputs,
): InstanceLeftBehindError {
  if (inputs.stackToken === undefined) return error;
  const properties = { ...error.properties, label: creatingLabelOf(inputs.stackToken) };
  return new InstanceLeftBehindError(error.message, error.id, properties, error.reasons);
}

async function rentUntilRunning(
  inputs: InstanceInputs,
  unrecorded: Set<number>,
  claimed: Set<number>,
): Promise<{ id: string; outs: InstanceOutputs }> {
  const client = providerClient();
  const name = resourceNameOf(inputs.owner);
  const progress = (message: string): void => {
    reportProgress(`${name}: ${message}`);
  };
  const asks = asksOf(inputs);
  const onstart = inputs.onstart === undefined ? undefined : encodeOnstart(inputs.onstart);
  const request: CreateInstanceRequest = {
    image: inputs.image,
    disk: inputs.diskGb,
    // The template's values are defaults; every field given here overrides its own.
    template_hash_id: inputs.templateHashId,
    onstart: onstart?.ok ? onstart.command : undefined,
    env: inputs.env,
    // Marked as being created by this stack until create hands it over (identity.ts).
    label: inputs.stackToken === undefined ? inputs.label : creatingLabelOf(inputs.stackToken),
    runtype: runtypeOf(inputs),
    price: inputs.price,
    ...(inputs.volume === undefined
      ? {}
      : {
          volume_info: {
            create_new: false,
            volume_id: inputs.volume.volumeId,
            mount_path: inputs.volume.mountPath,
          },
        }),
  };
  // By query: each attempt searches afresh and rents the best offer not tried yet.
  const query = await effectiveQuery(client, inputs).catch((error: unknown) => {
    if (error instanceof NoOfferError)
      throw new Error(`${name}: ${error.message}; nothing was rented.`);
    throw error;
  });
  const tried = new Set<number>();
  const chosen = new Map<number, InstanceOffer>();
  const deadlineMs = Date.now() + inputs.createTimeoutSeconds * 1000;
  const attempts: InstanceAttempt[] = [];
  let reason = `every one of ${inputs.maxAttempts} attempts ended without a running instance`;
  let adoptee = await settleLeftovers(client, inputs, progress);
  const missingAsks = new Set<number>();
  const cancelledBefore = (number: number): Error => {
    const adopting =
      adoptee === undefined
        ? ""
        : ` Instance ${adoptee.instanceId}, left by an interrupted run, was not touched: ` +
          `the next \`pulumi up\` adopts or destroys it.`;
    return new Error(
      `${name}: cancelled before attempt ${number}; nothing this create rented is left ` +
        `running.${adopting}` +
        (attempts.length > 0 ? `\n${describeAttempts(attempts)}` : ""),
    );
  };

  for (let number = 1; number <= inputs.maxAttempts; number++) {
    // No new attempt (no search, no rent) once the engine has cancelled the operation.
    if (isCancelled()) throw cancelledBefore(number);
    if (number > 1 && Date.now() >= deadlineMs) {
      reason = `the ${inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
      break;
    }
    // An ask the service said does not exist is not asked for again in this create.
    const live = asks.filter((ask) => !missingAsks.has(ask));
    let askId = adoptee?.askId ?? live[(number - 1) % live.length] ?? 0;
    if (adoptee === undefined && query !== undefined) {
      try {
        const offer = await chooseOffer(
          client,
          query,
          inputs,
          tried,
          claimed,
          progress,
          deadlineMs,
        );
        askId = offer.askId;
        chosen.set(askId, offer);
        progress(
          `attempt ${number}: renting ask ${askId} (${offer.numGpus}x ${offer.gpuName}, ` +
            `$${offer.dollarsPerHour}/h, machine ${offer.machineId ?? "?"})`,
        );
      } catch (error) {
        if (!(error instanceof NoOfferError)) throw error;
        reason = error.message;
        break;
      }
    }
    // Cancelled during the search: nothing is rented.
    if (isCancelled() && adoptee === undefined) throw cancelledBefore(number);
    tried.add(askId);
    let instanceId: number;
    try {
      instanceId =
        adoptee?.instanceId ??
        (await renting(() =>
          rentInstance(client, askId, request, (token) => markersOf(inputs, token), deadlineMs),
        ));
      adoptee = undefined;
      unrecorded.add(instanceId);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      attempts.push({ askId, error: message });
      if (error instanceof CreateOutcomeUnknownError) {
        throw new Error(
          `${name}: an instance create from ask ${askId} may have reached the service, but its reply ` +
            `was lost.\n${describeAttempts(attempts)}`,
        );
      }
      // An ask that is gone (rented by someone else since the search) is worth trying the next
      // one, while there is one; anything else (a refused key, invalid arguments) no retry can
      // fix: it stops here and leads the error.
      if (error instanceof GpuCloudError && error.code === "no_such_ask") {
        missingAsks.add(askId);
        if (query !== undefined || asks.some((ask) => !missingAsks.has(ask))) continue;
      }
      throw new Error(
        `${name}: ${message}; no instance was created and retrying cannot help.\n` +
          describeAttempts(attempts),
      );
    }
    const attempt: InstanceAttempt = { askId, instanceId };
    attempts.push(attempt);
    progress(
      `attempt ${number} of ${inputs.maxAttempts}: instance ${instanceId} from ask ${askId}, waiting for running`,
    );
    let outcome: BootOutcome;
    try {
      outcome = await waitUntilRunning(
        client,
        instanceId,
        deadlineMs,
        inputs.pollIntervalSeconds,
        (instance) => {
          progress(
            `instance ${instanceId}: ${instance.actual_status ?? "provisioning"}` +
              (instance.status_msg ? ` (${instance.status_msg})` : ""),
          );
        },
      );
    } catch (error) {
      attempt.error = error instanceof Error ? error.message : String(error);
      outcome = { kind: "deadline", instance: undefined };
      reason = "polling the instance failed";
    }
    const shown = outcome.kind === "gone" ? undefined : outcome.instance;
    const offer = chosen.get(askId) ?? offerShownBy(shown);
    const outs: InstanceOutputs = {
      ...inputs,
      instanceId,
      ...connectionOutputs(shown),
      attempts,
      ...(offer === undefined ? {} : { offer }),
    };
    if (outcome.kind === "cancelled") {
      // Not running yet: destroyed, within the cleanup bound, never left unrecorded.
      const status = shown?.actual_status ?? "provisioning";
      progress(`cancelled: destroying instance ${instanceId} (${status})`);
      attempt.lastStatus = status;
      attempt.error = "cancelled";
      const destroyed = await destroyAfterCancel(client, instanceId);
      unrecorded.delete(instanceId);
      if (destroyed) {
        throw new Error(
          `${name}: cancelled: instance ${instanceId} destroyed; nothing is left running.\n` +
            describeAttempts(attempts),
        );
      }
      const message =
        `${name}: cancelled: instance ${instanceId} (${status}) could not be confirmed ` +
        `destroyed in time; it is kept in the stack so that a later \`pulumi up\` or ` +
        `\`pulumi destroy\` deals with it.\n` +
        describeAttempts(attempts);
      throw new InstanceLeftBehindError(message, String(instanceId), outs, [message]);
    }
    if (outcome.kind === "running") {
      progress(`instance ${instanceId} is running (attempt ${number})`);
      if (inputs.state === "stopped") {
        try {
          const stopped = await followState(client, instanceId, "stopped", inputs, progress);
          return { id: String(instanceId), outs: { ...outs, ...connectionOutputs(stopped) } };
        } catch (error) {
          // Running but not stopped: recorded all the same, and the next up stops it.
          const message = `${name}: instance ${instanceId} runs but could not be stopped: ${String(error)}`;
          throw new InstanceLeftBehindError(
            message,
            String(instanceId),
            { ...outs, state: "running" },
            [message],
          );
        }
      }
      return { id: String(instanceId), outs };
    }
    attempt.lastStatus = outcome.kind === "gone" ? "gone" : (outs.actualStatus ?? "provisioning");
    if (outs.statusMessage) attempt.statusMessage = outs.statusMessage;
    if (outcome.kind === "gone") unrecorded.delete(instanceId);
    else {
      progress(`instance ${instanceId} will not run (${attempt.lastStatus}); destroying it`);
      let destroyed = false;
      try {
        destroyed = await destroyRented(client, instanceId, inputs.pollIntervalSeconds);
      } catch (error) {
        attempt.error = error instanceof Error ? error.message : String(error);
      }
      if (destroyed) unrecorded.delete(instanceId);
      else {
        const message =
          `${name}: instance ${instanceId} did not reach running and could not be destroyed; it is ` +
          `kept in the stack so that a later \`pulumi up\` or \`pulumi destroy\` deals with it.\n` +
          describeAttempts(attempts);
        unrecorded.delete(instanceId);
        throw new InstanceLeftBehindError(message, String(instanceId), outs, [message]);
      }
    }
    if (outcome.kind === "deadline") {
      if (reason.startsWith("every")) {
        reason = `the ${inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
      }
      break;
    }
  }
  throw new Error(
    `${name}: no running instance: ${reason}; nothing is left running.\n${describeAttempts(attempts)}`,
  );
}
