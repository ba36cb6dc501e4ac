import type {
  InstanceOffer,
  InstanceOfferQuery,
  InstanceOfferRow,
  Search,
  VolumeOffer,
  VolumeOfferQuery,
  VolumeOfferRow,
} from "../client";
import type { Estimate } from "../run/plan-ledger";
import type { Run } from "../run/run";
import {
  dollars,
  instanceDollarsPerHour,
  type InstanceTerms,
  listedStorageGb,
  type PricedOffer,
  storageDollarsPerHour,
} from "./formulas";

// Each billable resource's expected $/hour, from its inputs and the offers the run has read.
// Every read is shared through the run (run/shared-reads.ts): the ask lists Instance's check
// reads anyway, and one search per distinct query, however many resources share it.

/** The offers of an ask list, as Instance's check reads them (one search per list per run). */
export function offersOfAsks(run: Run, asks: readonly number[]): Promise<InstanceOfferRow[]> {
  const key = asks.join(",");
  let read = run.reads.instanceOffersByAsks.get(key);
  if (!read) {
    // A failed search prices nothing and fails no check: create decides.
    read = run.client.instances.searchOffers({ id: { in: [...asks] } }).catch(() => []);
    run.reads.instanceOffersByAsks.set(key, read);
  }
  return read;
}

/** A query's instance offers now (one search per distinct query per run). */
export function instanceOffersOf(
  run: Run,
  query: InstanceOfferQuery | string,
): Promise<Search<InstanceOffer> | undefined> {
  return sharedSearch(run.reads.instanceOfferSearches, query, () =>
    run.client.offers.searchInstances(query),
  );
}

function sharedSearch<T>(
  reads: Map<string, Promise<T | undefined>>,
  query: unknown,
  search: () => Promise<T>,
): Promise<T | undefined> {
  const key = JSON.stringify(query);
  let read = reads.get(key);
  if (!read) {
    read = search().catch(() => undefined);
    reads.set(key, read);
  }
  return read;
}

const pricedRow = (row: InstanceOfferRow): PricedOffer => ({
  askId: row.id,
  listedDollarsPerHour: row.dph_total,
  baseDollarsPerHour: row.dph_base ?? null,
  storageCostPerGbMonth: row.storage_cost ?? null,
});

const pricedOffer = (offer: InstanceOffer): PricedOffer => ({
  askId: offer.askId,
  listedDollarsPerHour: offer.dollarsPerHour,
  storageCostPerGbMonth: offer.storageCostPerGbMonth,
});

/** What an instance is rented from and how it is billed. */
export interface InstancePricing extends InstanceTerms {
  readonly asks: readonly number[];
  readonly offerQuery?: InstanceOfferQuery | string | undefined;
  /** With offerQuery: never an offer above this. */
  readonly maxDollarsPerHour?: number | undefined;
}

/** `ask 31001 at $1.20/h + 40 GB disk at $0.10/GB-month`, or a stopped instance's storage. */
function offerBasis(offer: PricedOffer, terms: InstanceTerms): string {
  const storage = offer.storageCostPerGbMonth ?? 0;
  const disk = terms.diskGb ?? listedStorageGb;
  const diskWords = `${disk} GB disk at ${dollars(storage)}/GB-month${
    terms.diskGb === undefined ? " (the template's disk, priced at the listed 8 GB)" : ""
  }`;
  if (terms.stopped === true) return `stopped: ${diskWords} only`;
  const gpu = instanceDollarsPerHour(offer, { ...terms, diskGb: 0 });
  const how = terms.bid === undefined ? "" : ` (bid ${dollars(terms.bid)}/h)`;
  return `ask ${offer.askId} at ${dollars(gpu)}/h${how} + ${diskWords}`;
}

/** An Instance's expected $/hour: its ask's (the first of askIds on offer), or its query's. */
export async function estimateInstance(run: Run, spec: InstancePricing): Promise<Estimate> {
  if (spec.offerQuery !== undefined) return estimateByQuery(run, spec, spec.offerQuery);
  const rows = await offersOfAsks(run, spec.asks);
  const offered = spec.asks
    .map((askId) => rows.find((row) => row.id === askId))
    .filter((row): row is InstanceOfferRow => row !== undefined)
    .map(pricedRow);
  const [first] = offered;
  if (first === undefined) {
    return { dollarsPerHour: 0, basis: `ask ${spec.asks.join(", ")} not on offer now: not priced` };
  }
  const prices = offered.map((offer) => instanceDollarsPerHour(offer, spec));
  const estimate = { dollarsPerHour: prices[0] ?? 0, basis: offerBasis(first, spec) };
  return prices.length > 1
    ? {
        ...estimate,
        low: Math.min(...prices),
        high: Math.max(...prices),
        basis: `${estimate.basis} (the first of askIds on offer)`,
      }
    : estimate;
}

