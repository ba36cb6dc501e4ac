import { CancelledError, recordAfterCancelMs } from "../../run/cancellation";
import type { Run } from "../../run/run";
import { settleLeftovers } from "./adoption";
import {
  type AttemptSource,
  askOf,
  awaitBoot,
  chooseByQuery,
  type Created,
  type InstanceCreate,
  createRequestOf,
  describeAttempts,
  discardFailedBoot,
  endCancelledBoot,
  outputsAfterBoot,
  rentForAttempt,
  runningAsAsked,
} from "./attempts";
import { creatingLabelOf, resourceNameOf } from "./identity";
import { asksOf, type InstanceInputs } from "./inputs";
import { effectiveQuery, NoOfferError, releaseOffers } from "./offer-choice";
import { overlaySubnetOf } from "./placement";
import { destroyRented, handOver, InstanceLeftBehindError } from "./lifecycle";

/** How long a cleanup after the engine went away waits for rents in flight to land, ms. */
export const lateRentsMs = 15_000;

/**
 * Removes the instances `rented()` names now and then, once the rents in flight when the engine
 * went away have landed (within lateRentsMs), the ones those rents added: nothing a killed run
 * rented is left billing.
 */
export async function removeWithLateRents(
  run: Run,
  rented: () => readonly number[],
  remove: (instanceIds: readonly number[]) => Promise<unknown>,
): Promise<void> {
  const first = [...rented()];
  await remove(first);
  await run.renting.rentsSettled(lateRentsMs);
  const late = rented().filter((id) => !first.includes(id));
  if (late.length > 0) await remove(late);
}

/**
 * Rents an instance from the asks and waits until it runs, destroying and retrying on dead
 * ends; fails, leaving nothing running, when no attempt succeeds. An instance an interrupted
 * run of this stack rented for this resource is adopted (as the first attempt) instead of
 * renting another. The instance is handed over (identity.ts) only as create returns it.
 */
