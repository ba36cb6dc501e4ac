import {
  type InstanceOffer,
  type InstanceOfferQuery,
  type InstanceOfferRow,
  withCondition,
} from "../client";
import type { Estimate } from "../run/plan-ledger";
import { offerToRent } from "./choice";
import {
  dollars,
  hoursPerMonth,
  instanceDollarsPerHour,
  prepayRateOf,
  type InstanceTerms,
  listedStorageGb,
  type PricedOffer,
} from "./formulas";
import { typedInstanceQuery } from "../client/offer-query";
import { type OfferReads, withRentedAsks } from "./offer-reads";

// An Instance's expected $/hour: the offer its create would rent now, with the create's own
// choice (pricing/choice.ts) on the create's own search: the program's query pinned where the
// instance must be (its volume's machine, the cluster of its overlay and network volume), and a
// delete-first replacement's ask counted free again, since it is by the time the replacement
// rents.

/** Where a create pins its search, and the words for it. */
export interface Pin {
  readonly machineId?: number | undefined;
  readonly clusterId?: number | undefined;
  /** "on machine 70021 (where volume V.5001 lives)" */
  readonly words: string;
}

/** What an instance is rented from and how it is billed. */
export interface InstancePricing extends InstanceTerms {
  readonly asks: readonly number[];
  readonly offerQuery?: InstanceOfferQuery | string | undefined;
  /** With offerQuery: never an offer above this. */
  readonly maxDollarsPerHour?: number | undefined;
  readonly pin?: Pin | undefined;
  /** The ask the instance a delete-first replacement destroys holds: free again by then. */
  readonly heldAskId?: number | undefined;
  /**
   * The asks the plan's other creates are priced at (run/plan-ledger.ts): not this one's; the
   * one it is priced at is added.
   */
  readonly plannedAskIds?: Set<number> | undefined;
}

export const pricedRow = (row: InstanceOfferRow): PricedOffer => ({
  askId: row.id,
  listedDollarsPerHour: row.dph_total,
  baseDollarsPerHour: row.dph_base ?? null,
  storageCostPerGbMonth: row.storage_cost ?? null,
  creditDiscountMax: row.credit_discount_max ?? null,
});

export const pricedOffer = (offer: InstanceOffer): PricedOffer => ({
  askId: offer.askId,
  listedDollarsPerHour: offer.dollarsPerHour,
  storageCostPerGbMonth: offer.storageCostPerGbMonth,
  creditDiscountMax: offer.creditDiscountMax,
});

/** `ask 31001 at $1.20/h + 40 GB disk at $0.10/GB-month`, or a stopped instance's storage. */
export function offerBasis(offer: PricedOffer, terms: InstanceTerms): string {
  const storage = offer.storageCostPerGbMonth ?? 0;
  const disk = terms.diskGb ?? listedStorageGb;
  const diskWords = `${disk} GB disk at ${dollars(storage)}/GB-month${
    terms.diskGb === undefined ? " (the template's disk, priced at the listed 8 GB)" : ""
  }`;
  const prepaid = prepaidWords(offer, terms);
  if (terms.stopped === true) return `stopped: ${diskWords} only${prepaid}`;
  const gpu = instanceDollarsPerHour(offer, { ...terms, diskGb: 0, prepayDollars: undefined });
  const how = terms.bid === undefined ? "" : ` (bid ${dollars(terms.bid)}/h)`;
  return `ask ${offer.askId} at ${dollars(gpu)}/h${how} + ${diskWords}${prepaid}`;
}

/** `, less 20% for $576 prepaid (1.0 months)`: a reserved instance's discount, or nothing. */
function prepaidWords(offer: PricedOffer, terms: InstanceTerms): string {
  if (terms.prepayDollars === undefined || terms.bid !== undefined) return "";
  const rate = prepayRateOf(offer, terms);
  const undiscounted = instanceDollarsPerHour(offer, { ...terms, prepayDollars: undefined });
  const months = terms.prepayDollars / (undiscounted * (1 - rate) * hoursPerMonth);
  return (
    `, less ${(rate * 100).toFixed(1)}% for ${dollars(terms.prepayDollars)} prepaid ` +
    `(${months.toFixed(1)} months, reserved)`
  );
}

