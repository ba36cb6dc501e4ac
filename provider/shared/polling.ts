import { setTimeout as sleep } from "node:timers/promises";
import { CancelledError, unlessCancelled } from "../run/cancellation";
import type { GpuCloudClient, Instance } from "../client";

export interface PollOptions {
  /** The first wait, in ms; each later wait doubles, up to `maxIntervalMs`. */
  readonly initialIntervalMs: number;
  readonly maxIntervalMs: number;
  /** Epoch ms after which polling stops. */
  readonly deadlineMs: number;
  /**
   * Stops the wait (a CancelledError) when it fires: the run's cancellation (run/cancellation.ts),
   * or a signal that never fires for a cleanup that must run on.
   */
  readonly signal: AbortSignal;
}

/**
 * Calls `probe` until it returns a value (not undefined) or the deadline passes, waiting with
 * backoff between calls (the real service rate-limits). Returns undefined on the deadline;
 * throws a CancelledError as soon as the signal fires (no further probe is made).
 */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined>,
  options: PollOptions,
): Promise<T | undefined> {
  const { signal } = options;
  let intervalMs = options.initialIntervalMs;
  for (;;) {
    if (signal.aborted) throw new CancelledError();
    const value = await unlessCancelled(probe(), signal);
    if (value !== undefined) return value;
    const remainingMs = options.deadlineMs - Date.now();
    if (remainingMs <= 0) return undefined;
    await sleep(Math.min(intervalMs, remainingMs), undefined, { signal }).catch(
      (error: unknown) => {
        throw signal.aborted ? new CancelledError() : error;
      },
    );
    intervalMs = Math.min(options.maxIntervalMs, intervalMs * 2);
  }
}

/**
 * Reads the instance at each of the client's shared status rounds that reads it
 * (`client.instances.nextStatus`, one list request a round for up to 25 instances) until
 * `decide` returns a value (not undefined), or returns undefined at the deadline, even while a
 * read is still under way. `decide` sees undefined when the instance does not exist. Throws a
 * CancelledError as soon as `signal` fires (the run's cancellation, as a rule), even mid-read.
 */
export async function watchInstance<T>(
  client: GpuCloudClient,
  instanceId: number,
  intervalMs: number,
  deadlineMs: number,
  decide: (instance: Instance | undefined) => T | undefined,
  signal: AbortSignal,
): Promise<T | undefined> {
  for (;;) {
    if (signal.aborted) throw new CancelledError();
    let read: { done: true; value: Instance | undefined } | { done: false };
    try {
      // A waiter whose signal fires leaves the shared rounds: no read is made for it any more.
      read = await beforeDeadline(
        client.instances.nextStatus(instanceId, intervalMs, signal),
        deadlineMs,
        signal,
      );
    } catch (error) {
      throw signal.aborted ? new CancelledError() : error;
    }
    if (signal.aborted) throw new CancelledError();
    if (!read.done) return undefined;
    const value = decide(read.value);
    if (value !== undefined) return value;
  }
}

/** The promise's value, or `done: false` once the deadline passes or `cancel` fires first. */
async function beforeDeadline<T>(
  promise: Promise<T>,
  deadlineMs: number,
  cancel: AbortSignal,
): Promise<{ done: true; value: T } | { done: false }> {
  const timer = new AbortController();
  // A listener rather than AbortSignal.any: the run's signal lives as long as the run.
  const stop = (): void => {
    timer.abort();
  };
  cancel.addEventListener("abort", stop, { once: true });
  const late = sleep(Math.max(0, deadlineMs - Date.now()), undefined, {
    signal: timer.signal,
  }).then(
    () => ({ done: false }) as const,
    () => ({ done: false }) as const,
  );
  try {
    return await Promise.race([promise.then((value) => ({ done: true, value }) as const), late]);
  } finally {
    cancel.removeEventListener("abort", stop);
    timer.abort();
  }
}
