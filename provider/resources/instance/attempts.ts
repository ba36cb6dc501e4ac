import {
  type CreateInstanceRequest,
  GpuCloudError,
  type InstanceOffer,
  type InstanceOfferQuery,
  type Instance as InstanceWire,
  overlayJoinEnv,
  volumeMountEnv,
} from "../../client";
import { encodeOnstart } from "../../onstart";
import type { Run } from "../../run/run";
import { type Adoptee } from "./adoption";
import { creatingLabelOf, markersOf } from "./identity";
import {
  runtypeOf,
  type InstanceAttempt,
  type InstanceInputs,
  type InstanceOutputs,
} from "./inputs";
import { chooseOffer, NoOfferError } from "./offer-choice";
import { localIpOf } from "./placement";
import {
  type BootOutcome,
  CreateOutcomeUnknownError,
  destroyAfterCancel,
  destroyRented,
  InstanceLeftBehindError,
  rentInstance,
  waitUntilRunning,
} from "./lifecycle";
import { followState } from "./power";

// The steps of one rent-and-boot attempt, each small and named, shared by every create that
// rents instances (an Instance; each node of a NodeGroup): what to ask the service for, which
// ask to rent, the rent itself, the wait for the boot, and what a boot's outcome leaves.

/** An instance rented and running (or stopped, as asked), with the outputs to record. */
export type Created = { id: string; outs: InstanceOutputs };

/** What one create knows and has done so far, across its attempts. */
export interface InstanceCreate {
  /** The run the create belongs to: its client, its cancellation, what its creates share. */
  readonly run: Run;
  readonly inputs: InstanceInputs;
  /** The resource's name, which every message leads with. */
  readonly name: string;
  readonly progress: (message: string) => void;
  readonly request: CreateInstanceRequest;
  readonly deadlineMs: number;
  readonly attempts: InstanceAttempt[];
  /** Rented and not yet handed to the engine (create-flow.ts destroys them if it goes away). */
  readonly unrecorded: Set<number>;
  /** Why the create stops when no attempt succeeds. */
  reason: string;
  /** The subnet of the overlay the instance joins, for its `localIp`. */
  readonly overlaySubnet?: string | undefined;
  /**
   * Stops the create's waits and its next attempt: the engine's Cancel (run/cancellation.ts), and
   * for a node of a group also a sibling's failure (node-group/create.ts `rentRanks`).
   */
  readonly stop: AbortSignal;
}

