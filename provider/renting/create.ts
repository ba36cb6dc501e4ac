import { CancelledError, recordAfterCancelMs } from "../run/cancellation";
import type { Run } from "../run/run";
import { settleLeftovers } from "./adoption";
import {
  createRequestOf,
  describeAttempts,
  type InstanceCreate,
  rentForAttempt,
  type RentScope,
  sourceOfAttempt,
} from "./attempts";
import { bootAttempt, type Created } from "./boot";
import { destroyRented } from "./destroy";
import { InstanceLeftBehindError } from "./errors";
import { creatingLabelOf, resourceNameOf } from "./identity";
import { asksOf, type InstanceInputs } from "./instance-inputs";
import { effectiveQuery, NoOfferError, releaseOffers } from "./offer-choice";
import { overlaySubnetOf } from "./placement";
import { expiryAtCreate, onstartToSend } from "./lifetime";
import { handOver } from "./rent";
import { instanceKey } from "./spend";

// An instance's create: the renting engine's entry, for an Instance and for each node of a
// NodeGroup. A create reads as its steps: settle what interrupted runs left, then attempts
// (attempts.ts, boot.ts) until one runs, then the hand-over.

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
  const scope: RentScope = {
    unrecorded: new Set(),
    claimed: new Set(),
    stop: run.cancellation.signal,
    // The deadline counts from here: attempts and boots are part of the lifetime.
    expiry: expiryAtCreate(inputs),
  };
  // Rented and not yet handed to the engine: destroyed if the engine goes away meanwhile, so
  // that a killed `pulumi up` leaves nothing billing that no one will record.
  const destroyUnrecorded = () =>
    removeWithLateRents(
      run,
      () => [...scope.unrecorded],
      (ids) => Promise.allSettled(ids.map((id) => client.instances.destroy(id))),
    );
  try {
    return await run.engineWatch.whileWatched(destroyUnrecorded, async () => {
      let created: Created;
      try {
        created = await finish(await rentUntilRunning(run, inputs, scope));
      } catch (error) {
        return failCreate(run, inputs, scope.unrecorded, error);
      }
      await handOverOrDestroy(run, created, inputs, scope.unrecorded);
      run.renting.rememberRecorded(inputs.owner, Number(created.id));
      return created;
    });
  } finally {
    releaseOffers(run, scope.claimed);
  }
}

/**
 * A create that failed: an instance it leaves behind is recorded all the same (with init
 * errors), and handed over too, or said not to be; a cancellation before anything was rented
 * says so. Always throws.
 */
async function failCreate(
  run: Run,
  inputs: InstanceInputs,
  unrecorded: Set<number>,
  error: unknown,
): Promise<never> {
  if (error instanceof InstanceLeftBehindError) {
    const instanceId = Number(error.id);
    unrecorded.delete(instanceId);
    run.renting.rememberRecorded(inputs.owner, instanceId);
    // After a cancellation the relabel is bounded (run/cancellation.ts): the run must end.
    const bound = run.cancellation.isCancelled
      ? AbortSignal.timeout(recordAfterCancelMs)
      : undefined;
    const handedOver = await handOver(run.client, instanceId, inputs, bound).then(
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
 * Attempts, each in named steps (attempts.ts, boot.ts): choose an ask (or adopt a leftover),
 * rent it, wait for the boot, keep a running instance or discard one that will not run, until
 * one runs, the attempts or the deadline run out, or the engine cancels the operation.
 */
export async function rentUntilRunning(
  run: Run,
  inputs: InstanceInputs,
  scope: RentScope,
): Promise<Created> {
  const create = await startCreate(run, inputs, scope);
  for (let number = 1; number <= inputs.maxAttempts; number++) {
    const source = await sourceOfAttempt(create, number);
    if (source === undefined) break;
    const instanceId = await rentForAttempt(create, source);
    if (instanceId === undefined) continue;
    const end = await bootAttempt(create, number, source, instanceId);
    if (end === "no more attempts") break;
    if (end !== "next attempt") {
      // From now on the stack's total counts what the service reports the instance costs.
      const reported = end.created.outs.dollarsPerHour;
      if (typeof reported === "number") run.budget.repriced(instanceKey(instanceId), reported);
      return end.created;
    }
  }
  throw new Error(
    `${create.name}: no running instance: ${create.reason}; nothing is left running.\n${describeAttempts(create.attempts)}`,
  );
}

/**
 * What a create starts from: its request and deadline, where the instance must be (the
 * overlay's subnet, the query pinned to the volume's machine or the cluster), and a leftover
 * an interrupted run of this stack left for this resource, to adopt.
 */
async function startCreate(
  run: Run,
  inputs: InstanceInputs,
  scope: RentScope,
): Promise<InstanceCreate> {
  const client = run.client;
  const name = resourceNameOf(inputs.owner);
  const progress = (message: string) => {
    run.progress(`${name}: ${message}`);
  };
  const request = createRequestOf(inputs, await onstartToSend(run, inputs, scope.expiry, name));
  const deadlineMs = Date.now() + inputs.createTimeoutSeconds * 1000;
  const overlaySubnet = await overlaySubnetOf(client, inputs.overlay);
  // By query: each attempt searches afresh and rents the best offer not tried yet.
  const pinned = await effectiveQuery(client, inputs).catch((error: unknown) => {
    if (error instanceof NoOfferError)
      throw new Error(`${name}: ${error.message}; nothing was rented.`);
    throw error;
  });
  return {
    ...scope,
    run,
    inputs,
    name,
    progress,
    request,
    deadlineMs,
    asks: asksOf(inputs),
    query: pinned?.query,
    pin: pinned?.pin,
    overlaySubnet,
    attempts: [],
    tried: new Set(),
    missingAsks: new Set(),
    adoptee: await settleLeftovers(run, inputs, progress),
    reason: `every one of ${inputs.maxAttempts} attempts ended without a running instance`,
  };
}
