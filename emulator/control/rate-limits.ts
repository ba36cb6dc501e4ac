import { createHash } from "node:crypto";

/**
 * The service's rate limits, as its reference documents them: per endpoint and per identity
 * (here, the bearer token), a minimum interval between requests. Each endpoint's 429 example
 * gives a threshold (`API requests too frequent endpoint threshold=T`) whose unit is not
 * published. The emulator reads T as requests per second, with a burst of ⌈T⌉: a token bucket
 * of ⌈T⌉ tokens refilled at T a second (T = 1.0: one request a second; 4.5: five at once, then
 * one every 0.22 s). Endpoints whose description gives no 429 are not limited.
 */
interface Limit {
  readonly threshold: number;
  /** The endpoint's documented JSON body: `{detail}`, or the error object with its code. */
  readonly json: "detail" | "error";
}

// Transcribed from the 429 examples of the reference's endpoints that the emulator serves, keyed
// by method and route (the emulator's route patterns).
const documented: Readonly<Record<string, Limit>> = {
  "GET /api/v1/instances/": { threshold: 1.0, json: "detail" },
  "GET /api/v0/instances/:id/": { threshold: 2.0, json: "detail" },
  "PUT /api/v0/instances/:id/": { threshold: 1.0, json: "detail" },
  "DELETE /api/v0/instances/:id/": { threshold: 3.0, json: "error" },
  "DELETE /api/v0/instances/:id/ssh/:sshKeyId/": { threshold: 2.0, json: "detail" },
  // The specification rents with POST, the reference with PUT: one endpoint.
  "PUT /api/v0/asks/:id/": { threshold: 4.5, json: "detail" },
  "POST /api/v0/asks/:id/": { threshold: 4.5, json: "detail" },
  "GET /api/v0/secrets/": { threshold: 5.0, json: "detail" },
  "POST /api/v0/secrets/": { threshold: 3.0, json: "detail" },
  "PUT /api/v0/secrets/": { threshold: 3.0, json: "detail" },
  "DELETE /api/v0/secrets/": { threshold: 3.0, json: "detail" },
  "GET /api/v0/volumes/": { threshold: 5.5, json: "detail" },
  "DELETE /api/v0/volumes/": { threshold: 5.5, json: "detail" },
  "POST /api/v0/volumes/search/": { threshold: 5.5, json: "detail" },
  "GET /api/v0/auth/apikeys/": { threshold: 1.0, json: "detail" },
  "POST /api/v0/auth/apikeys/": { threshold: 2.0, json: "detail" },
  "DELETE /api/v0/auth/apikeys/:id/": { threshold: 2.0, json: "detail" },
  "POST /api/v0/ssh/": { threshold: 1.0, json: "detail" },
  "PUT /api/v0/ssh/:id/": { threshold: 1.0, json: "detail" },
  "PUT /api/v0/instances/bid_price/:id/": { threshold: 5.5, json: "detail" },
  // Templates: only the search documents a 429 example (create's 429 has no body).
  "GET /api/v0/template/": { threshold: 3.0, json: "detail" },
  "POST /api/v0/endptjobs/": { threshold: 4.0, json: "detail" },
  "GET /api/v0/endptjobs/": { threshold: 3.0, json: "detail" },
  "PUT /api/v0/endptjobs/:id/": { threshold: 2.0, json: "detail" },
  "DELETE /api/v0/endptjobs/:id/": { threshold: 3.0, json: "detail" },
  "POST /api/v0/workergroups/": { threshold: 4.0, json: "detail" },
  "GET /api/v0/workergroups/": { threshold: 2.0, json: "detail" },
  "PUT /api/v0/workergroups/:id/": { threshold: 2.0, json: "detail" },
  "DELETE /api/v0/workergroups/:id/": { threshold: 3.0, json: "detail" },
  "GET /api/v0/charges/": { threshold: 1.0, json: "detail" },
  "GET /api/v1/invoices/": { threshold: 3.0, json: "detail" },
  // Clusters: neither the reference nor the docs give these endpoints a limit, so the emulator
  // gives each the class of its nearest documented kin: the network-volume search that of the
  // volume-offer search, creating a network volume that of a secret write (a paid create whose
  // own kin, PUT /api/v0/volumes/, documents none), overlays those of API keys (account
  // configuration: list 1.0, changes 2.0).
  "POST /api/v0/network_volumes/search/": { threshold: 5.5, json: "detail" },
  "PUT /api/v0/network_volumes/": { threshold: 3.0, json: "detail" },
  "GET /api/v0/overlay/": { threshold: 1.0, json: "detail" },
  "POST /api/v0/overlay/": { threshold: 2.0, json: "detail" },
  "PUT /api/v0/overlay/": { threshold: 2.0, json: "detail" },
  "DELETE /api/v0/overlay/": { threshold: 2.0, json: "detail" },
};

/** The official client's older path for worker groups is the same endpoint (one limit). */
function canonicalRoute(route: string): string {
  return route.startsWith("/api/v0/autojobs/")
    ? `/api/v0/workergroups/${route.slice("/api/v0/autojobs/".length)}`
    : route;
}

/** The documented threshold of an endpoint, or undefined when it is not limited. */
export function documentedThreshold(method: string, route: string): number | undefined {
  return documented[`${method} ${canonicalRoute(route)}`]?.threshold;
}

export type RateLimitMode = "off" | "documented";

/** A refusal, in one of the forms the reference says the service answers with. */
export interface RateLimited {
  readonly contentType: "text/plain; charset=utf-8" | "application/json; charset=utf-8";
  readonly body: string;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private refusals = 0;

  constructor(private readonly mode: RateLimitMode) {}

  /**
   * Takes a token for one request, or answers the refusal to send instead. `identity` is the
   * request's credential; only its digest is kept.
   */
  take(method: string, rawRoute: string, identity: string, nowMs: number): RateLimited | undefined {
    if (this.mode === "off") return undefined;
    const route = canonicalRoute(rawRoute);
    const limit = documented[`${method} ${route}`];
    if (limit === undefined) return undefined;
    const who = createHash("sha256").update(identity).digest("base64url").slice(0, 16);
    // POST and PUT on an ask are one endpoint, as above.
    const key = `${who} ${method === "POST" && route === "/api/v0/asks/:id/" ? "PUT" : method} ${route}`;
    const burst = Math.max(1, Math.ceil(limit.threshold));
    const bucket = this.buckets.get(key) ?? { tokens: burst, atMs: nowMs };
    bucket.tokens = Math.min(
      burst,
      bucket.tokens + ((nowMs - bucket.atMs) / 1000) * limit.threshold,
    );
    bucket.atMs = nowMs;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return this.refusal(limit);
  }

  /** The forms take turns: plain text, plain text with the threshold, the documented JSON. */
  private refusal(limit: Limit): RateLimited {
    const threshold = limit.threshold.toFixed(1);
    const text = "text/plain; charset=utf-8";
    switch (this.refusals++ % 3) {
      case 0:
        return { contentType: text, body: "API requests too frequent" };
      case 1:
        return {
          contentType: text,
          body: `API requests too frequent: endpoint threshold=${threshold}`,
        };
      default: {
        const msg = `API requests too frequent endpoint threshold=${threshold}`;
        const body =
          limit.json === "detail"
            ? { detail: msg }
            : { success: false, error: "rate_limit_exceeded", msg };
        return { contentType: "application/json; charset=utf-8", body: JSON.stringify(body) };
      }
    }
  }
}
