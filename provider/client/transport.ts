import { setTimeout as sleep } from "node:timers/promises";
import type { Pool } from "undici";
import { z } from "zod";
import { authErrorMessage, GpuCloudError } from "./errors";
import { EndpointPacer, endpointOf } from "./pacing";
import {
  type AttemptFailure,
  defaultRetryPolicy,
  isRetryable,
  parseRetryAfterMs,
  retryDelayMs,
  type RetryPolicy,
} from "./retry";

export interface TransportOptions {
  /** The service's base address, e.g. `https://console.example.com`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Per-attempt timeout in milliseconds (default 30 s). */
  readonly timeoutMs?: number;
  readonly retryPolicy?: RetryPolicy;
  /** Called before each retry; for debug logs (it receives no credential). */
  readonly onRetry?: (event: RetryEvent) => void;
  /**
   * The connections to use, shared with other clients of the same owner (a run's clients share
   * its pools); a client given none keeps its own.
   */
  readonly pools?: ConnectionPools;
}

export interface RetryEvent {
  readonly endpoint: string;
  readonly retry: number;
  readonly delayMs: number;
  readonly reason: string;
}

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

export interface RequestSpec<T> {
  readonly method: HttpMethod;
  /** Path relative to the base address, with the specification's trailing slash. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number>>;
  readonly body?: unknown;
  /** The body's schema: a body that does not match is an error, and nothing is sent. */
  readonly bodySchema?: z.ZodType;
  readonly response: z.ZodType<T>;
  /** The request creates something: never retried once it may have reached the server. */
  readonly creates?: boolean;
  readonly signal?: AbortSignal;
  /**
   * Stops only the waits before a send (the endpoint's turn, a retry's sleep), never a request
   * in flight: a create whose reply says what it made can be cancelled while it waits, as
   * nothing has been sent or the last answer created nothing.
   */
  readonly waitSignal?: AbortSignal;
}

/**
 * One connection pool per origin, shared by the clients given it (a run's, provider/run/run.ts).
 * An idle connection never holds a process open: undici unreferences it.
 */
export class ConnectionPools {
  readonly #pools = new Map<string, Pool>();

  poolFor(origin: string): Pool {
    let pool = this.#pools.get(origin);
    if (!pool) {
      const Pool = loadUndiciPool();
      pool = new Pool(origin, { connections: 16, keepAliveTimeout: 4_000 });
      this.#pools.set(origin, pool);
    }
    return pool;
  }

  /** Closes every pool; for tests and short-lived processes that want a clean exit. */
  async close(): Promise<void> {
    const all = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(all.map((pool) => pool.close()));
  }
}

/**
 * The undici modules `loadUndiciPool` uses, each required by a literal name: a bundler follows
 * only such calls. The standalone plugin (scripts/package-plugin.mjs) is one esbuild bundle run
 * by a single executable whose `require` loads nothing but Node's built-in modules, so whatever
 * is not in the bundle cannot be loaded at all. Unbundled, each is loaded when first asked for.
 */
