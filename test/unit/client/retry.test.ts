import {
  type AttemptFailure,
  defaultRetryPolicy,
  exponentialBackoff,
  isRetryable,
  parseRetryAfterMs,
  type RetryPolicy,
  retryDelayMs,
} from "../../../provider/client/retry";

const status = (code: number, retryAfterMs?: number): AttemptFailure => ({
  kind: "status",
  status: code,
  retryAfterMs,
});

describe("isRetryable", () => {
  it.each([
    // failure, retried for a read, retried for a create
    ["429", status(429), true, true],
    ["502", status(502), true, false],
    ["503", status(503), true, false],
    ["504", status(504), true, false],
    ["500", status(500), false, false],
    ["400", status(400), false, false],
    ["401", status(401), false, false],
    ["403", status(403), false, false],
    ["404", status(404), false, false],
    ["200 with success false", status(200), false, false],
    ["no connection", { kind: "not-connected" } as const, true, true],
    ["an interrupted connection", { kind: "interrupted" } as const, true, false],
  ])("%s: read %s, create %s", (_name, failure, read, create) => {
    expect(isRetryable(failure, false)).toBe(read);
    expect(isRetryable(failure, true)).toBe(create);
  });
});

describe("retryDelayMs", () => {
  const policy: RetryPolicy = {
    maxAttempts: 4,
    deadlineMs: 10_000,
    floorMs: 250,
    backoff: (retry) => retry * 100,
  };

  it("never waits less than the floor, even with Retry-After: 0", () => {
    expect(retryDelayMs(policy, 1, 0, status(429, 0))).toBe(250);
    expect(retryDelayMs(policy, 1, 0, { kind: "not-connected" })).toBe(250);
  });

  it("waits the backoff when it is longer than the floor", () => {
    expect(retryDelayMs(policy, 3, 0, status(503))).toBe(300);
  });

  it("waits as long as Retry-After asks when that is longest", () => {
    expect(retryDelayMs(policy, 1, 0, status(429, 2_000))).toBe(2_000);
    expect(retryDelayMs(policy, 3, 0, status(503, 1_000))).toBe(1_000);
  });

  it("stops once maxAttempts attempts have been made", () => {
    expect(retryDelayMs(policy, 3, 0, status(503))).toBeDefined();
    expect(retryDelayMs(policy, 4, 0, status(503))).toBeUndefined();
    expect(retryDelayMs({ ...policy, maxAttempts: 1 }, 1, 0, status(503))).toBeUndefined();
  });

  it("retries a 429 past maxAttempts, until the deadline", () => {
    expect(retryDelayMs(policy, 4, 0, status(429))).toBeDefined();
    expect(retryDelayMs(policy, 40, 0, status(429))).toBeDefined();
    expect(retryDelayMs(policy, 40, 9_751, status(429))).toBeUndefined();
    // A deadline of their own for refusals, when the policy has one.
    const patient = { ...policy, throttledDeadlineMs: 60_000 };
    expect(retryDelayMs(patient, 40, 50_000, status(429))).toBeDefined();
    expect(retryDelayMs(patient, 1, 9_751, status(503))).toBeUndefined();
    expect(defaultRetryPolicy.throttledDeadlineMs).toBe(600_000);
  });

  it("stops when the wait would end past the deadline", () => {
    expect(retryDelayMs(policy, 1, 9_750, status(503))).toBe(250);
    expect(retryDelayMs(policy, 1, 9_751, status(503))).toBeUndefined();
    // A Retry-After beyond the deadline is not waited for.
    expect(retryDelayMs(policy, 1, 0, status(429, 60_000))).toBeUndefined();
  });

  it("the default policy has a floor of at least 250 ms and a bounded number of attempts", () => {
    expect(defaultRetryPolicy.floorMs).toBeGreaterThanOrEqual(250);
    expect(retryDelayMs(defaultRetryPolicy, 1, 0, status(429, 0))).toBeGreaterThanOrEqual(250);
    expect(
      retryDelayMs(defaultRetryPolicy, defaultRetryPolicy.maxAttempts, 0, status(503)),
    ).toBeUndefined();
  });
});

describe("parseRetryAfterMs", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");

  it.each([
    ["0", 0],
    ["3", 3_000],
    ["120", 120_000],
    ["1.5", 1_500],
    [" 2 ", 2_000],
  ])("reads seconds: %j is %i ms", (header, ms) => {
    expect(parseRetryAfterMs(header, now)).toBe(ms);
  });

  it("reads an HTTP date as the time until it", () => {
    expect(parseRetryAfterMs("Wed, 01 Jan 2025 00:00:30 GMT", now)).toBe(30_000);
  });

  it("reads a date in the past, or negative seconds, as no wait", () => {
    expect(parseRetryAfterMs("Tue, 31 Dec 2024 23:59:00 GMT", now)).toBe(0);
    expect(parseRetryAfterMs("-5", now)).toBe(0);
  });

  it("uses the first of repeated headers", () => {
    expect(parseRetryAfterMs(["4", "9"], now)).toBe(4_000);
  });

  it.each([undefined, "", "   ", "soon", "later, please"])("ignores %j", (header) => {
    expect(parseRetryAfterMs(header, now)).toBeUndefined();
  });
});

describe("exponentialBackoff", () => {
  it("waits half the step with the lowest random draw", () => {
    const backoff = exponentialBackoff(100, 1_000, () => 0);
    expect([1, 2, 3, 4, 5].map(backoff)).toEqual([50, 100, 200, 400, 500]);
  });

  it("waits the whole step with the highest random draw", () => {
    const backoff = exponentialBackoff(100, 1_000, () => 1);
    expect([1, 2, 3, 4, 5, 30].map(backoff)).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it("stays between half and all of the capped step for any draw", () => {
    for (const draw of [0, 0.25, 0.5, 0.75, 0.999]) {
      const backoff = exponentialBackoff(500, 10_000, () => draw);
      for (let retry = 1; retry <= 12; retry++) {
        const step = Math.min(10_000, 500 * 2 ** (retry - 1));
        const wait = backoff(retry);
        expect(wait).toBeGreaterThanOrEqual(step / 2);
        expect(wait).toBeLessThanOrEqual(step);
      }
    }
  });

  it("never exceeds the cap on very late retries", () => {
    expect(exponentialBackoff(500, 10_000, () => 1)(1_100)).toBe(10_000);
  });
});