export async function createInstance(
  run: Run,
  inputs: InstanceInputs,
  /** What is done to the running instance before it is handed over (attaching SSH keys). */
  finish: (created: Created) => Promise<Created> = async (created) => created,
): Promise<Created> {
  const client = run.client;
  // Rented and not yet handed to the engine: destroyed if the engine goes away meanwhile, so
  // that a killed `pulumi up` leaves nothing billing that no one will record.
  const unrecorded = new Set<number>();
  const destroyUnrecorded = () =>
    removeWithLateRents(
      run,
      () => [...unrecorded],
      (ids) => Promise.allSettled(ids.map((id) => client.instances.destroy(id))),
    );
  // Offers this create chose by query, which other creates of the run leave to it until it ends.
  const claimed = new Set<number>();
  try {
    return await run.engineWatch.whileWatched(destroyUnrecorded, async () => {
      let created: Created;
      try {
        created = await finish(
          await rentUntilRunning(run, inputs, unrecorded, claimed, run.cancellation.signal),
        );
      } catch (error) {
        if (error instanceof InstanceLeftBehindError) {
          // Recorded all the same (with init errors): handed over too, or said not to be.
          const instanceId = Number(error.id);
          unrecorded.delete(instanceId);
          run.renting.rememberRecorded(inputs.owner, instanceId);
          // After a cancellation the relabel is bounded (run/cancellation.ts): the run must end.
          const bound = run.cancellation.isCancelled
            ? AbortSignal.timeout(recordAfterCancelMs)
            : undefined;
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
      await handOverOrDestroy(run, created, inputs, unrecorded);
      run.renting.rememberRecorded(inputs.owner, Number(created.id));
      return created;
    });
  } finally {
    releaseOffers(run, claimed);
  }
}

/**
 * Hands a running instance over to the engine: one relabel, from the being-created label to
 * the program's. When the service refuses it, the instance is not this stack's to keep: it is
 * destroyed (and recorded only if that fails too, for a later run to deal with).
 */
async function handOverOrDestroy(
  run: Run,
  created: Created,
  inputs: InstanceInputs,
  unrecorded: Set<number>,
): Promise<void> {
  const instanceId = Number(created.id);
  const name = resourceNameOf(inputs.owner);
  try {
    // After a cancellation the relabel is bounded (run/cancellation.ts): the run must end.
    const bound = run.cancellation.isCancelled
      ? AbortSignal.timeout(recordAfterCancelMs)
      : undefined;
    await handOver(run.client, instanceId, inputs, bound);
    unrecorded.delete(instanceId);
    return;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    run.progress(`${name}: instance ${instanceId} could not be relabelled (${why}); destroying it`);
    const destroyed = await destroyRented(run, instanceId, inputs.pollIntervalSeconds).catch(
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
    run.renting.rememberRecorded(inputs.owner, instanceId);
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

/**
 * Attempts, each in named steps (attempts.ts): choose an ask (or adopt a leftover), rent it,
 * wait for the boot, keep a running instance or discard one that will not run, until one runs,
 * the attempts or the deadline run out, or the engine cancels the operation.
 */
export async function rentUntilRunning(
  run: Run,
  inputs: InstanceInputs,
  unrecorded: Set<number>,
  claimed: Set<number>,
  /** What stops it (InstanceCreate.stop): the engine's Cancel unless a group adds its own. */
  stop: AbortSignal,
): Promise<Created> {
  const client = run.client;
  const name = resourceNameOf(inputs.owner);
  const create: InstanceCreate = {
    run,
    inputs,
    name,
    progress: (message) => {
      run.progress(`${name}: ${message}`);
    },
    request: createRequestOf(inputs),
    deadlineMs: Date.now() + inputs.createTimeoutSeconds * 1000,
    attempts: [],
    unrecorded,
    reason: `every one of ${inputs.maxAttempts} attempts ended without a running instance`,
    overlaySubnet: await overlaySubnetOf(client, inputs.overlay),
    stop,
  };
  const asks = asksOf(inputs);
  // By query: each attempt searches afresh and rents the best offer not tried yet.
  const query = await effectiveQuery(client, inputs).catch((error: unknown) => {
    if (error instanceof NoOfferError)
      throw new Error(`${name}: ${error.message}; nothing was rented.`);
    throw error;
  });
  const tried = new Set<number>();
  // An ask the service said does not exist is not asked for again in this create.
  const missingAsks = new Set<number>();
  let adoptee = await settleLeftovers(run, inputs, create.progress);
  const cancelledBefore = (number: number): Error =>
    new Error(
      `${name}: cancelled before attempt ${number}; nothing this create rented is left ` +
        `running.` +
        (adoptee === undefined
          ? ""
          : ` Instance ${adoptee.instanceId}, left by an interrupted run, was not touched: ` +
            `the next \`pulumi up\` adopts or destroys it.`) +
        (create.attempts.length > 0 ? `\n${describeAttempts(create.attempts)}` : ""),
    );

  for (let number = 1; number <= inputs.maxAttempts; number++) {
    // No new attempt (no search, no rent) once the engine has cancelled the operation.
    if (stop.aborted) throw cancelledBefore(number);
    if (number > 1 && Date.now() >= create.deadlineMs) {
      create.reason = `the ${inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
      break;
    }
    const live = asks.filter((ask) => !missingAsks.has(ask));
    let source: AttemptSource | undefined =
      adoptee === undefined ? { askId: live[(number - 1) % live.length] ?? 0 } : { adopt: adoptee };
    if (adoptee === undefined && query !== undefined) {
      source = await chooseByQuery(create, query, number, tried, claimed);
      if (source === undefined) break;
    }
    // Cancelled during the search: nothing is rented.
    if (stop.aborted && adoptee === undefined) throw cancelledBefore(number);
    const askId = askOf(source);
    tried.add(askId);
    const instanceId = await rentForAttempt(
      create,
      source,
      () => query !== undefined || asks.some((ask) => !missingAsks.has(ask)),
      missingAsks,
    );
    if (instanceId === undefined) continue;
    adoptee = undefined;
    const attempt = { askId, instanceId };
    create.attempts.push(attempt);
    create.progress(
      `attempt ${number} of ${inputs.maxAttempts}: instance ${instanceId} from ask ${askId}, waiting for running`,
    );
    const outcome = await awaitBoot(create, attempt);
    const outs = outputsAfterBoot(
      create,
      instanceId,
      outcome,
      "offer" in source ? source.offer : undefined,
    );
    if (outcome.kind === "cancelled") return endCancelledBoot(create, attempt, outs);
    if (outcome.kind === "running") {
      create.progress(`instance ${instanceId} is running (attempt ${number})`);
      return runningAsAsked(create, instanceId, outs);
    }
    await discardFailedBoot(create, attempt, outcome, outs);
    if (outcome.kind === "deadline") {
      if (create.reason.startsWith("every")) {
        create.reason = `the ${inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
      }
      break;
    }
  }
  throw new Error(
    `${name}: no running instance: ${create.reason}; nothing is left running.\n${describeAttempts(create.attempts)}`,
  );
}
