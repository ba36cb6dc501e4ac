import { setTimeout as sleepFor } from "node:timers/promises";

import { documentedThreshold } from "./documented-limits";

/**
 * Spaces the requests to each endpoint under the service's rate limits. The service limits each
 * endpoint per key to a minimum interval and refuses with 429 without a header to say when to
 * come back (no Retry-After). Until it first refuses a request of this client, every endpoint is
 * unpaced: a service or emulator that limits nothing costs nothing. From the first refusal on
 * (any endpoint: the service enforces its limits on this key), every endpoint with a documented
 * threshold (documented-limits.ts; T requests a second) is paced at it from its next request,
 * one request every {@link intervalAt}(T), before any refusal of its own; a refusal that names
 * the threshold (`endpoint threshold=T`) sets it too. Those intervals are floors, kept for the
 * client's life. Beyond that, a refusal that names no threshold doubles the spacing (from
 * 250 ms, at most 5 s; once for the requests that were waiting or in flight together), and
 * each answered request shortens it by a fifth, down to the floor, so that refusals that are not
 * the endpoint's limit (another client on the key, a passing overload) do not pace it for long.
 * Requests to a paced endpoint take turns, each given at least the spacing after the one given
 * before (measured when given, so that a late timer does not bunch the next turns).
 */
export class EndpointPacer {
  private readonly endpoints = new Map<string, Paced>();
  /** The service has refused a request of this client: it enforces its limits here. */
  private limited = false;

  constructor(
    private readonly random: () => number = Math.random,
    /** Each endpoint's documented threshold, requests a second. */
    private readonly thresholdOf: (endpoint: string) => number | undefined = documentedThreshold,
  ) {}

  /**
   * Waits for this endpoint's turn (at once while it is unpaced) and returns when the turn was
   * asked for (at the spacing of that moment), to hand back to {@link throttled} should the
   * request be refused; the caller counts the wait from it.
   */
  async turn(endpoint: string, signal?: AbortSignal): Promise<number> {
    for (;;) {
      const paced = this.pacedOf(endpoint);
      const now = Date.now();
      if (paced === undefined || paced.spacingMs === 0) return now;
      const atMs = Math.max(now, paced.nextAtMs, paced.givenAtMs + paced.spacingMs);
      // Above the floor (a pace learnt from refusals), a little jitter, so that processes
      // sharing a key and refused together do not retry in step. At the floor, the service's
      // own pace, none: a lone process keeps it exactly (a fleet's hand-overs, one a second,
      // are its `up`'s length), and processes sharing a key at it are refused anyway, which
      // moves them above it.
      const jitterFraction = paced.spacingMs > paced.floorMs ? this.random() * jitter : 0;
      paced.nextAtMs = atMs + paced.spacingMs * (1 + jitterFraction);
      if (atMs > now) await sleep(atMs - now, signal);
      // A turn given at the spacing of its moment; should the spacing have grown meanwhile,
      // the turn is taken again at the new one rather than sent into a refusal.
      if (paced.grewAtMs > now) continue;
      // Timers fire late on a busy machine: the turn keeps its distance from the one given
      // last, whenever that was given, rather than from when it was due.
      for (;;) {
        const shortMs = paced.givenAtMs + paced.spacingMs - Date.now();
        if (shortMs <= 0) break;
        await sleep(shortMs, signal);
      }
      paced.givenAtMs = Date.now();
      return now;
    }
  }

  /**
   * The service refused a request to this endpoint, whose turn was given at `turnAtMs`, with
   * 429. Requests given their turn before the spacing last grew (in flight, or waiting) were
   * paced by the old spacing: their refusals do not grow it again.
   */
  throttled(endpoint: string, turnAtMs: number, thresholdPerSecond?: number): void {
    // Sent unpaced: the first refusal of the endpoint, or of the client.
    const first = (this.endpoints.get(endpoint)?.spacingMs ?? 0) === 0;
    this.limited = true;
    const paced = this.pacedOf(endpoint) ?? unpaced();
    const now = Date.now();
    const told = thresholdPerSecond === undefined ? 0 : intervalAt(thresholdPerSecond);
    const floorMs = Math.min(maxSpacingMs, Math.max(paced.floorMs, told));
    const grown = first
      ? minSpacingMs
      : turnAtMs >= paced.grewAtMs
        ? paced.spacingMs * 2
        : paced.spacingMs;
    const spacingMs = Math.min(maxSpacingMs, Math.max(floorMs, grown));
    paced.floorMs = floorMs;
    if (spacingMs > paced.spacingMs || first) {
      paced.spacingMs = spacingMs;
      paced.grewAtMs = now;
      // Turns given at the old spacing are taken again (see turn): the queue starts afresh.
      paced.nextAtMs = now + paced.spacingMs;
    }
    this.endpoints.set(endpoint, paced);
  }

  /** The service answered a request to this endpoint. */
  answered(endpoint: string): void {
    const paced = this.endpoints.get(endpoint);
    if (paced === undefined) return;
    const shorter = Math.max(paced.floorMs, paced.spacingMs * answeredFactor);
    paced.spacingMs = shorter < minSpacingMs / 2 ? 0 : shorter;
  }

  /** The current spacing of an endpoint, in ms (0: unpaced). */
  spacingMs(endpoint: string): number {
    return this.pacedOf(endpoint)?.spacingMs ?? 0;
  }

  /**
   * An endpoint's pacing; once the service has refused this client, an endpoint with a
   * documented threshold starts paced at it.
   */
  private pacedOf(endpoint: string): Paced | undefined {
    const known = this.endpoints.get(endpoint);
    if (known !== undefined || !this.limited) return known;
    const threshold = this.thresholdOf(endpoint);
    if (threshold === undefined) return undefined;
    const floorMs = Math.min(maxSpacingMs, intervalAt(threshold));
    const paced = { ...unpaced(), spacingMs: floorMs, floorMs };
    this.endpoints.set(endpoint, paced);
    return paced;
  }
}

interface Paced {
  spacingMs: number;
  /** The least spacing, from a threshold documented or named by a refusal. */
  floorMs: number;
  /** When the next turn is due (the last one reserved, plus the spacing and any jitter). */
  nextAtMs: number;
  /** When the last turn was given. */
  givenAtMs: number;
  /** When the spacing last grew. */
  grewAtMs: number;
}

const unpaced = (): Paced => ({
  spacingMs: 0,
  floorMs: 0,
  nextAtMs: 0,
  givenAtMs: Number.NEGATIVE_INFINITY,
  grewAtMs: 0,
});

/**
 * The interval kept at a threshold of T requests a second: 1/T s and 2% more, for the
 * difference between when a request leaves and when the service counts it.
 */
export function intervalAt(thresholdPerSecond: number): number {
  return (1000 / thresholdPerSecond) * 1.02;
}

/** Up to 2% more than a spacing above the floor, at random. */
const jitter = 0.02;
const minSpacingMs = 250;
const maxSpacingMs = 5_000;
/**
 * Each answered request shortens the spacing by a fifth. Faster than a refusal lengthens it
 * (a doubling) per request, at a refusal rate below one in four: refusals that are not the
 * endpoint's limit (another client on the key, a passing overload) do not pace it for long.
 */
const answeredFactor = 0.8;

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return sleepFor(ms, undefined, { signal });
}

/** The endpoint a request goes to: its method and path, ids replaced (`GET /api/v0/instances/:id/`). */
export function endpointOf(method: string, path: string): string {
  return `${method} ${path.replace(/\/\d+(?=\/|$)/g, "/:id")}`;
}
