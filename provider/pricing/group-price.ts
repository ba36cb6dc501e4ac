import { type InstanceOffer, type InstanceOfferQuery, withCondition } from "../client";
import { typedInstanceQuery } from "../client/offer-query";
import type { Estimate } from "../run/plan-ledger";
import { offersToRent } from "./choice";
import { dollars, instanceDollarsPerHour, listedStorageGb } from "./formulas";
import { pricedOffer } from "./instance-price";
import { type OfferReads, withRentedAsks } from "./offer-reads";
import { estimateVolume } from "./volume-price";

// A NodeGroup's price, from the same choice its create and its resize make: the cluster whose
// nodes, as its ranks rent them (pricing/choice.ts), cost least; then each rank's offer, the
// next in the query's order in the group's own cluster; the nodes a resize keeps at what they
// are rented for.

/** The matching offers under the cap, by physical cluster, each in the query's order. */
export function offersByCluster(
  offers: readonly InstanceOffer[],
  cap: number | undefined,
): Map<number, InstanceOffer[]> {
  const clusters = new Map<number, InstanceOffer[]>();
  for (const offer of offers) {
    if (offer.clusterId === null || (cap !== undefined && offer.dollarsPerHour > cap)) continue;
    clusters.set(offer.clusterId, [...(clusters.get(offer.clusterId) ?? []), offer]);
  }
  return clusters;
}

/** What renting `count` nodes in a cluster costs, $/hour, as its ranks would rent them. */
export const clusterCostOf = (offers: readonly InstanceOffer[], count: number): number =>
  offersToRent(offers, undefined, count).reduce((sum, offer) => sum + offer.dollarsPerHour, 0);

/** The cheapest cluster with `count` offers, and its offers; undefined when none has room. */
function cheapestCluster(
  clusters: ReadonlyMap<number, readonly InstanceOffer[]>,
  count: number,
): { clusterId: number; offers: readonly InstanceOffer[] } | undefined {
  const [best] = [...clusters.entries()]
    .filter(([, offers]) => offers.length >= count)
    .sort(([, a], [, b]) => clusterCostOf(a, count) - clusterCostOf(b, count));
  return best === undefined ? undefined : { clusterId: best[0], offers: best[1] };
}

/** A node of the group's price: one it keeps, as rented, or one its ranks would rent. */
export type NodePrice =
  | { readonly kept: number }
  | {
      readonly offer: InstanceOffer;
      readonly diskGb: number | undefined;
      /** The nodes' bid, $/hour: interruptible nodes; undefined for on-demand. */
      readonly bid?: number | undefined;
    };

const priceOf = (node: NodePrice) =>
  "kept" in node ? node.kept : instanceDollarsPerHour(pricedOffer(node.offer), node);

/**
 * `3 nodes ($2.40 + $2.40 + $2.2032 new) in cluster 102, 40 GB disk each`: the
 * group's nodes after the change, the kept at their price, the new at their offer's with the
 * group's disk.
 */
export function groupEstimate(
  nodes: readonly NodePrice[],
  clusterId: number,
  diskGb: number | undefined,
): Estimate {
  const prices = nodes.map(priceOf);
  const total = prices.reduce((sum, price) => sum + price, 0);
  const kept = nodes.filter((node) => "kept" in node).length;
  const parts = prices
    .map((price, index) => {
      const node = nodes[index];
      return `${dollars(price)}${kept > 0 && node !== undefined && !("kept" in node) ? " new" : ""}`;
    })
    .join(" + ");
  const count = `${nodes.length} node${nodes.length === 1 ? "" : "s"}`;
  return {
    dollarsPerHour: total,
    basis:
      `${count} (${parts}) in cluster ${clusterId}, ` + `${diskGb ?? listedStorageGb} GB disk each`,
  };
}

// ---- The cluster a group is rented in -----------------------------------------------------

/** No physical cluster can hold the group: the message names the largest that matched. */
export class NoClusterError extends Error {}

export interface ClusterChoice {
  readonly clusterId: number;
  /** Every matching offer of the cluster under the price cap, in the query's order. */
  readonly offers: readonly InstanceOffer[];
}

/** What a group is rented by, as far as its price and its cluster go. */
export interface GroupPricing {
  readonly offerQuery: InstanceOfferQuery | string;
  readonly nodeCount: number;
  readonly maxDollarsPerHour?: number | undefined;
  readonly diskGb?: number | undefined;
  readonly networkVolume?: { readonly sizeGb: number } | undefined;
  /** The nodes' bid, $/hour: interruptible nodes; undefined for on-demand. */
  readonly price?: number | undefined;
}

