/**
 * When and how long to wait before trying a request again. A small, pluggable policy in the
 * style of hcloud-go's backoff: the transport asks it, it never performs I/O itself.
 */

/** Milliseconds to wait before retry number `retry` (1 for the first retry). */
export type Backoff = (retry: number) => number;

/** Exponential backoff with full jitter between half and all of the exponential step. */
export function exponentialBackoff(baseMs: number, capMs: number, random = Math.random): Backoff {
  return (retry) => {
    const step = Math.min(capMs, baseMs * 2 ** (retry - 1));
    return Math.round(step / 2 + (random() * step) / 2);
  };
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** No retry starts later than this many ms after the first attempt began. */
  readonly deadlineMs: number;
  /**
   * The same for a request the service keeps refusing with 429 (its rate limit): a fleet's
   * requests to one endpoint queue at its pace, which can take longer than `deadlineMs`.
   * `deadlineMs` when absent.
   */
  readonly throttledDeadlineMs?: number;
  /**
   * The least wait before any retry. The real service sends `Retry-After: 0` with its 429s;
   * taking that literally would hammer it.
   */
  readonly floorMs: number;
  readonly backoff: Backoff;
}

export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 8,
  deadlineMs: 120_000,
  throttledDeadlineMs: 600_000,
  floorMs: 250,
  backoff: exponentialBackoff(500, 10_000),
};

/** Why a failed attempt happened, as far as retrying is concerned. */
export type AttemptFailure =
  | {
      kind: "status";
      status: number;
      retryAfterMs: number | undefined;
      /**
       * A 429's `endpoint threshold=T`, the endpoint's limit as the service words it (read as
       * T requests a second), when the refusal says it.
       */
      thresholdPerSecond?: number;
    }
  /** The connection never opened: the request cannot have reached the server. */
  | { kind: "not-connected" }
  /** The connection broke or timed out after the request may have been sent. */
  | { kind: "interrupted" };

const retryableStatuses: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Whether a read answered `status` is retried: the service did not serve it, for now. */
export const isRetriedStatus = (status: number): boolean => retryableStatuses.has(status);

/**
 * Whether the failure may be retried. A request that creates something is retried only when
 * it certainly did not reach the server (a 429 refusal, or no connection), so that a flaky
 * network can never rent two instances.
 */
export function isRetryable(failure: AttemptFailure, creates: boolean): boolean {
  switch (failure.kind) {
    case "not-connected":
      return true;
    case "interrupted":
      return !creates;
    case "status":
      return creates ? failure.status === 429 : retryableStatuses.has(failure.status);
  }
}

/**
 * The wait before retry number `retry`, or undefined when the policy says to stop (attempts
 * used up, or the wait would end past the deadline). A 429 is the service asking for fewer
 * requests, not a failure: it uses up no attempt, and only `throttledDeadlineMs` stops its
 * retries, so that a fleet under the service's rate limits slows down instead of failing.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  elapsedMs: number,
  failure: AttemptFailure,
): number | undefined {
  const throttled = failure.kind === "status" && failure.status === 429;
  if (!throttled && retry >= policy.maxAttempts) return undefined;
  const retryAfterMs = failure.kind === "status" ? (failure.retryAfterMs ?? 0) : 0;
  const delay = Math.max(policy.floorMs, retryAfterMs, policy.backoff(retry));
  const deadlineMs = throttled
    ? (policy.throttledDeadlineMs ?? policy.deadlineMs)
    : policy.deadlineMs;
  return elapsedMs + delay > deadlineMs ? undefined : delay;
}

/** Parses a `Retry-After` header (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfterMs(
  header: string | string[] | undefined,
  now = Date.now(),
): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