/** An Instance's expected $/hour: by its asks (the first on offer) or by its query. */
export async function estimateInstance(
  reads: OfferReads,
  spec: InstancePricing,
): Promise<Estimate> {
  if (spec.offerQuery !== undefined) return estimateByQuery(reads, spec, spec.offerQuery);
  const held = spec.heldAskId;
  const rows = await reads.asks(spec.asks, held !== undefined && spec.asks.includes(held));
  const offered = spec.asks
    .map((askId) => rows.find((row) => row.id === askId && (row.rented !== true || askId === held)))
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

/** The program's query, pinned where the create must rent (renting/offer-choice.ts). */
export function pinnedQuery(
  query: InstanceOfferQuery | string,
  pin: Pin | undefined,
): InstanceOfferQuery | string {
  let pinned: InstanceOfferQuery | string = query;
  if (pin?.machineId !== undefined) pinned = withCondition(pinned, "machineId", pin.machineId);
  if (pin?.clusterId !== undefined) pinned = withCondition(pinned, "clusterId", pin.clusterId);
  return pinned;
}

/** By query: the offer a create would rent now, where it would rent it. */
async function estimateByQuery(
  reads: OfferReads,
  spec: InstancePricing,
  query: InstanceOfferQuery | string,
): Promise<Estimate> {
  const pinned = pinnedQuery(query, spec.pin);
  const held = spec.heldAskId;
  const search = await reads.instances(held === undefined ? pinned : withRentedAsks(pinned));
  const where = spec.pin === undefined ? "" : ` ${spec.pin.words}`;
  if (search === undefined) return { dollarsPerHour: 0, basis: "offer search failed: not priced" };
  const planned = spec.plannedAskIds;
  const offers = search.offers.filter(
    (offer) =>
      (offer.rented !== true || offer.askId === held) && planned?.has(offer.askId) !== true,
  );
  const cap = spec.maxDollarsPerHour;
  const chosen = offerToRent(offers, cap);
  if (chosen === undefined) {
    return {
      dollarsPerHour: 0,
      basis: `no offer matches offerQuery${where}${cap === undefined ? "" : " under the cap"} now`,
    };
  }
  planned?.add(chosen.askId);
  const again = chosen.askId === held ? " (the ask it holds now, free again by then)" : "";
  return {
    dollarsPerHour: instanceDollarsPerHour(pricedOffer(chosen), spec),
    basis: `offerQuery${where}: ${offerBasis(pricedOffer(chosen), spec)}${again}`,
  };
}

/**
 * By query, where the create will be pinned is not known at preview (a volume, an overlay or a
 * network volume made by the same plan whose place no check has told): the range of the
 * query's offers under the cap anywhere, counted at its high end.
 */
export async function estimateAnywhere(
  reads: OfferReads,
  spec: InstancePricing,
  query: InstanceOfferQuery | string,
  pending: string,
): Promise<Estimate> {
  const search = await reads.instances(query);
  const cap = spec.maxDollarsPerHour;
  const prices = (search?.offers ?? [])
    .filter((offer) => cap === undefined || offer.dollarsPerHour <= cap)
    .map((offer) => instanceDollarsPerHour(pricedOffer(offer), spec));
  if (prices.length === 0) {
    return { dollarsPerHour: 0, basis: `no offer matches offerQuery now`, pending };
  }
  const low = Math.min(...prices);
  const high = Math.max(...prices);
  return {
    dollarsPerHour: high,
    low,
    high,
    basis: `offerQuery: ${prices.length} matching offers anywhere now`,
    pending,
  };
}

/**
 * The key that ties a Volume's `forInstance` to the Instance that links it: the instance's query
 * and cap, as the program gives both (renting.md asks for the same on each).
 */
export function placementKey(
  query: InstanceOfferQuery | string,
  maxDollarsPerHour: number | undefined,
): string {
  return JSON.stringify([typedInstanceQuery(query), maxDollarsPerHour ?? null]);
}
