import { removeWithLateRents } from "../../renting/create";
import { destroyEachRented } from "../../renting/destroy";
import { resourceNameOf } from "../../renting/identity";
import { recordedExpiry } from "../../renting/lifetime";
import { releaseOffers } from "../../renting/offer-choice";
import { sshKeysBeforeRenting, updateSshKeys } from "../../renting/ssh-keys";
import type { Run } from "../../run/run";
import { clusterOffers } from "./cluster-choice";
import type { GroupBuild } from "./build";
import { handOverGroup, holdNodes, rentedNodeIds } from "./create";
import { isBroken, ranksToRent, rebuildFieldsChanged } from "./diff";
import {
  type GroupNode,
  groupDollarsPerHour,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "./inputs";
import { applyBids, groupOutbidFate } from "./bids";
import { rentGroupRanks } from "./ranks";
import { leftoverNodesOf } from "./leftovers";
import { awaitNodesReady } from "./readiness";
import { groupRebuildNote, rebuildNodes } from "./rebuild";
import { tearDown } from "./teardown";

// An update of a group in place: its label and keys on every node, the ranks above a smaller
// count destroyed, the containers of the nodes that stay rebuilt when what they run changed
// (rebuild.ts), and the ranks missing (a larger count, or nodes refresh found gone or at a
// dead end) rented in the group's cluster, on its overlay. Without rank 0, whose address is
// every node's MASTER_ADDR, every rank is rented anew, on the same overlay and volume, in one
// boot as at create (ranks.ts).

/**
 * Nodes of this group that a killed or failed resize (or create) rented and never handed over:
 * they carry the being-created label, and no state records them; with a create's witness among
 * them, the nodes it proves (leftovers.ts). Destroyed before anything is rented, the witnesses
 * last.
 */
async function removeResizeLeftovers(
  run: Run,
  inputs: NodeGroupInputs,
  progress: (m: string) => void,
) {
  const { nodeIds, witnessIds } = await leftoverNodesOf(run, inputs, progress);
  if (nodeIds.length + witnessIds.length === 0) return;
  const ids = [...nodeIds, ...witnessIds];
  progress(`destroying nodes ${ids.join(", ")}, left by an interrupted change`);
  const kept = await tearDown(
    run,
    { nodeIds, witnessIds, overlayIds: [], networkVolumeIds: [] },
    inputs.pollIntervalSeconds,
  );
  if (kept.length > 0) {
    throw new Error(`${kept.join("; ")}; nothing was changed`);
  }
}

/** Label and SSH keys, on the nodes that stay: before anything is rented, so a failure loses nothing. */
async function updateKeptNodes(
  run: Run,
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
  kept: readonly GroupNode[],
): Promise<void> {
  const client = run.client;
  for (const node of kept) {
    if ((news.label ?? "") !== (olds.label ?? "")) {
      await client.instances.relabel(node.instanceId, news.label ?? "");
    }
    await updateSshKeys(client, node.instanceId, olds.sshKeyIds, news);
  }
}

/** Destroys nodes and confirms them gone; fails naming those that could not be. */
async function destroyOrFail(run: Run, nodes: readonly GroupNode[], pollIntervalSeconds: number) {
  if (nodes.length === 0) return;
  const left = await destroyEachRented(
    run,
    nodes.map((node) => node.instanceId),
    pollIntervalSeconds,
  );
  if (left.length > 0) {
    throw new Error(
      `instances ${left.join(", ")} could not be confirmed destroyed; the group keeps them ` +
        `until the next \`pulumi up\``,
    );
  }
}

/** The build a resize rents into: the group's cluster, overlay and volume as recorded. */
async function resizeBuild(run: Run, olds: NodeGroupOutputs, news: NodeGroupInputs, name: string) {
  const client = run.client;
  const overlay = (await client.overlays.list()).find((o) => o.overlay_id === olds.overlayId);
  if (overlay === undefined) {
    throw new Error(
      `${name}: the group's overlay ${olds.overlayName} is gone, so no node can join it; ` +
        `replace the group (\`pulumi up --replace <its URN>\`; its network volume is deleted ` +
        `with it)`,
    );
  }
  const build: GroupBuild = {
    run,
    inputs: {
      ...news,
      owner: news.owner ?? olds.owner,
      stackToken: news.stackToken ?? olds.stackToken,
    },
    name,
    progress: (message) => {
      run.progress(`${name}: ${message}`);
    },
    clusterId: olds.clusterId,
    overlay,
    networkVolumeId: olds.networkVolumeId,
    unrecorded: new Set(),
    claimed: new Set(),
    nodes: new Map(),
    sshKeys: await sshKeysBeforeRenting(client, news),
    deadlineMs: Date.now() + news.createTimeoutSeconds * 1000,
    // The group's deadline, as its create fixed it: nodes rented now do not outlive the rest.
    expiry: recordedExpiry(olds),
  };
  return build;
}

/**
 * Rents `ranks` into the group (all of them anew from rank 0 when `masterAddr` is null), hands
 * them over once every one runs, and returns them with rank 0's address. A failure, a cancel or
 * the engine going away destroys what this resize rented: the group stays as it was.
 */
async function rentInto(
  build: GroupBuild,
  ranks: readonly number[],
  masterAddr: string | null,
): Promise<{ added: GroupNode[]; masterAddr: string }> {
  const rented = () => rentedNodeIds(build);
  const pollIntervalSeconds = build.inputs.pollIntervalSeconds;
  const destroyRented = () =>
    removeWithLateRents(build.run, rented, (ids) =>
      destroyEachRented(build.run, ids, pollIntervalSeconds),
    );
  try {
    return await build.run.engineWatch.whileWatched(destroyRented, async () => {
      build.progress(`renting ranks ${ranks.join(", ")} in cluster ${build.clusterId}`);
      const master = await rentGroupRanks(build, ranks, masterAddr);
      await awaitNodesReady(build, [...build.nodes.keys()]);
      await handOverGroup(build);
      return { added: [...build.nodes.values()], masterAddr: master };
    });
  } catch (error) {
    const left = await destroyEachRented(build.run, rented(), pollIntervalSeconds);
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `${build.name}: ranks ${ranks.join(", ")} could not all be rented (${why}); ` +
        (left.length === 0
          ? `the instances this change rented were destroyed.`
          : `instances ${left.join(", ")} could not be confirmed destroyed; the next ` +
            `\`pulumi up\` of the group destroys them.`),
    );
  } finally {
    releaseOffers(build.run, build.claimed);
  }
}