function requireUndici(id: string): unknown {
  /* eslint-disable @typescript-eslint/no-require-imports */
  switch (id) {
    case "undici/lib/dispatcher/pool.js":
      return require("undici/lib/dispatcher/pool.js");
    case "undici/lib/dispatcher/dispatcher.js":
      return require("undici/lib/dispatcher/dispatcher.js");
    case "undici/lib/api/index.js":
      return require("undici/lib/api/index.js");
    case "undici":
      return require("undici");
    default:
      throw new Error(`not an undici module of the client: ${id}`);
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/**
 * undici's `Pool`, loaded by the first request, not with the package: a Pulumi program that only
 * declares resources (their classes import the client's schemas) never sends one. undici's
 * index loads all of undici (fetch, WebSocket, caches, mocks, proxies) for 20 ms and 6 MB in a
 * provider process that waits on it; the pool and its request API alone take 5 ms and 2 MB.
 * They are the files the index itself assembles them from, in the version package.json pins:
 * should a different undici lack them, the index is loaded instead (one test checks both ways).
 */
export function loadUndiciPool(
  load: (id: string) => unknown = requireUndici,
): typeof import("undici").Pool {
  try {
    const Pool = load("undici/lib/dispatcher/pool.js") as typeof import("undici").Pool;
    const Dispatcher = load("undici/lib/dispatcher/dispatcher.js") as { prototype: object };
    const api = load("undici/lib/api/index.js") as object;
    // What the index does: the request API is mixed into every dispatcher.
    Object.assign(Dispatcher.prototype, api);
    if (typeof Pool === "function" && typeof Pool.prototype.request === "function") return Pool;
  } catch {
    // A different layout: the index below.
  }
  return (load("undici") as typeof import("undici")).Pool;
}

/**
 * Kept for programs written against 0.1.0, when every client of a process shared one pool per
 * origin: connections now belong to each client (or to the run that gives them), closed by
 * `GpuCloudClient.close()`. It closes nothing; an idle connection never holds a process open.
 */
export async function closeAllPools(): Promise<void> {}

// Codes of failures that happen before a connection exists: the request was never sent.
const notConnectedCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function errorCodes(error: unknown): string[] {
  if (typeof error !== "object" || error === null) return [];
  const codes: string[] = [];
  if ("code" in error && typeof error.code === "string") codes.push(error.code);
  if ("errors" in error && Array.isArray(error.errors)) {
    for (const inner of error.errors) codes.push(...errorCodes(inner));
  }
  if ("cause" in error && error.cause !== error) codes.push(...errorCodes(error.cause));
  return codes;
}

const serviceErrorBody = z.object({
  error: z.string().optional(),
  msg: z.string().optional(),
  detail: z.string().optional(),
});
const successFlag = z.object({ success: z.literal(false) });

/**
 * The threshold a 429 names (`API requests too frequent: endpoint threshold=2.0`, in plain text
 * or in a JSON body's `detail` or `msg`), if it names one.
 */
function thresholdOf(text: string): { thresholdPerSecond?: number } {
  const threshold = Number(/endpoint threshold=([0-9]+(?:\.[0-9]+)?)/.exec(text)?.[1]);
  return Number.isFinite(threshold) && threshold > 0 ? { thresholdPerSecond: threshold } : {};
}

/** The last attempt's error, saying that it was the last of several. */
function afterRetries(error: GpuCloudError, attempts: number): GpuCloudError {
  return new GpuCloudError(
    `${error.message} (gave up after ${attempts} attempts)`,
    error.endpoint,
    error.status,
    error.code,
    error.serviceMessage,
    error.mayHaveCreated,
    error.network,
  );
}

function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `field \`${issue.path.join(".") || "(body)"}\`: ${issue.message}`)
    .join("; ");
}

/**
 * Sends requests to the service: bearer auth, JSON bodies, zod-checked responses, retries by
 * the policy, per-attempt timeouts and cancellation. Errors are always {@link GpuCloudError}.
 */
export class Transport {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly timeoutMs: number;
  private readonly retryPolicy: RetryPolicy;
  // ES private fields: unlike TypeScript's `private`, util.inspect and JSON.stringify of a
  // client never show them, so logging a client cannot print the key.
  readonly #authorization: string;
  readonly #onRetry: ((event: RetryEvent) => void) | undefined;
  // The service's limits are per endpoint and key: one pacer per client's key.
  private readonly pacer = new EndpointPacer();
  private readonly pools: ConnectionPools;

  constructor(options: TransportOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
    } catch {
      throw new Error(
        `gpucloud:baseUrl is not a valid URL; set it to the service's address, e.g. https://host`,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new Error(`gpucloud:baseUrl must start with http:// or https://`);
    }
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retryPolicy = options.retryPolicy ?? defaultRetryPolicy;
    // Kept as the header value only; it is never part of a message or an error.
    this.#authorization = `Bearer ${options.apiKey}`;
    this.#onRetry = options.onRetry;
    this.pools = options.pools ?? new ConnectionPools();
  }

