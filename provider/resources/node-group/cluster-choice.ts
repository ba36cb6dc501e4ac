import type { GpuCloudClient, InstanceOffer } from "../../client";
import {
  type ClusterChoice,
  clusterChoiceOf,
  clusterSearchOf,
  offersByCluster,
} from "../../pricing/group-price";
import type { NodeGroupInputs } from "./inputs";

// Which physical cluster a group's nodes are rented in: the cheapest that has an offer for
// every node, its nodes priced as its ranks rent them. The rule is the plan's price's too
// (pricing/group-price.ts); here it is applied to a search made now. A cluster's machines share
// a fast local network, an overlay and network volumes; a group never spans two clusters.

export { type ClusterChoice, clusterQueryOf, NoClusterError } from "../../pricing/group-price";

/** The cluster a create rents the group in, searched now. */
export async function chooseCluster(
  client: GpuCloudClient,
  inputs: Pick<NodeGroupInputs, "offerQuery" | "maxDollarsPerHour" | "nodeCount">,
): Promise<ClusterChoice> {
  const search = await client.offers.searchInstances(clusterSearchOf(inputs.offerQuery));
  return clusterChoiceOf(search.offers, inputs);
}

/** The cluster's matching offers now, in the query's order (more ranks, a replacement node). */
export async function clusterOffers(
  client: GpuCloudClient,
  inputs: Pick<NodeGroupInputs, "offerQuery" | "maxDollarsPerHour">,
  clusterId: number,
): Promise<InstanceOffer[]> {
  const search = await client.offers.searchInstances(clusterSearchOf(inputs.offerQuery, clusterId));
  return offersByCluster(search.offers, inputs.maxDollarsPerHour).get(clusterId) ?? [];
}
