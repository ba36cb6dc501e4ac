import type { GpuCloudClient } from "../client";
import { watchInstance } from "../shared/polling";
import { CancelledError, cleanupAfterCancelMs, neverCancelled } from "../run/cancellation";
import type { Run } from "../run/run";
import { instanceKey } from "./spend";

// Destroying an instance and confirming it gone: what a create does with an instance that will
// not run, what a group does with its nodes, what cleanup does with a leftover.

/**
 * Destroys the instance and waits, bounded, until the service no longer shows it. The wait
 * throws a CancelledError when the engine cancels the run: the destroy was sent by then, only
 * its confirmation is missing.
 */
export async function destroyAndConfirm(
  run: Run,
  instanceId: number,
  pollIntervalSeconds: number,
  timeoutMs = 120_000,
): Promise<boolean> {
  await run.client.instances.destroy(instanceId);
  const gone = await watchInstance(
    run.client,
    instanceId,
    pollIntervalSeconds * 1000,
    Date.now() + timeoutMs,
    (instance) => (instance === undefined ? true : undefined),
    run.cancellation.signal,
  );
  // Gone: the stack's running total drops by its price (run/budget.ts).
  if (gone === true) run.budget.gone(instanceKey(instanceId));
  return gone === true;
}

/** Status reads while confirming a destroy after a cancellation, ms: the bound is short. */
const cleanupIntervalMs = 500;

/**
 * Destroys an instance the create rented, after the engine cancelled the operation, and
 * confirms it gone, all within `cleanupAfterCancelMs` (run/cancellation.ts says why that
 * bound): the destroy request and every status read are abandoned at the bound. Never throws:
 * false when the instance could not be confirmed gone in time.
 */
export async function destroyAfterCancel(
  client: GpuCloudClient,
  instanceId: number,
  boundMs = cleanupAfterCancelMs,
): Promise<boolean> {
  const deadlineMs = Date.now() + boundMs;
  try {
    await client.instances.destroy(instanceId, AbortSignal.timeout(boundMs));
    const gone = await watchInstance(
      client,
      instanceId,
      cleanupIntervalMs,
      deadlineMs,
      (instance) => (instance === undefined ? true : undefined),
      neverCancelled(),
    );
    return gone === true;
  } catch {
    return false;
  }
}

/**
 * Destroys an instance a create rented (a dead end, a refused hand-over, a group's node) and
 * confirms it gone: as {@link destroyAndConfirm}, with its own polling, until the engine
 * cancels the operation; from then on (or when it is cancelled already) within the cleanup
 * bound, by {@link destroyAfterCancel}.
 */
export async function destroyRented(
  run: Run,
  instanceId: number,
  pollIntervalSeconds: number,
): Promise<boolean> {
  if (!run.cancellation.isCancelled) {
    try {
      return await destroyAndConfirm(run, instanceId, pollIntervalSeconds);
    } catch (error) {
      if (!(error instanceof CancelledError)) throw error;
    }
  }
  return destroyAfterCancel(run.client, instanceId);
}

/**
 * Destroys each instance as {@link destroyRented} does, at once (their confirmations share the
 * status rounds), and returns those that could not be confirmed gone (a failure counts as not
 * gone): a group's nodes, the instances a failed resize rented.
 */
export async function destroyEachRented(
  run: Run,
  instanceIds: readonly number[],
  pollIntervalSeconds: number,
): Promise<number[]> {
  const outcomes = await Promise.all(
    instanceIds.map((id) => destroyRented(run, id, pollIntervalSeconds).catch(() => false)),
  );
  return instanceIds.filter((_, index) => outcomes[index] !== true);
}