/**
 * By query: the offer a create would rent now (the first in the query's order under the cap),
 * the cheapest match (low) and the cap (high). A placement pin (volume, overlay, network
 * volume) is left to create: the figure is the query's anywhere.
 */
async function estimateByQuery(
  run: Run,
  spec: InstancePricing,
  query: InstanceOfferQuery | string,
): Promise<Estimate> {
  const search = await instanceOffersOf(run, query);
  if (search === undefined) return { dollarsPerHour: 0, basis: "offer search failed: not priced" };
  const cap = spec.maxDollarsPerHour;
  const under = search.offers.filter((offer) => cap === undefined || offer.dollarsPerHour <= cap);
  const [chosen] = under;
  const capWords = cap === undefined ? "" : `, cap ${dollars(cap)}/h`;
  if (chosen === undefined) {
    return {
      dollarsPerHour: 0,
      basis: `no offer matches offerQuery${cap === undefined ? "" : " under the cap"} now`,
    };
  }
  const price = (offer: InstanceOffer) => instanceDollarsPerHour(pricedOffer(offer), spec);
  const low = Math.min(...under.map(price));
  return {
    dollarsPerHour: price(chosen),
    low,
    ...(cap === undefined ? {} : { high: Math.max(price(chosen), cap) }),
    basis:
      `offerQuery: ${offerBasis(pricedOffer(chosen), spec)}, cheapest match ` +
      `${dollars(low)}/h now${capWords}`,
  };
}

/**
 * A NodeGroup: nodes × the chosen cluster's prices (its `nodeCount` cheapest offers, as create
 * chooses them), each with the group's disk.
 */
export function estimateNodeGroup(
  cluster: { clusterId: number; offers: readonly InstanceOffer[] },
  nodeCount: number,
  diskGb: number | undefined,
): Estimate {
  const prices = cluster.offers
    .slice(0, nodeCount)
    .map((offer) => instanceDollarsPerHour(pricedOffer(offer), { diskGb }));
  const total = prices.reduce((sum, price) => sum + price, 0);
  const each =
    prices.length === 0
      ? ""
      : Math.min(...prices) === Math.max(...prices)
        ? `${dollars(prices[0] ?? 0)}/h`
        : `${dollars(Math.min(...prices))}–${dollars(Math.max(...prices))}/h`;
  return {
    dollarsPerHour: total,
    basis: `${nodeCount} nodes × ${each} in cluster ${cluster.clusterId}, ${
      diskGb ?? listedStorageGb
    } GB disk each`,
  };
}

/** A volume: its size × its offer's storage price. */
function volumeEstimate(
  askId: number,
  storageCostPerGbMonth: number | null | undefined,
  sizeGb: number,
): Estimate {
  const cost = storageCostPerGbMonth ?? 0;
  return {
    dollarsPerHour: storageDollarsPerHour(cost, sizeGb),
    basis: `${sizeGb} GB at ${dollars(cost)}/GB-month (ask ${askId})`,
  };
}

export interface VolumePricing {
  readonly askId?: number | undefined;
  readonly offerQuery?: VolumeOfferQuery | string | undefined;
  readonly sizeGb: number;
}

/**
 * A Volume (`network` false) or NetworkVolume: by ask, the ask's storage price; by query, the
 * first offer in the query's order with room for the size, as create accepts it.
 */
export async function estimateVolume(
  run: Run,
  spec: VolumePricing,
  askOffer: (askId: number) => Promise<Pick<VolumeOfferRow, "storage_cost"> | undefined>,
  network: boolean,
): Promise<Estimate> {
  if (spec.askId !== undefined) {
    const offer = await askOffer(spec.askId);
    if (offer === undefined) {
      return { dollarsPerHour: 0, basis: `ask ${spec.askId} not on offer now: not priced` };
    }
    return volumeEstimate(spec.askId, offer.storage_cost, spec.sizeGb);
  }
  const query = spec.offerQuery ?? {};
  const search = await sharedSearch(
    network ? run.reads.networkVolumeOfferSearches : run.reads.volumeOfferSearches,
    query,
    () =>
      network
        ? run.client.offers.searchNetworkVolumes(query)
        : run.client.offers.searchVolumes(query),
  );
  const fits = search?.offers.find((offer: VolumeOffer) => offer.diskSpaceGb >= spec.sizeGb);
  if (fits === undefined) {
    return { dollarsPerHour: 0, basis: "no volume offer matches the query now: not priced" };
  }
  return volumeEstimate(fits.askId, fits.storageCostPerGbMonth, spec.sizeGb);
}
