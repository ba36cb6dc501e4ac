import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import {
  expiredReason,
  idleRuleChanged,
  idleShutdownFieldChanged,
  lifetimeFieldsChanged,
  lifetimeReplaces,
} from "../../renting/lifetime";
import type { Run } from "../../run/run";
import { chooseCluster, clusterOffers } from "./cluster-choice";
import type { GroupNode, NodeGroupInputs, NodeGroupOutputs } from "./inputs";

// A group's diff. The nodes' network volume, disk, runtype and the query they were chosen by
// are fixed at the nodes' rent: a change replaces the group, deleting it first (its cluster's
// machines are the ones a new group would want; its network volume goes with it). What every
// node runs (image, env, onstart, args, and the idle rule its onstart's watchdog holds) is
// rebuilt on the nodes' machines (rebuild.ts). The node
// count, the label, the keys and the provider's own settings change in place, and so do nodes
// that refresh found gone or at a dead end: the update rents their ranks again. A larger count
// the group's cluster has no room for replaces the group, but only when another cluster can
// hold it (the diff asks the service, so that preview says which); a replacement that could
// only fail is never proposed: the update then fails, saying so, and the group stays. A group
// past its `expiresAt` (its nodes' watchdogs stopped or destroyed them) is replaced, and so is
// one whose lifetime changes: a rebuild keeps the group's deadline, which its create fixed.

const replacingFields = [
  "offerQuery",
  "diskGb",
  "runtype",
  "networkVolume",
  "exposePorts",
] as const;
const inPlaceFields = [
  "nodeCount",
  // A bid changes in place on every node (bids.ts); adding or removing one replaces.
  "price",
  "onOutbid",
  "maxBidDollarsPerHour",
  "label",
  "sshKeyIds",
  "maxDollarsPerHour",
  "createTimeoutSeconds",
  "pollIntervalSeconds",
  "readiness",
] as const;

const same = (a: unknown, b: unknown) => isDeepStrictEqual(a ?? null, b ?? null);

/** What every node runs: a change rebuilds each node's container on its machine (rebuild.ts). */
export const rebuildFields = ["image", "env", "onstart", "args"] as const;

type RebuildInputs = Pick<NodeGroupInputs, (typeof rebuildFields)[number] | "idleShutdown">;

/** What a rebuild changes: the fields, and the idle rule when it means another rule. */
export function rebuildFieldsChanged(olds: RebuildInputs, news: RebuildInputs): string[] {
  const fields: string[] = rebuildFields.filter((field) => !same(olds[field], news[field]));
  return idleRuleChanged(olds, news) ? [...fields, "idleShutdown"] : fields;
}

/** Statuses of a node that will not run again: the update rents its rank anew. */
const deadOrGone = ["gone", "exited", "unknown", "offline"];

/** A node that refresh found gone or at a dead end (null is still provisioning). */
export function isBroken(node: GroupNode): boolean {
  return node.actualStatus !== null && deadOrGone.includes(node.actualStatus);
}

/** The ranks below `nodeCount` that are missing or broken. */
export function ranksToRent(olds: NodeGroupOutputs, nodeCount: number): number[] {
  const healthy = new Set(olds.nodes.filter((node) => !isBroken(node)).map((node) => node.rank));
  return Array.from({ length: nodeCount }, (_, rank) => rank).filter((rank) => !healthy.has(rank));
}

/** The offers of the group's cluster a change in place needs, beyond those it frees. */
function offersNeeded(olds: NodeGroupOutputs, nodeCount: number): number {
  const missing = ranksToRent(olds, nodeCount);
  if (olds.masterAddr !== null && !missing.includes(0)) return missing.length;
  // Without rank 0 every rank is rented anew; the healthy nodes' machines are freed first.
  const healthy = olds.nodes.filter((node) => node.rank < nodeCount && !isBroken(node));
  return nodeCount - healthy.length;
}

/** True when the cluster's offers now cannot hold what the change needs (unknown: false). */
async function clusterLacksRoom(
  run: Run,
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
): Promise<boolean> {
  const needed = offersNeeded(olds, news.nodeCount);
  if (needed <= 0) return false;
  // A search that fails says nothing: the update tries, and fails without replacing.
  const room = await Promise.resolve()
    .then(() => clusterOffers(run.client, news, olds.clusterId))
    .catch(() => undefined);
  return room !== undefined && room.length < needed;
}

export async function diffNodeGroup(
  run: Run,
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
  nowMs = Date.now(),
): Promise<pulumi.dynamic.DiffResult> {
  const replaces: string[] = replacingFields.filter((field) => !same(olds[field], news[field]));
  // On-demand and interruptible are fixed at rent.
  if ((olds.price === undefined) !== (news.price === undefined)) replaces.push("price");
  replaces.push(...lifetimeReplaces(olds, news));
  if (expiredReason(olds, nowMs) !== undefined) replaces.push("expiresAt");
  const missing = ranksToRent(olds, news.nodeCount);
  const changes =
    replaces.length > 0 ||
    missing.length > 0 ||
    olds.masterAddr === null ||
    lifetimeFieldsChanged(olds, news) ||
    rebuildFieldsChanged(olds, news).length > 0 ||
    idleShutdownFieldChanged(olds, news) ||
    inPlaceFields.some((field) => !same(olds[field], news[field]));
  if (
    replaces.length === 0 &&
    news.nodeCount > olds.nodeCount &&
    (await clusterLacksRoom(run, olds, news))
  ) {
    const elsewhere = await Promise.resolve()
      .then(() => chooseCluster(run.client, news))
      .then(
        () => true,
        () => false,
      );
    if (elsewhere) replaces.push("nodeCount");
  }
  return { changes, replaces, deleteBeforeReplace: replaces.length > 0 };
}
