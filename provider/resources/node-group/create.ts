import { lateRentsMs } from "../../renting/create";
import { destroyEachRented } from "../../renting/destroy";
import { newGroupName, nodeOwnerOf } from "../../renting/group-ownership";
import { newGroupCreateMarker } from "../../renting/group-witness";
import { resourceNameOf } from "../../renting/identity";
import { expiryAtCreate } from "../../renting/lifetime";
import { releaseOffers } from "../../renting/offer-choice";
import { handOver } from "../../renting/rent";
import { sshKeysBeforeRenting } from "../../renting/ssh-keys";
import { expiresAtOf } from "../../shared/expiry-watchdog";
import { recoverLostCreate } from "../../shared/lost-create";
import { recordAfterCancelMs } from "../../run/cancellation";
import type { Reservation } from "../../run/budget";
import type { Run } from "../../run/run";
import { stackInstancesRunning } from "../../renting/spend";
import { offersToRent } from "../../pricing/choice";
import type { GroupBuild } from "./build";
import { chooseCluster, NoClusterError } from "./cluster-choice";
import { groupDollarsPerHour, type NodeGroupInputs, type NodeGroupOutputs } from "./inputs";
import { settleGroupLeftovers } from "./leftovers";
import { rentGroupRanks } from "./ranks";
import { awaitNodesReady } from "./readiness";
import { type GroupParts, tearDown } from "./teardown";

// Creating a node group: leftovers of interrupted runs removed, the cheapest cluster that holds
// the group chosen, its overlay (and network volume) made, every rank rented in one boot (rank
// 0's rent answered first, so that it joins the overlay first: ranks.ts), each node rented as an
// Instance is (the renting engine's steps, by the group's query pinned to the cluster). The
// hand-over goes with the boot: every node carries the create's marker, the other ranks are
// handed over as their rents are answered, and rank 0, the create's witness, keeps the
// being-created label until every node runs and is handed over last (renting/group-witness.ts).
// All running or none: a create that cannot finish takes apart everything it made, the witness
// last.

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

/** Every instance the build has rented: its nodes, and those not placed at a rank yet. */
export function rentedNodeIds(build: GroupBuild): number[] {
  return [...new Set([...build.unrecorded, ...[...build.nodes.values()].map((n) => n.instanceId)])];
}

/** Every part the build has made, for taking apart: its witness after every other node. */
function partsOf(build: GroupBuild): GroupParts {
  const witnessIds = build.witness?.instanceIds ?? new Set<number>();
  const rented = rentedNodeIds(build);
  return {
    nodeIds: rented.filter((id) => !witnessIds.has(id)),
    witnessIds: rented.filter((id) => witnessIds.has(id)),
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
 * all or none: a refused relabel fails the create, which then takes the group apart. In a
 * create only the witness is left to relabel, one request after the boot (ranks.ts handed the
 * others over at their rents); a resize relabels every node it added.
 */
export async function handOverGroup(build: GroupBuild): Promise<void> {
  // After a cancellation the relabels are bounded (run/cancellation.ts): the run must end.
  const bound = build.run.cancellation.isCancelled
    ? AbortSignal.timeout(recordAfterCancelMs)
    : undefined;
  const handedOver = build.witness?.handedOver ?? new Set<number>();
  await Promise.all(
    [...build.nodes.values()]
      .filter((node) => !handedOver.has(node.instanceId))
      .map((node) => handOver(build.run.client, node.instanceId, build.inputs, bound)),
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
  // Taken apart in full if the engine goes away meanwhile: nobody would record the group. The
  // nodes rented so far go at once (they bill); a rent in flight when the engine went away
  // lands after, and its node goes too; the witness goes last, once no node it proves may
  // remain, then the overlay and the volume.
  const tearDownIfEngineGone = async () => {
    if (build === undefined) return;
    const first = partsOf(build);
    await destroyEachRented(run, first.nodeIds, inputs.pollIntervalSeconds);
    await run.renting.rentsSettled(lateRentsMs);
    await tearDown(run, partsOf(build), inputs.pollIntervalSeconds);
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
        // Only a stack's own group can have a witness: nothing else proves a leftover.
        ...(inputs.owner === undefined || inputs.stackToken === undefined
          ? {}
          : {
              witness: {
                marker: newGroupCreateMarker(),
                instanceIds: new Set<number>(),
                handedOver: new Set<number>(),
              },
            }),
      };
      try {
        if (inputs.networkVolume !== undefined) {
          networkVolumeId = await createGroupVolume(build, inputs.networkVolume.sizeGb);
          build = { ...build, networkVolumeId };
        }
        const masterAddr = await rentGroupRanks(
          build,
          Array.from({ length: inputs.nodeCount }, (_, rank) => rank),
          null,
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
