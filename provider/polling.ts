import { setTimeout as sleep } from "node:timers/promises";
import type { GpuCloudClient, Instance } from "./client";

export interface PollOptions {
  /** The first wait, in ms; each later wait doubles, up to `maxIntervalMs`. */
  readonly initialIntervalMs: number;
  readonly maxIntervalMs: number;
  /** Epoch ms after which polling stops. */
  readonly deadlineMs: number;
}

/**
 * Calls `probe` until it returns a value (not undefined) or the deadline passes, waiting with
 * backoff between calls (the real service rate-limits). Returns undefined on the deadline.
 */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined>,
  options: PollOptions,
): Promise<T | undefined> {
  let intervalMs = options.initialIntervalMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    const remainingMs = options.deadlineMs - Date.now();
    if (remainingMs <= 0) return undefined;
    await sleep(Math.min(intervalMs, remainingMs));
    intervalMs = Math.min(options.maxIntervalMs, intervalMs * 2);
  }
}

/**
 * Reads the instance at each of the process's shared status rounds
 * (`client.instances.nextStatus`, one list request a round for every instance waited on) until
 * `decide` returns a value (not undefined), or returns undefined at the deadline, even while a
 * read is still under way. `decide` sees undefined when the instance does not exist.
 */
export async function watchInstance<T>(
  client: GpuCloudClient,
  instanceId: number,
  intervalMs: number,
  deadlineMs: number,
  decide: (instance: Instance | undefined) => T | undefined,
): Promise<T | undefined> {
  for (;;) {
    const read = await beforeDeadline(
      client.instances.nextStatus(instanceId, intervalMs),
      deadlineMs,
    );
    if (!read.done) return undefined;
    const value = decide(read.value);
    if (value !== undefined) return value;
  }
}

/** The promise's value, or `done: false` once the deadline passes first. */
async function beforeDeadline<T>(
  promise: Promise<T>,
  deadlineMs: number,
): Promise<{ done: true; value: T } | { done: false }> {
  const timer = new AbortController();
  const late = sleep(Math.max(0, deadlineMs - Date.now()), undefined, {
    signal: timer.signal,
  }).then(
    () => ({ done: false }) as const,
    () => ({ done: false }) as const,
  );
  try {
    return await Promise.race([promise.then((value) => ({ done: true, value }) as const), late]);
  } finally {
    timer.abort();
  }
}
