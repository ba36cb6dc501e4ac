import { overlayJoinEnv, volumeMountEnv } from "../../client";
import { addressIn, firstHostOf } from "../../shared/addresses";
import type { RentScope } from "../../renting/attempts";
import { rentUntilRunning } from "../../renting/create";
import { InstanceLeftBehindError } from "../../renting/errors";
import { groupVariable, nodeOwnerOf } from "../../renting/group-ownership";
import { groupCreateVariable } from "../../renting/group-witness";
import {
  instanceInputsSchema,
  type InstanceInputs,
  type InstanceOutputs,
} from "../../renting/instance-inputs";
import { expiresAtShownBy } from "../../renting/lifetime";
import { portsShownBy } from "../../renting/ports";
import { handOver } from "../../renting/rent";
import { attachAfterRunning } from "../../renting/ssh-keys";
import { expiresAtOf } from "../../shared/expiry-watchdog";
import { atServicePrecision } from "../../shared/price-precision";
import { clusterQueryOf } from "./cluster-choice";
import type { GroupBuild } from "./build";
import type { GroupNode } from "./inputs";

// Renting a group's ranks in one boot. Every node's MASTER_ADDR is rank 0's overlay address,
// fixed in its environment at its rent. The service's multi-node guide shows the overlay's first
// instance on the subnet's first host (`10.0.0.1` of a /24) and says nothing more of how
// addresses are given: so rank 0 is rented first, and every other rank only once the service
// has answered rank 0's rent (the first to join), all with the subnet's first host as
// MASTER_ADDR; then every node boots at once. Once all run, rank 0 is checked to hold that
// address: if it does not, no node could reach its master, and the group fails whole.
//
// In a create, rank 0 is also the create's witness (renting/group-witness.ts): it keeps the
// being-created label until every node runs, and is neither destroyed nor replaced while the
// others may remain; every other rank is handed over as soon as its rent is answered, so that
// the hand-over relabels (one a second, the service's limit) go during the boot.

/** Rank 0's rent, which every other rank's rent waits for (see above). */
interface RankZeroFirst {
  /** Resolves once rank 0's rent is answered, or once `stop` fires. */
  readonly rentedOrStopped: (stop: AbortSignal) => Promise<void>;
  readonly rented: () => void;
}

function rankZeroFirst(): RankZeroFirst {
  let rented!: () => void;
  const answered = new Promise<void>((resolve) => {
    rented = resolve;
  });
  return {
    rented: () => {
      rented();
    },
    rentedOrStopped: (stop) =>
      new Promise<void>((resolve) => {
        if (stop.aborted) {
          resolve();
          return;
        }
        const done = () => {
          stop.removeEventListener("abort", done);
          resolve();
        };
        stop.addEventListener("abort", done, { once: true });
        void answered.then(done);
      }),
  };
}

/** What a node is rented with: the group's inputs, its rank and the group's network. */
export function nodeInputsOf(build: GroupBuild, rank: number, masterAddr: string): InstanceInputs {
  const { inputs } = build;
  // Parsed for the instance's defaults; the schema takes variable names only, so the entries
  // that join the overlay and mount the volume are added after.
  const node = instanceInputsSchema.parse({
    offerQuery: clusterQueryOf(inputs.offerQuery, build.clusterId),
    maxDollarsPerHour: inputs.maxDollarsPerHour,
    price: inputs.price,
    image: inputs.image,
    diskGb: inputs.diskGb,
    onstart: inputs.onstart,
    args: inputs.args,
    maxLifetime: inputs.maxLifetime,
    onExpiry: inputs.onExpiry,
    idleShutdown: inputs.idleShutdown,
    label: inputs.label,
    runtype: inputs.runtype ?? "ssh",
    pollIntervalSeconds: inputs.pollIntervalSeconds,
    exposePorts: inputs.exposePorts,
    // No node waits for its own check: the group waits for all at once (readiness.ts).
    readiness: undefined,
    createTimeoutSeconds: Math.max(1, (build.deadlineMs - Date.now()) / 1000),
    owner: inputs.owner === undefined ? undefined : nodeOwnerOf(inputs.owner, rank),
    stackToken: inputs.stackToken,
    sshKeyIds: inputs.sshKeyIds,
    env: {
      ...inputs.env,
      NODE_RANK: String(rank),
      WORLD_SIZE: String(inputs.nodeCount),
      MASTER_ADDR: masterAddr,
      ...(inputs.owner === undefined ? {} : { [groupVariable]: inputs.owner }),
      ...(build.witness === undefined ? {} : { [groupCreateVariable]: build.witness.marker }),
    },
  });
  const mountPath = inputs.networkVolume?.mountPath;
  return {
    ...node,
    env: {
      ...node.env,
      ...overlayJoinEnv(build.overlay.name),
      ...(build.networkVolumeId === null || mountPath === undefined
        ? {}
        : volumeMountEnv(build.networkVolumeId, mountPath)),
    },
  };
}

