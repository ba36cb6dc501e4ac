import type { LoggedRequest } from "./emulator";
import { countInstanceRequests, instanceRequestKind, type InstanceRequestKind } from "./scale";

/** A fleet as a batch job rents one: this many single-GPU workers by one query. */
export const fleetSize = 40;

/** The emulator a fleet is measured against: like the service at scale (emulator/README.md). */
export const fleetEmulatorOptions = {
  rateLimits: "documented",
  bootSeconds: 20,
  market: { seed: 1 },
} as const;

/** The CLI's parallelism for a fleet: above its size, so that no boot waits for another. */
export const fleetParallel = 64;

/** The program's body (`gpucloud` and `pulumi` in scope): `count` workers by one offer query. */
export function fleetProgram(count: number): string {
  return `
const workers = [];
for (let n = 0; n < ${count}; n++) {
  workers.push(new gpucloud.Instance("worker-" + n, {
    offerQuery: { numGpus: 1 },
    image: "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime",
    diskGb: 10,
  }));
}
exports.workers = pulumi.all(workers.map((worker) => worker.instanceId));
exports.statuses = pulumi.all(workers.map((worker) => worker.actualStatus));
`;
}

export interface FleetRequests {
  /** Requests the emulator answered (any status but 429), by kind. */
  readonly answeredByKind: Record<InstanceRequestKind, number>;
  /** Requests refused with 429, by kind. */
  readonly refusedByKind: Record<InstanceRequestKind, number>;
  readonly rents: { answered: number; refused: number };
  readonly statusReads: { answered: number; refused: number };
}

/** A fleet's requests, answered and refused (429), by kind. */
export function fleetRequests(requests: readonly LoggedRequest[]): FleetRequests {
  const answeredByKind = countInstanceRequests(requests, (status) => status !== 429);
  const refusedByKind = countInstanceRequests(requests, (status) => status === 429);
  return {
    answeredByKind,
    refusedByKind,
    rents: { answered: answeredByKind.create, refused: refusedByKind.create },
    statusReads: { answered: answeredByKind.statusRead, refused: refusedByKind.statusRead },
  };
}

/** When a fleet's `up` reached each milestone, seconds after it started (the emulator's log). */
export interface FleetTimeline {
  /** The first request to the service (the engine has started the program and the provider). */
  readonly firstRequest: number;
  readonly firstRent: number;
  readonly lastRent: number;
  readonly firstHandOver: number;
  readonly lastHandOver: number;
}

/** The fleet's milestones in the request log of its `up`, which started at `startedAtMs`. */
export function fleetTimeline(
  requests: readonly LoggedRequest[],
  startedAtMs: number,
): FleetTimeline {
  const answered = (kind: InstanceRequestKind) =>
    requests
      .filter((request) => request.status !== 429 && instanceRequestKind(request) === kind)
      .map((request) => (request.atMs - startedAtMs) / 1000);
  const rents = answered("create");
  const handOvers = answered("handOver");
  return {
    firstRequest: Math.min(...requests.map((request) => (request.atMs - startedAtMs) / 1000)),
    firstRent: Math.min(...rents),
    lastRent: Math.max(...rents),
    firstHandOver: Math.min(...handOvers),
    lastHandOver: Math.max(...handOvers),
  };
}