/** The create request for the service: the program's inputs, marked as being created. */
export function createRequestOf(inputs: InstanceInputs): CreateInstanceRequest {
  const onstart = inputs.onstart === undefined ? undefined : encodeOnstart(inputs.onstart);
  // The overlay is joined and the network volume mounted by env entries, as the official
  // client sends them (`-n NAME`, `-v V.<id>:<path>`): the service has no other field for an
  // overlay.
  const directives = {
    ...(inputs.overlay === undefined ? {} : overlayJoinEnv(inputs.overlay)),
    ...(inputs.networkVolume === undefined
      ? {}
      : volumeMountEnv(inputs.networkVolume.volumeId, inputs.networkVolume.mountPath)),
  };
  const env = Object.keys(directives).length === 0 ? inputs.env : { ...inputs.env, ...directives };
  return {
    image: inputs.image,
    disk: inputs.diskGb,
    // The template's values are defaults; every field given here overrides its own.
    template_hash_id: inputs.templateHashId,
    onstart: onstart?.ok ? onstart.command : undefined,
    env,
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
}

export function describeAttempts(attempts: readonly InstanceAttempt[]): string {
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

/** Where an attempt's instance comes from: a leftover to adopt, or an ask to rent. */
export type AttemptSource =
  { readonly adopt: Adoptee } | { readonly askId: number; readonly offer?: InstanceOffer };

export const askOf = (source: AttemptSource): number =>
  "adopt" in source ? source.adopt.askId : source.askId;

/**
 * The best offer of the query not tried yet in this create, claimed for it; undefined (with the
 * create's reason set) when the query leads to nothing more.
 */
export async function chooseByQuery(
  create: InstanceCreate,
  query: InstanceOfferQuery | string,
  number: number,
  tried: ReadonlySet<number>,
  claimed: Set<number>,
): Promise<AttemptSource | undefined> {
  try {
    const offer = await chooseOffer(
      create.run,
      query,
      create.inputs,
      tried,
      claimed,
      create.progress,
      create.deadlineMs,
      create.stop,
    );
    create.progress(
      `attempt ${number}: renting ask ${offer.askId} (${offer.numGpus}x ${offer.gpuName}, ` +
        `$${offer.dollarsPerHour}/h, machine ${offer.machineId ?? "?"})`,
    );
    return { askId: offer.askId, offer };
  } catch (error) {
    if (!(error instanceof NoOfferError)) throw error;
    create.reason = error.message;
    return undefined;
  }
}

/**
 * Rents the attempt's ask (or takes the leftover it adopts). Returns the instance's id, or
 * undefined when the ask is gone and another may be tried (`missingAsks` then holds it); throws
 * when nothing a retry could fix (a refused key, invalid arguments) or when the outcome of the
 * create is unknown (never sent twice).
 */
export async function rentForAttempt(
  create: InstanceCreate,
  source: AttemptSource,
  canTryAnother: () => boolean,
  missingAsks: Set<number>,
): Promise<number | undefined> {
  const askId = askOf(source);
  let instanceId: number;
  try {
    instanceId =
      "adopt" in source
        ? source.adopt.instanceId
        : await create.run.renting.renting(() =>
            rentInstance(
              create.run,
              askId,
              create.request,
              (token) => markersOf(create.inputs, token),
              create.deadlineMs,
              create.stop,
            ),
          );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    create.attempts.push({ askId, error: message });
    if (error instanceof CreateOutcomeUnknownError) {
      throw new Error(
        `${create.name}: an instance create from ask ${askId} may have reached the service, but its reply ` +
          `was lost.\n${describeAttempts(create.attempts)}`,
      );
    }
    // An ask that is gone (rented by someone else since the search) is worth trying the next
    // one, while there is one; anything else no retry can fix: it stops here and leads the error.
    if (error instanceof GpuCloudError && error.code === "no_such_ask") {
      missingAsks.add(askId);
      if (canTryAnother()) return undefined;
    }
    throw new Error(
      `${create.name}: ${message}; no instance was created and retrying cannot help.\n` +
        describeAttempts(create.attempts),
    );
  }
  create.unrecorded.add(instanceId);
  return instanceId;
}

/**
 * The outputs of an attempt's instance as the service last showed it; `overlaySubnet` picks its
 * overlay address for `localIp`.
 */
export function connectionOutputs(instance: InstanceWire | undefined, overlaySubnet?: string) {
  return {
    actualStatus: instance?.actual_status ?? null,
    sshHost: instance?.ssh_host ?? null,
    sshPort: instance?.ssh_port ?? null,
    publicIp: instance?.public_ipaddr ?? null,
    gpuRamMb: instance?.gpu_ram ?? null,
    statusMessage: instance?.status_msg ?? null,
    intendedStatus: instance?.intended_status ?? null,
    localIp: localIpOf(instance?.local_ipaddrs, overlaySubnet),
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

/** Waits for the attempt's instance to boot; a failed wait counts as its deadline. */
export async function awaitBoot(
  create: InstanceCreate,
  attempt: InstanceAttempt & { instanceId: number },
): Promise<BootOutcome> {
  const { instanceId } = attempt;
  try {
    return await waitUntilRunning(
      create.run.client,
      instanceId,
      create.deadlineMs,
      create.inputs.pollIntervalSeconds,
      (instance) => {
        create.progress(
          `instance ${instanceId}: ${instance.actual_status ?? "provisioning"}` +
            (instance.status_msg ? ` (${instance.status_msg})` : ""),
        );
      },
      create.stop,
    );
  } catch (error) {
    attempt.error = error instanceof Error ? error.message : String(error);
    create.reason = "polling the instance failed";
    return { kind: "deadline", instance: undefined };
  }
}

/** The instance's outputs after its boot, whatever the outcome. */
export function outputsAfterBoot(
  create: InstanceCreate,
  instanceId: number,
  outcome: BootOutcome,
  offer: InstanceOffer | undefined,
): InstanceOutputs {
  const shown = outcome.kind === "gone" ? undefined : outcome.instance;
  const recordedOffer = offer ?? offerShownBy(shown);
  return {
    ...create.inputs,
    instanceId,
    ...connectionOutputs(shown, create.overlaySubnet),
    attempts: create.attempts,
    ...(recordedOffer === undefined ? {} : { offer: recordedOffer }),
  };
}

/**
 * A boot the engine cancelled (or a group stopped after a sibling failed): the instance is destroyed within the cleanup bound and the
 * create fails saying so; one that cannot be confirmed gone in time is recorded (never left
 * unrecorded). Always throws.
 */
export async function endCancelledBoot(
  create: InstanceCreate,
  attempt: InstanceAttempt & { instanceId: number },
  outs: InstanceOutputs,
): Promise<never> {
  const { instanceId } = attempt;
  const status = outs.actualStatus ?? "provisioning";
  create.progress(`cancelled: destroying instance ${instanceId} (${status})`);
  attempt.lastStatus = status;
  attempt.error = "cancelled";
  const destroyed = await destroyAfterCancel(create.run.client, instanceId);
  create.unrecorded.delete(instanceId);
  if (destroyed) {
    throw new Error(
      `${create.name}: cancelled: instance ${instanceId} destroyed; nothing is left running.\n` +
        describeAttempts(create.attempts),
    );
  }
  const message =
    `${create.name}: cancelled: instance ${instanceId} (${status}) could not be confirmed ` +
    `destroyed in time; it is kept in the stack so that a later \`pulumi up\` or ` +
    `\`pulumi destroy\` deals with it.\n` +
    describeAttempts(create.attempts);
  throw new InstanceLeftBehindError(message, String(instanceId), outs, [message]);
}

/** A running instance, stopped first when the program asks for `state: stopped`. */
export async function runningAsAsked(
  create: InstanceCreate,
  instanceId: number,
  outs: InstanceOutputs,
): Promise<Created> {
  if (create.inputs.state !== "stopped") return { id: String(instanceId), outs };
  try {
    const stopped = await followState(
      create.run,
      instanceId,
      "stopped",
      create.inputs,
      create.progress,
    );
    return {
      id: String(instanceId),
      outs: { ...outs, ...connectionOutputs(stopped, create.overlaySubnet) },
    };
  } catch (error) {
    // Running but not stopped: recorded all the same, and the next up stops it.
    const message = `${create.name}: instance ${instanceId} runs but could not be stopped: ${String(error)}`;
    throw new InstanceLeftBehindError(message, String(instanceId), { ...outs, state: "running" }, [
      message,
    ]);
  }
}

/**
 * An instance that will not run (a dead end, gone, the deadline): destroyed and confirmed gone,
 * so that the next attempt may start; one that cannot be destroyed is recorded (throws).
 */
export async function discardFailedBoot(
  create: InstanceCreate,
  attempt: InstanceAttempt & { instanceId: number },
  outcome: Exclude<BootOutcome, { kind: "running" | "cancelled" }>,
  outs: InstanceOutputs,
): Promise<void> {
  const { instanceId } = attempt;
  attempt.lastStatus = outcome.kind === "gone" ? "gone" : (outs.actualStatus ?? "provisioning");
  if (outs.statusMessage) attempt.statusMessage = outs.statusMessage;
  if (outcome.kind === "gone") {
    create.unrecorded.delete(instanceId);
    return;
  }
  create.progress(`instance ${instanceId} will not run (${attempt.lastStatus}); destroying it`);
  let destroyed = false;
  try {
    destroyed = await destroyRented(create.run, instanceId, create.inputs.pollIntervalSeconds);
  } catch (error) {
    attempt.error = error instanceof Error ? error.message : String(error);
  }
  create.unrecorded.delete(instanceId);
  if (destroyed) return;
  const message =
    `${create.name}: instance ${instanceId} did not reach running and could not be destroyed; it is ` +
    `kept in the stack so that a later \`pulumi up\` or \`pulumi destroy\` deals with it.\n` +
    describeAttempts(create.attempts);
  throw new InstanceLeftBehindError(message, String(instanceId), outs, [message]);
}
