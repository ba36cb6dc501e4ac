import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import { providerClient } from "../../provider-runtime";
import { clusterOffers } from "./cluster-choice";
import type { GroupNode, NodeGroupInputs, NodeGroupOutputs } from "./inputs";

// A group's diff. What every node runs, its network volume and the query it was chosen by are
// fixed at the nodes' rent: a change replaces the group, deleting it first (its cluster's
// machines are the ones a new group would want). The node count, the label and the provider's
// own settings change in place; a larger count only when the cluster has room for the ranks
// added, which the diff asks the service (one offer search) so that preview says which.

const replacingFields = [
  "offerQuery",
  "image",
  "diskGb",
  "onstart",
  "env",
  "runtype",
  "networkVolume",
] as const;
const inPlaceFields = [
  "nodeCount",
  "label",
  "sshKeyIds",
  "maxDollarsPerHour",
  "createTimeoutSeconds",
  "pollIntervalSeconds",
] as const;

const same = (a: unknown, b: unknown) => isDeepStrictEqual(a ?? null, b ?? null);

/** A node that refresh found gone or at a dead end: the next update rents its rank again. */
export function isBroken(node: GroupNode): boolean {
  return (
    node.actualStatus === null ||
    ["gone", "exited", "unknown", "offline"].includes(node.actualStatus)
  );
}

/** The ranks the nodes should have that are missing or broken, below `nodeCount`. */
export function ranksToRent(olds: NodeGroupOutputs, nodeCount: number): number[] {
  const healthy = new Set(olds.nodes.filter((node) => !isBroken(node)).map((node) => node.rank));
  return Array.from({ length: nodeCount }, (_, rank) => rank).filter((rank) => !healthy.has(rank));
}

export async function diffNodeGroup(
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
): Promise<pulumi.dynamic.DiffResult> {
  const replaces: string[] = replacingFields.filter((field) => !same(olds[field], news[field]));
  const missing = ranksToRent(olds, news.nodeCount);
  // Rank 0's address is every node's MASTER_ADDR: without it the group starts over.
  if (missing.includes(0)) replaces.push("nodes");
  const changes =
    inPlaceFields.some((field) => !same(olds[field], news[field])) || missing.length > 0;
  if (replaces.length === 0 && missing.length > 0) {
    // A search that fails says nothing: the update tries, and fails without replacing.
    const room = await Promise.resolve()
      .then(() => clusterOffers(providerClient(), news, olds.clusterId))
      .catch(() => undefined);
    if (room !== undefined && room.length < missing.length) replaces.push("nodeCount");
  }
  return {
    changes: changes || replaces.length > 0,
    replaces,
    deleteBeforeReplace: replaces.length > 0,
  };
}
