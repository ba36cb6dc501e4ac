import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { Instance } from "../instances/instance-state";
import { statusOf } from "../instances/lifecycle";
import type { State } from "../shared/state";
import type { Endpoint } from "./serverless-state";
import { activeWorkers } from "./worker-engine";

/**
 * The serverless engine's router, as the service's documents give it: a client POSTs
 * `{endpoint, cost}` to `/route/` on the serverless address (the OpenAPI's `route`; the official
 * client's `Endpoint._route`, which sends the endpoint's own `api_key` as its Bearer key and in
 * the body), and is answered a ready worker's `url` with `reqnum`, `cost` and a `signature`, or,
 * with no worker ready, a `status` to poll again on. The client then POSTs
 * `{auth_data: <that answer>, payload}` to the worker's URL plus its own route (`/generate`,
 * `/v1/completions`), and the worker's PyWorker checks the signature before serving it (the
 * PyWorker guide). The emulator's workers are stand-ins served by the emulator itself, under
 * `/serverless-workers/<instance id>`: the URL a route answer gives.
 */

/** The path prefix of the stand-in workers' addresses. */
export const WORKER_PREFIX = "/serverless-workers";

/** What a route answer signs, and the worker checks (the PyWorker guide's `auth_data`). */
export const AuthDataSchema = z.object({
  signature: z.string(),
  cost: z.number(),
  endpoint: z.string(),
  reqnum: z.int(),
  url: z.string(),
});
export type AuthData = z.infer<typeof AuthDataSchema>;

export type RouteAnswer =
  | (AuthData & { __request_id: string })
  | { endpoint: string; status: string; __request_id: string };

function signed(auth: Omit<AuthData, "signature">, secret: Buffer): string {
  const text = JSON.stringify([auth.endpoint, auth.url, auth.cost, auth.reqnum]);
  return createHmac("sha256", secret).update(text).digest("hex");
}

/** The breakdown of the endpoint's workers by status (the "no worker available" answer). */
function breakdown(workers: readonly Instance[], nowMs: number): string {
  if (workers.length === 0) return "No workers";
  const counts = new Map<string, number>();
  for (const worker of workers) {
    const status = statusOf(worker, nowMs).actualStatus ?? "provisioning";
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return [...counts].map(([status, count]) => `${status}: ${String(count)}`).join(", ");
}

/** One per emulator: its signing secret and request numbers live as long as it does. */
export class Router {
  readonly #secret = randomBytes(32);
  #reqnum = 0;

  /** The endpoint's workers kept by its groups (not those being released), in id order. */
  workersOf(state: State, endpoint: Endpoint): Instance[] {
    return state.workerGroups
      .filter((group) => group.endpointId === endpoint.id)
      .flatMap((group) => activeWorkers(state, group.id))
      .sort((a, b) => a.id - b.id);
  }

  /**
   * A route call: the engine looks at each worker (a look counts as a status poll, as the
   * service's engine watches its workers whoever else does), and hands out the running ones in
   * turn. Call within a store change.
   */
  route(
    state: State,
    endpoint: Endpoint,
    cost: number,
    origin: string,
    nowMs: number,
  ): RouteAnswer {
    const workers = this.workersOf(state, endpoint);
    for (const worker of workers) worker.polls += 1;
    const ready = workers.filter((worker) => statusOf(worker, nowMs).actualStatus === "running");
    const requestId = randomUUID();
    if (ready.length === 0) {
      return {
        endpoint: endpoint.name,
        status: breakdown(workers, nowMs),
        __request_id: requestId,
      };
    }
    this.#reqnum += 1;
    const worker = ready[this.#reqnum % ready.length];
    if (worker === undefined) throw new Error("no ready worker");
    const unsigned = {
      cost,
      endpoint: endpoint.name,
      reqnum: this.#reqnum,
      url: `${origin}${WORKER_PREFIX}/${String(worker.id)}`,
    };
    return { ...unsigned, signature: signed(unsigned, this.#secret), __request_id: requestId };
  }

  /** Whether `auth` is a route answer of this emulator's for the worker at `url`. */
  verify(auth: AuthData, url: string): boolean {
    if (auth.url !== url) return false;
    const expected = Buffer.from(signed(auth, this.#secret), "hex");
    const given = Buffer.from(auth.signature, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
