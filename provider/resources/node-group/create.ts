import { type Overlay, overlayJoinEnv, type SshKey, volumeMountEnv } from "../../client";
import { addressIn, firstHostOf } from "../../shared/addresses";
import { lateRentsMs, rentUntilRunning } from "../../renting/create";
import { InstanceLeftBehindError } from "../../renting/errors";
import { groupVariable, newGroupName, nodeOwnerOf } from "../../renting/group-ownership";
import { resourceNameOf } from "../../renting/identity";
import { instanceInputsSchema, type InstanceInputs } from "../../renting/instance-inputs";
import { expiresAtShownBy, expiryAtCreate } from "../../renting/lifetime";
import { releaseOffers } from "../../renting/offer-choice";
import { portsShownBy } from "../../renting/ports";
import { handOver } from "../../renting/rent";
import { attachAfterRunning, sshKeysBeforeRenting } from "../../renting/ssh-keys";
import { type Expiry, expiresAtOf } from "../../shared/expiry-watchdog";
import { recoverLostCreate } from "../../shared/lost-create";
import { recordAfterCancelMs } from "../../run/cancellation";
import type { Reservation } from "../../run/budget";
import type { Run } from "../../run/run";
import { stackInstancesRunning } from "../../renting/spend";
import { offersToRent } from "../../pricing/choice";
import { atServicePrecision } from "../../shared/price-precision";
import { chooseCluster, clusterQueryOf, NoClusterError } from "./cluster-choice";
import {
  type GroupNode,
  groupDollarsPerHour,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "./inputs";
import { settleGroupLeftovers } from "./leftovers";
import { awaitNodesReady } from "./readiness";
import { tearDown } from "./teardown";

// Creating a node group: leftovers of interrupted runs removed, the cheapest cluster that holds
// the group chosen, its overlay (and network volume) made, rank 0 rented and running, then
// every other rank at once, each node rented as an Instance is (the renting engine's steps,
// by the group's query pinned to the cluster); the whole group handed over at once. All
// running or none: a create that cannot finish takes apart everything it made.

/** A group create that left parts it could not remove: recorded with init errors by this id. */
export class GroupLeftBehindError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: NodeGroupOutputs,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/** What one create (or one resize) works with and has made so far. */
export interface GroupBuild {
  /** The run the create belongs to: its client, its cancellation, what its creates share. */
  readonly run: Run;
  readonly inputs: NodeGroupInputs;
  readonly name: string;
  readonly progress: (message: string) => void;
  readonly clusterId: number;
  readonly overlay: Overlay;
  readonly networkVolumeId: number | null;
  /** Rented and not handed over yet: taken apart if the create fails or the engine goes away. */
  readonly unrecorded: Set<number>;
  /** Offers this create chose, which other creates of the run leave to it until it ends. */
  readonly claimed: Set<number>;
  readonly nodes: Map<number, GroupNode>;
  /** The account's SSH keys every node gets once it runs (sshKeyIds), looked up once. */
  readonly sshKeys: readonly SshKey[];
  readonly deadlineMs: number;
  /** The group's one expiry (maxLifetime), fixed at its create; every node rented gets it. */
  readonly expiry: Expiry | undefined;
  /**
   * The group's hold on the stack's cap (run/budget.ts), for every node at once, reserved
   * before anything is made: each node's rent spends it first. Undefined without a cap.
   */
  readonly budgetHold?: Reservation | undefined;
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
    });
    // Keys are attached before the hand-over, as an Instance's are.
    created = await attachAfterRunning(build.run.client, rented, build.sshKeys);
  } catch (error) {
    // A node the rent could not destroy is the group's to take apart with the rest.
    if (error instanceof InstanceLeftBehindError) build.unrecorded.add(Number(error.id));
    throw error;
  }
  const askId = created.outs.offer?.askId ?? created.outs.attempts.at(-1)?.askId ?? 0;
  const node = await recordedNode(build, rank, Number(created.id), askId);
  build.nodes.set(rank, node);
  return node;
}