  /** Closes the client's connections (those of the pools it was given, too). */
  close(): Promise<void> {
    return this.pools.close();
  }

  async request<T>(spec: RequestSpec<T>): Promise<T> {
    const endpoint = `${spec.method} ${spec.path}`;
    if (spec.bodySchema) {
      const checked = spec.bodySchema.safeParse(spec.body);
      if (!checked.success) {
        throw new GpuCloudError(
          `${endpoint} was not sent: its body is invalid: ${describeZodError(checked.error)}`,
          endpoint,
          undefined,
          undefined,
          undefined,
        );
      }
    }
    const started = Date.now();
    const paced = endpointOf(spec.method, spec.path);
    // Refusals (429) and other failures are counted apart: a refusal uses up no attempt, and
    // the time spent waiting for the endpoint's pace counts only against the refusals' own
    // deadline, not against the deadline of other failures.
    let failures = 0;
    let refusals = 0;
    let pacedMs = 0;
    const waits =
      spec.signal && spec.waitSignal
        ? AbortSignal.any([spec.signal, spec.waitSignal])
        : (spec.signal ?? spec.waitSignal);
    for (let attempt = 1; ; attempt++) {
      let turnAtMs: number;
      try {
        turnAtMs = await this.pacer.turn(paced, waits);
      } catch {
        throw this.cancelled(endpoint, false);
      }
      pacedMs += Date.now() - turnAtMs;
      const outcome = await this.attempt(spec, endpoint);
      if (outcome.ok) {
        this.pacer.answered(paced);
        return outcome.value;
      }
      const throttled = outcome.failure.kind === "status" && outcome.failure.status === 429;
      if (throttled) {
        refusals += 1;
        const { thresholdPerSecond } = outcome.failure as { thresholdPerSecond?: number };
        this.pacer.throttled(paced, turnAtMs, thresholdPerSecond);
      } else {
        failures += 1;
      }
      const creates = spec.creates ?? false;
      // A refusal's retry waits for its turn at the endpoint's learnt pace (capped, jittered),
      // not for a backoff of its own on top: the policy's floor, then the pacer.
      const delayMs = !isRetryable(outcome.failure, creates)
        ? undefined
        : throttled
          ? retryDelayMs(
              { ...this.retryPolicy, backoff: () => 0 },
              refusals,
              Date.now() - started,
              outcome.failure,
            )
          : retryDelayMs(
              this.retryPolicy,
              failures,
              Date.now() - started - pacedMs,
              outcome.failure,
            );
      if (delayMs === undefined)
        throw attempt > 1 ? afterRetries(outcome.error, attempt) : outcome.error;
      this.#onRetry?.({ endpoint, retry: attempt, delayMs, reason: outcome.error.message });
      try {
        await sleep(delayMs, undefined, { signal: waits });
      } catch {
        throw this.cancelled(endpoint, false);
      }
      if (throttled) pacedMs += delayMs;
    }
  }

  private cancelled(endpoint: string, mayHaveCreated: boolean): GpuCloudError {
    return new GpuCloudError(
      `${endpoint} was cancelled`,
      endpoint,
      undefined,
      undefined,
      undefined,
      mayHaveCreated,
    );
  }

