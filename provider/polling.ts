import { setTimeout as sleep } from "node:timers/promises";

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