/**
 * Rank 0 first: the others' MASTER_ADDR is its overlay address, which shows once it runs. An
 * instance's environment is fixed at its rent, so rank 0 itself is rented with the address an
 * overlay's first member gets (the subnet's first host); when the service gives it another,
 * rank 0 is rented again with the loopback address, which reaches the same master from rank 0,
 * so that no node ever holds a wrong MASTER_ADDR.
 */
export async function rentRankZero(
  build: GroupBuild,
): Promise<{ node: GroupNode; masterAddr: string }> {
  const expected = firstHostOf(build.overlay.internal_subnet);
  const node = await rentNode(build, 0, expected ?? "127.0.0.1");
  if (node.localIp === null) {
    throw new Error(`rank 0 (instance ${node.instanceId}) runs but shows no overlay address`);
  }
  if (expected === undefined || node.localIp === expected) {
    return { node, masterAddr: node.localIp };
  }
  build.progress(
    `rank 0 got overlay address ${node.localIp}, not ${expected}; renting it again with ` +
      `MASTER_ADDR 127.0.0.1 (its own loopback)`,
  );
  const left = await tearDown(
    build.run,
    { nodeIds: [node.instanceId], overlayIds: [], networkVolumeIds: [] },
    build.inputs.pollIntervalSeconds,
  );
  // Still unrecorded when it could not be destroyed: the failed create takes it apart again.
  if (left.length > 0) throw new Error(`rank 0 could not be rented again: ${left.join("; ")}`);
  build.unrecorded.delete(node.instanceId);
  build.nodes.delete(0);
  const again = await rentNode(build, 0, "127.0.0.1");
  if (again.localIp === null) {
    throw new Error(`rank 0 (instance ${again.instanceId}) runs but shows no overlay address`);
  }
  return { node: again, masterAddr: again.localIp };
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
): Promise<void> {
  const siblingFailed = new AbortController();
  const stop = AbortSignal.any([build.run.cancellation.signal, siblingFailed.signal]);
  let firstFailure: { rank: number; reason: unknown } | undefined;
  await Promise.allSettled(
    ranks.map((rank) =>
      rentNode(build, rank, masterAddr, stop).catch((reason: unknown) => {
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

/** Every instance the build has rented: its nodes, and those not placed at a rank yet. */
export function rentedNodeIds(build: GroupBuild): number[] {
  return [...new Set([...build.unrecorded, ...[...build.nodes.values()].map((n) => n.instanceId)])];
}

/** Every part the build has made, for taking apart. */
function partsOf(build: GroupBuild) {
  return {
    nodeIds: rentedNodeIds(build),
    overlayIds: [build.overlay.overlay_id],
    networkVolumeIds: build.networkVolumeId === null ? [] : [build.networkVolumeId],
  };
}

export function outputsOf(build: GroupBuild, masterAddr: string | null): NodeGroupOutputs {
  const nodes = [...build.nodes.values()].sort((a, b) => a.rank - b.rank);
  return {
    ...build.inputs,
    clusterId: build.clusterId,
    overlayName: build.overlay.name,
    overlayId: build.overlay.overlay_id,
    subnet: build.overlay.internal_subnet ?? null,
    masterAddr,
    networkVolumeId: build.networkVolumeId,
    nodes,
    dollarsPerHour: groupDollarsPerHour(nodes),
    ...(build.expiry === undefined ? {} : { expiresAt: expiresAtOf(build.expiry) }),
  };
}

/**
 * Hands every node over to the engine (each takes the program's label, see renting/identity.ts),
 * all or none: a refused relabel fails the create, which then takes the group apart.
 */
export async function handOverGroup(build: GroupBuild): Promise<void> {
  // After a cancellation the relabels are bounded (run/cancellation.ts): the run must end.
  const bound = build.run.cancellation.isCancelled
    ? AbortSignal.timeout(recordAfterCancelMs)
    : undefined;
  await Promise.all(
    [...build.nodes.values()].map((node) =>
      handOver(build.run.client, node.instanceId, build.inputs, bound),
    ),
  );
  for (const node of build.nodes.values()) {
    build.unrecorded.delete(node.instanceId);
    const owner = build.inputs.owner;
    build.run.renting.rememberRecorded(
      owner === undefined ? undefined : nodeOwnerOf(owner, node.rank),
      node.instanceId,
    );
  }
}

/**
 * Takes the build apart after `error`, and says so in one error: nothing left, or what is left
 * (then the group is recorded with init errors, for a later `up` or `destroy` to finish).
 */
async function failCreate(build: GroupBuild, error: unknown): Promise<never> {
  const why = error instanceof Error ? error.message : String(error);
  build.progress(`taking the group apart: ${why.split("\n")[0] ?? why}`);
  const left = await tearDown(build.run, partsOf(build), build.inputs.pollIntervalSeconds);
  if (left.length === 0) {
    build.unrecorded.clear();
    throw new Error(
      `${build.name}: ${why}\nThe group was taken apart: every node, the overlay ` +
        `${build.overlay.name}${build.networkVolumeId === null ? "" : ` and network volume V.${build.networkVolumeId}`} ` +
        `are gone; nothing is left running.`,
    );
  }
  // Instances the group could not place at a rank are recorded beyond nodeCount: the next
  // update removes the ranks above the count first.
  const placed = new Set([...build.nodes.values()].map((node) => node.instanceId));
  let spare = build.inputs.nodeCount;
  for (const instanceId of build.unrecorded) {
    if (placed.has(instanceId)) continue;
    build.nodes.set(spare, {
      rank: spare,
      instanceId,
      askId: 0,
      machineId: null,
      sshHost: null,
      sshPort: null,
      localIp: null,
      actualStatus: null,
    });
    spare += 1;
  }
  const message =
    `${build.name}: ${why}\nTaking the group apart left parts behind (${left.join("; ")}); ` +
    `the group is kept in the stack so that a later \`pulumi up\` or \`pulumi destroy\` ` +
    `removes them.`;
  build.unrecorded.clear();
  throw new GroupLeftBehindError(message, build.overlay.name, outputsOf(build, null), [message]);
}

/** Creates the group: every node running on its overlay, or nothing left (see above). */
export async function createGroup(
  run: Run,
  inputs: NodeGroupInputs,
): Promise<{ id: string; outs: NodeGroupOutputs }> {
  const client = run.client;
  const name = resourceNameOf(inputs.owner);
  const progress = (message: string) => {
    run.progress(`${name}: ${message}`);
  };
  let build: GroupBuild | undefined;
  // Taken apart in full if the engine goes away meanwhile: nobody would record the group.
  const tearDownIfEngineGone = async () => {
    if (build === undefined) return;
    const first = partsOf(build);
    await tearDown(run, first, inputs.pollIntervalSeconds);
    // A rent in flight when the engine went away lands after: its node goes too.
    await run.renting.rentsSettled(lateRentsMs);
    const late = partsOf(build).nodeIds.filter((id) => !first.nodeIds.includes(id));
    await tearDown(run, { nodeIds: late, overlayIds: [], networkVolumeIds: [] }, 0.5);
  };
  const claimed = new Set<number>();
  let budgetHold: Reservation | undefined;
  // One deadline for the group, counted from here: every node's watchdog gets it.
  const expiry = expiryAtCreate(inputs);
  try {
    return await run.engineWatch.whileWatched(tearDownIfEngineGone, async () => {
      await settleGroupLeftovers(run, inputs, progress);
      const sshKeys = await sshKeysBeforeRenting(client, inputs);
      const cluster = await chooseCluster(client, inputs).catch((error: unknown) => {
        if (error instanceof NoClusterError) {
          throw new Error(`${name}: ${error.message}; nothing was rented.`);
        }
        throw error;
      });
      // Every node's price held against the stack's cap before anything is made or rented:
      // a group the cap cannot hold sends no rent at all.
      const count = inputs.nodeCount;
      budgetHold = await holdNodes(run, { name, stackToken: inputs.stackToken, count }, () =>
        Promise.resolve(cluster.offers),
      );
      const deadlineMs = Date.now() + inputs.createTimeoutSeconds * 1000;
      const overlayName = newGroupName(inputs);
      progress(
        `cluster ${cluster.clusterId}: ${cluster.offers.length} matching offers for ` +
          `${inputs.nodeCount} nodes; making overlay ${overlayName}`,
      );
      const overlay = await client.overlays.create(cluster.clusterId, overlayName);
      let networkVolumeId: number | null = null;
      build = {
        run,
        inputs,
        name,
        progress,
        clusterId: cluster.clusterId,
        overlay,
        networkVolumeId,
        unrecorded: new Set(),
        claimed,
        nodes: new Map(),
        sshKeys,
        deadlineMs,
        expiry,
        budgetHold,
      };
      try {
        if (inputs.networkVolume !== undefined) {
          networkVolumeId = await createGroupVolume(build, inputs.networkVolume.sizeGb);
          build = { ...build, networkVolumeId };
        }
        const { masterAddr } = await rentRankZero(build);
        progress(`rank 0 runs at ${masterAddr}; renting ranks 1 to ${inputs.nodeCount - 1}`);
        await rentRanks(
          build,
          Array.from({ length: inputs.nodeCount - 1 }, (_, index) => index + 1),
          masterAddr,
        );
        await awaitNodesReady(build, [...build.nodes.keys()]);
        await handOverGroup(build);
        progress(`${inputs.nodeCount} nodes run on overlay ${overlay.name}`);
        return { id: overlay.name, outs: outputsOf(build, masterAddr) };
      } catch (error) {
        return failCreate(build, error);
      }
    });
  } finally {
    releaseOffers(run, claimed);
    // What the nodes did not spend of the hold (they hold their own once rented).
    budgetHold?.release();
  }
}

/**
 * Holds the price of `count` nodes against the stack's cap: the offers the ranks rent (the
 * cluster's first `count` in the query's order), as the search quoted them (each node's rent
 * then holds its own price for its disk, spending this first). Throws the budget's one-line refusal when the cap cannot hold it;
 * without a cap, reads nothing and holds nothing.
 */
export async function holdNodes(
  run: Run,
  group: { name: string; stackToken: string | undefined; count: number },
  offers: () => Promise<readonly { dollarsPerHour: number }[]>,
): Promise<Reservation | undefined> {
  if (run.budget.maxDollarsPerHour === undefined) return undefined;
  const cheapest = offersToRent(await offers(), undefined, group.count);
  return run.budget.reserve({
    stack: group.stackToken,
    readRunning: () => stackInstancesRunning(run, group.stackToken),
    name: group.name,
    what: `${group.count} node${group.count === 1 ? "" : "s"}`,
    dollarsPerHour: cheapest.reduce((sum, offer) => sum + offer.dollarsPerHour, 0),
  });
}

/** The group's network volume: the cheapest offer of the cluster with room, named as the overlay. */
async function createGroupVolume(build: GroupBuild, sizeGb: number): Promise<number> {
  const search = await build.run.client.offers.searchNetworkVolumes({
    clusterId: build.clusterId,
    diskSpaceGb: { gte: sizeGb },
  });
  const [offer] = search.offers;
  if (offer === undefined) {
    throw new Error(
      `networkVolume: no network volume offer in cluster ${build.clusterId} has ${sizeGb} GB`,
    );
  }
  const name = build.overlay.name;
  const { volumes } = build.run.client;
  const volumeId = await recoverLostCreate({
    create: async () => (await volumes.createNetworkVolume(offer.askId, sizeGb, { name })).volumeId,
    // The volume named as the overlay: this create's own name.
    findCreated: async () => (await volumes.list()).find((volume) => volume.label === name)?.id,
    notFound: (lost) =>
      new Error(
        `networkVolume: the create's reply was lost and no volume named ${name} shows; if ` +
          `one appears, delete it by hand (${lost.message})`,
      ),
  });
  // Never taken for another create's after a lost reply (run/made-this-run.ts).
  build.run.made.volumeIds.add(volumeId);
  build.progress(`network volume V.${volumeId} (${sizeGb} GB) in cluster ${build.clusterId}`);
  return volumeId;
}