/** The node as the group records it, from the running instance. */
export async function recordedNode(
  build: GroupBuild,
  rank: number,
  instanceId: number,
  askId: number,
): Promise<GroupNode> {
  // Read afresh: a shared list read may be older than the boot the node just finished.
  const shown = await build.run.client.instances.show(instanceId);
  const expiresAt =
    build.expiry === undefined ? undefined : (expiresAtShownBy(shown) ?? expiresAtOf(build.expiry));
  return {
    rank,
    instanceId,
    askId,
    machineId: shown?.machine_id ?? null,
    sshHost: shown?.ssh_host ?? null,
    sshPort: shown?.ssh_port ?? null,
    ...portsShownBy(shown),
    localIp: addressIn(shown?.local_ipaddrs, build.overlay.internal_subnet) ?? null,
    actualStatus: shown?.actual_status ?? null,
    gpuName: shown?.gpu_name ?? null,
    dollarsPerHour: atServicePrecision(shown?.dph_total ?? null),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
}

/**
 * A rank other than 0 of a create, handed over (its program's label) as soon as its rent is
 * answered, while it boots: the witness, rented before it, proves it a leftover until the
 * create ends. Stopped meanwhile (a rank failed, the engine's Cancel), or with no witness yet,
 * it keeps the being-created label, which proves it a leftover by itself.
 */
async function handOverAtRent(
  build: GroupBuild,
  rank: number,
  instanceId: number,
  stop: AbortSignal,
): Promise<void> {
  const witness = build.witness;
  if (witness === undefined || witness.instanceIds.size === 0 || stop.aborted) return;
  try {
    await handOver(build.run.client, instanceId, build.inputs, stop);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(`rank ${rank}: instance ${instanceId} could not be relabelled (${why})`);
  }
  witness.handedOver.add(instanceId);
}

/**
 * What a rank's rent does around the renting engine's steps: rank 0's answered rent lets the
 * others' rents go (`first`) and, in a create, makes it the witness; the others wait for it and,
 * in a create, are handed over at their rent.
 */
function rankSteps(
  build: GroupBuild,
  rank: number,
  stop: AbortSignal,
  first: RankZeroFirst | undefined,
): Pick<RentScope, "beforeRent" | "afterRent" | "witness"> {
  if (rank === 0) {
    return {
      afterRent: (instanceId) => {
        build.witness?.instanceIds.add(instanceId);
        first?.rented();
      },
      witness: build.witness !== undefined,
    };
  }
  return {
    ...(first === undefined ? {} : { beforeRent: () => first.rentedOrStopped(stop) }),
    ...(build.witness === undefined
      ? {}
      : { afterRent: (instanceId: number) => handOverAtRent(build, rank, instanceId, stop) }),
  };
}

/**
 * Rents the node of `rank` in the cluster and waits until it runs, as an Instance by query:
 * an offer gone or a node at a dead end moves on to another offer of the same cluster. The node
 * is in `build.nodes` (and still unrecorded) when this returns.
 */
export async function rentNode(
  build: GroupBuild,
  rank: number,
  masterAddr: string,
  /** Stops the node's rent and boot: the engine's Cancel unless the group adds its own. */
  stop: AbortSignal = build.run.cancellation.signal,
  /** Rank 0's rent, which the others' rents follow (rentGroupRanks). */
  first?: RankZeroFirst,
): Promise<GroupNode> {
  const nodeInputs = nodeInputsOf(build, rank, masterAddr);
  let created: Awaited<ReturnType<typeof rentUntilRunning>>;
  try {
    const rented = await rentUntilRunning(build.run, nodeInputs, {
      unrecorded: build.unrecorded,
      claimed: build.claimed,
      stop,
      expiry: build.expiry,
      budgetHold: build.budgetHold,
      ...rankSteps(build, rank, stop, first),
    });
    // Keys are attached before the hand-over, as an Instance's are.
    created = await attachAfterRunning(build.run.client, rented, build.sshKeys);
  } catch (error) {
    // A node the rent could not destroy is the group's to take apart with the rest.
    if (error instanceof InstanceLeftBehindError) build.unrecorded.add(Number(error.id));
    throw error;
  }
  const askId = created.outs.offer?.askId ?? created.outs.attempts.at(-1)?.askId ?? 0;
  const node =
    nodeShownByBoot(build, rank, created.outs, askId) ??
    (await recordedNode(build, rank, Number(created.id), askId));
  build.nodes.set(rank, node);
  return node;
}

/**
 * The node as the status read that saw it running showed it, with no request of its own: the
 * group's nodes run at about the same time, and a show each would cost W requests of a limited
 * endpoint after the boot. Undefined when that read did not show what a node records (its
 * overlay address first among its local addresses, its machine): it is then read afresh.
 */
function nodeShownByBoot(
  build: GroupBuild,
  rank: number,
  outs: InstanceOutputs,
  askId: number,
): GroupNode | undefined {
  const localIp = addressIn(outs.localIp, build.overlay.internal_subnet);
  const machineId = outs.offer?.machineId;
  if (localIp === undefined || machineId === undefined || machineId === null) return undefined;
  return {
    rank,
    instanceId: outs.instanceId,
    askId,
    machineId,
    sshHost: outs.sshHost,
    sshPort: outs.sshPort,
    ports: outs.ports ?? null,
    urls: outs.urls ?? null,
    localIp,
    actualStatus: outs.actualStatus,
    gpuName: outs.offer?.gpuName ?? null,
    dollarsPerHour: outs.dollarsPerHour ?? null,
    ...(outs.expiresAt === undefined ? {} : { expiresAt: outs.expiresAt }),
  };
}

/**
 * Rents the ranks given, at once. The first rank that fails stops the others (no new attempt;
 * a node still booting is destroyed), since the group cannot be whole: their instances would
 * only bill until the group is taken apart. That first failure is thrown once every rank has
 * ended, so that every instance rented is known to the caller.
 */
export async function rentRanks(
  build: GroupBuild,
  ranks: readonly number[],
  masterAddr: string,
  first?: RankZeroFirst,
): Promise<void> {
  const siblingFailed = new AbortController();
  const stop = AbortSignal.any([build.run.cancellation.signal, siblingFailed.signal]);
  let firstFailure: { rank: number; reason: unknown } | undefined;
  await Promise.allSettled(
    ranks.map((rank) =>
      rentNode(build, rank, masterAddr, stop, first).catch((reason: unknown) => {
        if (firstFailure !== undefined) return;
        firstFailure = { rank, reason };
        // After the engine's Cancel every rank is stopping already.
        if (stop.aborted) return;
        const others = ranks.filter((other) => other !== rank && !build.nodes.has(other));
        if (others.length > 0) {
          build.progress(`rank ${rank} failed; stopping ranks ${others.join(", ")}`);
        }
        siblingFailed.abort();
      }),
    ),
  );
  if (firstFailure !== undefined) throw firstFailure.reason;
}

/**
 * Rents `ranks` into the group and returns its MASTER_ADDR. With `masterAddr` (rank 0 runs
 * already) every rank is rented at once with it. Without it rank 0 is among `ranks`: every rank
 * is rented with the overlay subnet's first host, rank 0's rent answered before the others are
 * sent, all booting at once (see the top of this file); then rank 0 must hold that address, or
 * the group fails whole (the caller takes apart everything rented). An overlay that shows no
 * subnet leaves nothing to expect: rank 0 is rented alone first (MASTER_ADDR 127.0.0.1, its own
 * loopback), and the others once its address shows, two boots.
 */
export async function rentGroupRanks(
  build: GroupBuild,
  ranks: readonly number[],
  masterAddr: string | null,
): Promise<string> {
  if (masterAddr !== null) {
    await rentRanks(build, ranks, masterAddr);
    return masterAddr;
  }
  const others = ranks.filter((rank) => rank !== 0);
  const expected = firstHostOf(build.overlay.internal_subnet);
  if (expected === undefined) {
    build.progress(
      `overlay ${build.overlay.name} shows no subnet: renting rank 0 first, the others once ` +
        `its address shows`,
    );
    const zero = await rentNode(build, 0, "127.0.0.1");
    if (zero.localIp === null) {
      throw new Error(`rank 0 (instance ${zero.instanceId}) runs but shows no overlay address`);
    }
    await rentRanks(build, others, zero.localIp);
    return zero.localIp;
  }
  build.progress(
    `renting ranks ${ranks.join(", ")} at once with MASTER_ADDR ${expected} (the overlay's ` +
      `first host), rank 0 first`,
  );
  await rentRanks(build, [0, ...others], expected, rankZeroFirst());
  const zero = build.nodes.get(0);
  if (zero?.localIp !== expected) {
    throw new Error(
      `rank 0 (instance ${zero?.instanceId ?? "?"}) got overlay address ` +
        `${zero?.localIp ?? "none"}, not ${expected}, the overlay's first host that every rank ` +
        `was rented with as MASTER_ADDR: the nodes could not reach their master`,
    );
  }
  return expected;
}