/** The group's query narrowed to offers in some physical cluster (or in the one given). */
export function clusterQueryOf(
  query: InstanceOfferQuery | string,
  clusterId?: number,
): InstanceOfferQuery {
  if (clusterId !== undefined) return withCondition(query, "clusterId", clusterId);
  const typed = typedInstanceQuery(query);
  return typed.clusterId === undefined ? { ...typed, clusterId: { neq: null } } : typed;
}

/** Offers a cluster choice reads at most, unless the query sets its own limit. */
const clusterSearchLimit = 1000;

/** The search a cluster choice makes: every cluster's offers, not the service's first page. */
export function clusterSearchOf(
  query: InstanceOfferQuery | string,
  clusterId?: number,
): InstanceOfferQuery {
  return { limit: clusterSearchLimit, ...clusterQueryOf(query, clusterId) };
}

/**
 * Of a cluster search's offers, the cheapest cluster with `nodeCount` matching offers under the
 * cap. Fails, naming the largest cluster that matched (or none), when no cluster can hold the
 * group.
 */
export function clusterChoiceOf(
  offers: readonly InstanceOffer[],
  inputs: Pick<GroupPricing, "maxDollarsPerHour" | "nodeCount">,
): ClusterChoice {
  const clusters = offersByCluster(offers, inputs.maxDollarsPerHour);
  const best = cheapestCluster(clusters, inputs.nodeCount);
  if (best !== undefined) return best;
  const [largest] = [...clusters.entries()].sort(([, a], [, b]) => b.length - a.length);
  const cap =
    inputs.maxDollarsPerHour === undefined
      ? ""
      : ` under maxDollarsPerHour $${inputs.maxDollarsPerHour}/h`;
  throw new NoClusterError(
    largest === undefined
      ? `no offer matching offerQuery${cap} is in a physical cluster; a group needs ` +
          `${inputs.nodeCount} in one`
      : `no physical cluster has ${inputs.nodeCount} offers matching offerQuery${cap}; the ` +
          `largest that matched is cluster ${largest[0]} with ${largest[1].length}`,
  );
}

/**
 * A group rented anew: the cluster its create would choose now, its ranks' offers there and
 * its network volume (the cluster's first offer with room). `freedAskIds`: the asks a
 * delete-first replacement's old nodes hold, offered again by the time the new group rents.
 */
export async function estimateNewGroup(
  reads: OfferReads,
  inputs: GroupPricing,
  freedAskIds: readonly number[] = [],
  plannedAskIds?: Set<number>,
): Promise<Estimate> {
  const query = clusterSearchOf(inputs.offerQuery);
  const search = await reads.instances(freedAskIds.length === 0 ? query : withRentedAsks(query));
  if (search === undefined) return { dollarsPerHour: 0, basis: "not priced: the search failed" };
  const offers = search.offers.filter(
    (offer) =>
      (offer.rented !== true || freedAskIds.includes(offer.askId)) &&
      plannedAskIds?.has(offer.askId) !== true,
  );
  let cluster: ClusterChoice;
  try {
    cluster = clusterChoiceOf(offers, inputs);
  } catch (error) {
    if (!(error instanceof NoClusterError)) throw error;
    return { dollarsPerHour: 0, basis: `not priced: ${error.message}` };
  }
  const rented = offersToRent(cluster.offers, undefined, inputs.nodeCount);
  for (const offer of rented) plannedAskIds?.add(offer.askId);
  const nodes = rented.map((offer): NodePrice => ({
    offer,
    diskGb: inputs.diskGb,
    bid: inputs.price,
  }));
  const estimate = groupEstimate(nodes, cluster.clusterId, inputs.diskGb);
  if (inputs.networkVolume === undefined) return estimate;
  const { sizeGb } = inputs.networkVolume;
  const volume = await estimateVolume(
    reads,
    { offerQuery: { clusterId: cluster.clusterId, diskSpaceGb: { gte: sizeGb } }, sizeGb },
    async () => undefined,
    true,
  );
  return {
    dollarsPerHour: estimate.dollarsPerHour + volume.dollarsPerHour,
    basis: `${estimate.basis} + network volume ${volume.basis}`,
  };
}