/** The group's update in place (see the top of this file). */
export async function resizeGroup(
  run: Run,
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
): Promise<NodeGroupOutputs> {
  const owner = news.owner ?? olds.owner;
  const name = resourceNameOf(owner);
  const progress = (message: string) => {
    run.progress(`${name}: ${message}`);
  };
  await removeResizeLeftovers(
    run,
    { ...news, owner, stackToken: news.stackToken ?? olds.stackToken },
    progress,
  );
  // Outbid nodes, decided before any write: a new bid on every node and the nodes won back
  // first; those replaced are destroyed and their ranks rented again, as a broken node's.
  const outbid = await groupOutbidFate(run, olds, news);
  if (outbid.note !== undefined) progress(outbid.note);
  const current = await applyBids(run, olds, news, outbid, progress);
  const replaced = new Set(outbid.replace.map(({ node }) => node.instanceId));
  const below = current.filter((node) => node.rank < news.nodeCount);
  const healthy = below.filter((node) => !isBroken(node) && !replaced.has(node.instanceId));
  await updateKeptNodes(run, olds, news, healthy);
  await destroyOrFail(
    run,
    current.filter((node) => node.rank >= news.nodeCount),
    news.pollIntervalSeconds,
  );
  // Without a healthy rank 0 the group starts over on its overlay: every rank anew.
  const anew = olds.masterAddr === null || !healthy.some((node) => node.rank === 0);
  const missing = anew
    ? Array.from({ length: news.nodeCount }, (_, rank) => rank)
    : ranksToRent({ ...olds, nodes: healthy }, news.nodeCount);
  const stay = anew ? [] : healthy;
  // A node at a dead end is destroyed before its rank is rented again: it may come back.
  await destroyOrFail(
    run,
    below.filter((node) => !stay.includes(node)),
    news.pollIntervalSeconds,
  );
  // The group's cluster, overlay and volume, looked up once for a rebuild and a rent.
  let recorded: GroupBuild | undefined;
  const buildFor = async () => (recorded ??= await resizeBuild(run, olds, news, name));
  let nodes = stay;
  let masterAddr = olds.masterAddr;
  const rebuilt = rebuildFieldsChanged(olds, news);
  if (rebuilt.length > 0 && stay.length > 0 && masterAddr !== null) {
    progress(groupRebuildNote(stay.length, rebuilt));
    nodes = await rebuildNodes({ ...(await buildFor()), nodes: new Map() }, stay, masterAddr);
  }
  if (missing.length > 0) {
    // The missing nodes' price held against the stack's cap before any is rented.
    const budgetHold = await holdNodes(
      run,
      { name, stackToken: news.stackToken ?? olds.stackToken, count: missing.length },
      () => clusterOffers(run.client, news, olds.clusterId),
    );
    let rented: Awaited<ReturnType<typeof rentInto>>;
    try {
      const build = { ...(await buildFor()), nodes: new Map(), budgetHold };
      rented = await rentInto(build, missing, anew ? null : olds.masterAddr);
    } finally {
      budgetHold?.release();
    }
    nodes = [...nodes, ...rented.added].sort((a, b) => a.rank - b.rank);
    masterAddr = rented.masterAddr;
  }
  const outs: NodeGroupOutputs = {
    ...olds,
    ...news,
    owner,
    nodes,
    masterAddr,
    dollarsPerHour: groupDollarsPerHour(nodes),
  };
  if (news.label === undefined) delete outs.label;
  if (news.sshKeyIds === undefined) delete outs.sshKeyIds;
  if (news.maxDollarsPerHour === undefined) delete outs.maxDollarsPerHour;
  if (news.onOutbid === undefined) delete outs.onOutbid;
  if (news.maxBidDollarsPerHour === undefined) delete outs.maxBidDollarsPerHour;
  // Recorded as written (a change that would move the deadline replaces: diff.ts).
  if (news.maxLifetime === undefined) delete outs.maxLifetime;
  if (news.onExpiry === undefined) delete outs.onExpiry;
  if (news.idleShutdown === undefined) delete outs.idleShutdown;
  return outs;
}
