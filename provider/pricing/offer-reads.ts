import {
  type GpuCloudClient,
  type InstanceOffer,
  type InstanceOfferQuery,
  type InstanceOfferRow,
  type Search,
  type VolumeOffer,
  type VolumeOfferQuery,
} from "../client";
import { typedInstanceQuery } from "../client/offer-query";
import type { Run } from "../run/run";
import type { SharedReads } from "../run/shared-reads";

// The offer reads a price rests on, each made once and shared by every resource that asks: a
// run's (the provider's, through run/shared-reads.ts: the ask lists Instance's check reads
// anyway, and one search per distinct query, however many resources share it), or a policy
// pack's own. A failed read prices nothing and fails no check: create decides.

/** The maps a set of reads keeps (a run's SharedReads has them). */
type ReadMaps = Pick<
  SharedReads,
  | "instanceOffersByAsks"
  | "instanceOfferSearches"
  | "volumeOfferSearches"
  | "networkVolumeOfferSearches"
>;

export interface OfferReads {
  /**
   * The offers of an ask list, as Instance's check reads them; with `rented`, the asks instances
   * hold too (a delete-first replacement's own ask is free again when it rents).
   */
  asks(asks: readonly number[], rented?: boolean): Promise<InstanceOfferRow[]>;
  /** A query's instance offers now, in the query's order. */
  instances(query: InstanceOfferQuery | string): Promise<Search<InstanceOffer> | undefined>;
  /** A query's volume offers (local, or network with `network`) now. */
  volumes(
    query: VolumeOfferQuery | string,
    network: boolean,
  ): Promise<Search<VolumeOffer> | undefined>;
}

function shared<T>(reads: Map<string, Promise<T>>, key: string, read: () => Promise<T>) {
  let found = reads.get(key);
  if (!found) {
    // A client that cannot be made (no configuration) fails the read, not the caller.
    found = Promise.resolve().then(read);
    reads.set(key, found);
  }
  return found;
}

function readsOver(client: () => GpuCloudClient, maps: ReadMaps): OfferReads {
  return {
    asks: (asks, rented = false) =>
      shared(maps.instanceOffersByAsks, `${asks.join(",")}${rented ? ":rented" : ""}`, () =>
        client().instances.searchOffers({
          id: { in: [...asks] },
          ...(rented ? { rented: {} } : {}),
        }),
      ).catch(() => []),
    instances: (query) =>
      shared(maps.instanceOfferSearches, JSON.stringify(query), () =>
        client().offers.searchInstances(query),
      ).catch(() => undefined),
    volumes: (query, network) =>
      shared(
        network ? maps.networkVolumeOfferSearches : maps.volumeOfferSearches,
        JSON.stringify(query),
        () =>
          network
            ? client().offers.searchNetworkVolumes(query)
            : client().offers.searchVolumes(query),
      ).catch(() => undefined),
  };
}

/** The run's reads: shared by every resource of the run. */
export function offerReadsOf(run: Run): OfferReads {
  return readsOver(() => run.client, run.reads);
}

/** Reads of one client's own, for whoever prices outside a run (the policy pack). */
export function offerReadsFor(client: GpuCloudClient): OfferReads {
  return readsOver(() => client, {
    instanceOffersByAsks: new Map(),
    instanceOfferSearches: new Map(),
    volumeOfferSearches: new Map(),
    networkVolumeOfferSearches: new Map(),
  });
}

/** The query with the asks instances hold answered too (rented or not). */
export function withRentedAsks(query: InstanceOfferQuery | string): InstanceOfferQuery {
  return { ...typedInstanceQuery(query), rented: { in: [true, false] } };
}
