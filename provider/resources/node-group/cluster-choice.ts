import {
  type GpuCloudClient,
  type InstanceOffer,
  type InstanceOfferQuery,
  withCondition,
} from "../../client";
import { typedInstanceQuery } from "../../client/offer-query";
import type { NodeGroupInputs } from "./inputs";

// Which physical cluster a group's nodes are rented in: the cheapest that has an offer for
// every node. A cluster's machines share a fast local network, an overlay and network volumes;
// a group never spans two clusters.

/** No physical cluster can hold the group: the message names the largest that matched. */
export class NoClusterError extends Error {}

export interface ClusterChoice {
  readonly clusterId: number;
  /** Every matching offer of the cluster under the price cap, cheapest first. */
  readonly offers: readonly InstanceOffer[];
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

const byPrice = (a: InstanceOffer, b: InstanceOffer) => a.dollarsPerHour - b.dollarsPerHour;

/** Offers a cluster choice reads at most, unless the query sets its own limit. */
const clusterSearchLimit = 1000;

/** The matching offers under the cap, by cluster, each cluster's cheapest first. */
async function offersByCluster(
  client: GpuCloudClient,
  inputs: Pick<NodeGroupInputs, "offerQuery" | "maxDollarsPerHour">,
  clusterId?: number,
): Promise<Map<number, InstanceOffer[]>> {
  const query = clusterQueryOf(inputs.offerQuery, clusterId);
  // Every cluster's offers, not the service's first page: a cluster is judged by its count.
  const search = await client.offers.searchInstances({ limit: clusterSearchLimit, ...query });
  const cap = inputs.maxDollarsPerHour;
  const clusters = new Map<number, InstanceOffer[]>();
  for (const offer of search.offers) {
    if (offer.clusterId === null || (cap !== undefined && offer.dollarsPerHour > cap)) continue;
    clusters.set(offer.clusterId, [...(clusters.get(offer.clusterId) ?? []), offer]);
  }
  for (const offers of clusters.values()) offers.sort(byPrice);
  return clusters;
}

/** What renting `count` nodes in the cluster costs, $/hour: its `count` cheapest offers. */
const costOf = (offers: readonly InstanceOffer[], count: number) =>
  offers.slice(0, count).reduce((sum, offer) => sum + offer.dollarsPerHour, 0);

/**
 * The cheapest cluster with `nodeCount` matching offers under the cap. Fails, naming the
 * largest cluster that matched (or none), when no cluster can hold the group.
 */
export async function chooseCluster(
  client: GpuCloudClient,
  inputs: Pick<NodeGroupInputs, "offerQuery" | "maxDollarsPerHour" | "nodeCount">,
): Promise<ClusterChoice> {
  const clusters = await offersByCluster(client, inputs);
  const fitting = [...clusters.entries()]
    .filter(([, offers]) => offers.length >= inputs.nodeCount)
    .sort(([, a], [, b]) => costOf(a, inputs.nodeCount) - costOf(b, inputs.nodeCount));
  const [best] = fitting;
  if (best !== undefined) return { clusterId: best[0], offers: best[1] };
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

/** The cluster's matching offers now (for a replacement node or more ranks). */
export async function clusterOffers(
  client: GpuCloudClient,
  inputs: Pick<NodeGroupInputs, "offerQuery" | "maxDollarsPerHour">,
  clusterId: number,
): Promise<InstanceOffer[]> {
  return (await offersByCluster(client, inputs, clusterId)).get(clusterId) ?? [];
}
