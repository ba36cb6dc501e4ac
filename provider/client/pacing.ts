import { setTimeout as sleep } from "node:timers/promises";

/**
 * Spaces the requests to an endpoint once the service has refused one with 429. The service
 * limits each endpoint per key to a minimum interval that it sends no header for (no
 * Retry-After): the client learns it. A refusal that names the endpoint's threshold
 * (`endpoint threshold=T`, read as T requests a second, as the emulator reads it) sets the
 * endpoint's floor, 10% over 1/T s, which it keeps for the client's life. A refusal that does
 * not doubles the spacing (from 250 ms, at most 5 s; once for the requests that were waiting or
 * in flight together). Each answered request shortens the spacing by a fifth, down to the floor,
 * so that refusals that are not the endpoint's limit (another client on the key, a passing
 * overload) do not pace it for long. Requests to a paced endpoint take turns, each at least the
 * spacing after the one before.
 */
export class EndpointPacer {
  private readonly endpoints = new Map<string, Paced>();

  constructor(private readonly random: () => number = Math.random) {}

  /**
   * Waits for this endpoint's turn (at once while it is unpaced) and returns when the turn was
   * given, to hand back to {@link throttled} should the request be refused.
   */
  async turn(endpoint: string, signal?: AbortSignal): Promise<number> {
    for (;;) {
      const paced = this.endpoints.get(endpoint);
      const now = Date.now();
      if (paced === undefined || paced.spacingMs === 0) return now;
      const atMs = Math.max(now, paced.nextAtMs);
      // A little jitter, so that processes sharing a key do not fall into step.
      paced.nextAtMs = atMs + paced.spacingMs * (1 + this.random() * 0.1);
      if (atMs > now) await sleep(atMs - now, undefined, { signal });
      // A turn given at the spacing of its moment; should the spacing have grown meanwhile,
      // the turn is taken again at the new one rather than sent into a refusal.
      if (paced.grewAtMs <= now) return now;
    }
  }

  /**
   * The service refused a request to this endpoint, whose turn was given at `turnAtMs`, with
   * 429. Requests given their turn before the spacing last grew (in flight, or waiting) were
   * paced by the old spacing: their refusals do not grow it again.
   */
  throttled(endpoint: string, turnAtMs: number, thresholdPerSecond?: number): void {
    const paced = this.endpoints.get(endpoint) ?? {
      spacingMs: 0,
      floorMs: 0,
      nextAtMs: 0,
      grewAtMs: 0,
    };
    const now = Date.now();
    const told = thresholdPerSecond === undefined ? 0 : (1000 / thresholdPerSecond) * 1.1;
    const grows = paced.spacingMs === 0 || turnAtMs >= paced.grewAtMs;
    const spacingMs = Math.min(
      maxSpacingMs,
      Math.max(told, grows ? Math.max(minSpacingMs, paced.spacingMs * 2) : paced.spacingMs),
    );
    paced.floorMs = Math.min(maxSpacingMs, Math.max(paced.floorMs, told));
    if (spacingMs > paced.spacingMs) {
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
    return this.endpoints.get(endpoint)?.spacingMs ?? 0;
  }
}

interface Paced {
  spacingMs: number;
  /** The least spacing, from a threshold the service named. */
  floorMs: number;
  nextAtMs: number;
  /** When the spacing last grew. */
  grewAtMs: number;
}

const minSpacingMs = 250;
const maxSpacingMs = 5_000;
/**
 * Each answered request shortens the spacing by a fifth. Faster than a refusal lengthens it
 * (a doubling) per request, at a refusal rate below one in four: refusals that are not the
 * endpoint's limit (another client on the key, a passing overload) do not pace it for long.
 */
const answeredFactor = 0.8;

/** The endpoint a request goes to: its method and path, ids replaced (`GET /api/v0/instances/:id/`). */
export function endpointOf(method: string, path: string): string {
  return `${method} ${path.replace(/\/\d+(?=\/|$)/g, "/:id")}`;
}