  private async attempt<T>(
    spec: RequestSpec<T>,
    endpoint: string,
  ): Promise<
    { ok: true; value: T } | { ok: false; failure: AttemptFailure; error: GpuCloudError }
  > {
    const creates = spec.creates ?? false;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    const query = spec.query
      ? "?" +
        new URLSearchParams(
          Object.entries(spec.query).map(([k, v]): [string, string] => [k, String(v)]),
        ).toString()
      : "";
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const response = await this.pools.poolFor(this.origin).request({
        method: spec.method,
        path: this.basePath + spec.path + query,
        headers: {
          authorization: this.#authorization,
          accept: "application/json",
          ...(spec.body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: spec.body === undefined ? null : JSON.stringify(spec.body),
        // undici closes a connection after a DELETE that carries a body, in case the server left
        // the body unread; the service reads its DELETE bodies (a secret's key, a volume's id),
        // so the connection is kept: a new one per such delete is a TLS handshake each.
        reset: false,
        signal,
      });
      status = response.statusCode;
      headers = response.headers;
      text = await response.body.text();
    } catch (error) {
      if (spec.signal?.aborted) throw this.cancelled(endpoint, creates);
      const codes = errorCodes(error);
      const neverSent = codes.some((code) => notConnectedCodes.has(code));
      const what = timeout.aborted
        ? `timed out after ${this.timeoutMs} ms`
        : `failed: ${codes[0] ?? (error instanceof Error ? error.message : "network error")}`;
      const maybe = creates && !neverSent;
      return {
        ok: false,
        failure: { kind: neverSent ? "not-connected" : "interrupted" },
        error: new GpuCloudError(
          `${endpoint} ${what} (${this.origin})` +
            (maybe ? "; the request may have reached the service, so it was not sent again" : ""),
          endpoint,
          undefined,
          undefined,
          undefined,
          maybe,
          neverSent ? "not-connected" : timeout.aborted ? "timed-out" : "interrupted",
        ),
      };
    }
    return this.interpret(spec, endpoint, status, headers, text);
  }

  private interpret<T>(
    spec: RequestSpec<T>,
    endpoint: string,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    text: string,
  ): { ok: true; value: T } | { ok: false; failure: AttemptFailure; error: GpuCloudError } {
    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    const failure: AttemptFailure = {
      kind: "status",
      status,
      retryAfterMs: parseRetryAfterMs(headers["retry-after"]),
      ...(status === 429 ? thresholdOf(text) : {}),
    };
    if (status < 200 || status >= 300) {
      const parsed = serviceErrorBody.safeParse(body);
      const code = parsed.success ? parsed.data.error : undefined;
      const msg = parsed.success ? (parsed.data.msg ?? parsed.data.detail) : undefined;
      // Raw text is quoted only in part, and never with the key, should a service echo it.
      const plain =
        body === undefined && text.length > 0
          ? text.slice(0, 200).replaceAll(this.#authorization.slice("Bearer ".length), "[key]")
          : undefined;
      let message: string;
      if (status === 401 || status === 403) {
        message = authErrorMessage(status, endpoint);
      } else {
        const said = [code, msg ?? plain].filter((part) => part !== undefined).join(": ");
        message = `${endpoint} failed with HTTP ${status}${said ? ` (${said})` : ""}`;
      }
      const maybe = (spec.creates ?? false) && status !== 429 && status >= 500;
      return {
        ok: false,
        failure,
        error: new GpuCloudError(message, endpoint, status, code, msg ?? plain, maybe),
      };
    }
    if (successFlag.safeParse(body).success) {
      const parsed = serviceErrorBody.safeParse(body);
      const code = parsed.success ? parsed.data.error : undefined;
      const msg = parsed.success ? parsed.data.msg : undefined;
      return {
        ok: false,
        failure: { kind: "status", status: 200, retryAfterMs: undefined },
        error: new GpuCloudError(
          msg ?? `${endpoint} failed (${code ?? "success: false"})`,
          endpoint,
          status,
          code,
          msg,
        ),
      };
    }
    const parsed = spec.response.safeParse(body);
    if (!parsed.success) {
      return {
        ok: false,
        failure: { kind: "status", status: 200, retryAfterMs: undefined },
        error: new GpuCloudError(
          `${endpoint} returned an unexpected response: ${describeZodError(parsed.error)}` +
            (spec.creates ? "; the service accepted the request, so it may have created it" : ""),
          endpoint,
          status,
          undefined,
          undefined,
          spec.creates ?? false,
        ),
      };
    }
    return { ok: true, value: parsed.data };
  }
}
