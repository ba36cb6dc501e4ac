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
 * `decide` returns a value (not undefined), or returns undefined once the deadline has passed.
 * `decide` sees undefined when the instance does not exist.
 */
export async function watchInstance<T>(
  client: GpuCloudClient,
  instanceId: number,
  intervalMs: number,
  deadlineMs: number,
  decide: (instance: Instance | undefined) => T | undefined,
): Promise<T | undefined> {
  for (;;) {
    const value = decide(await client.instances.nextStatus(instanceId, intervalMs));
    if (value !== undefined) return value;
    if (Date.now() >= deadlineMs) return undefined;
  }
}
