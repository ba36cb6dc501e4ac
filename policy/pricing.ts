import type { InstanceOfferQuery } from "../provider/client";
import type { Market } from "./market";
import type { Price } from "./rules";
import { type GpuFields, type GpuResource, isUnknown } from "./shapes";

// What a GPU resource of the plan is expected to cost, in dollars per hour. Kept to this one
// function (and the Market it asks) so that it can give way to the shared pricing module
// (provider/pricing/) once that exists: the rules only need `priceOf`.
//
// In order: the price the state recorded (an Instance's `dollarsPerHour` output, or its rented
// `offer.dollarsPerHour`); an Instance's bid (`price`: what it pays at most); by ask, the dearest
// of its asks (any of them may be the one rented); by query, the first offer the service answers
// at or under `maxDollarsPerHour` (cheapest first unless the query orders otherwise: the one a
// create would rent), else the cap itself, the most a create may rent at. A NodeGroup's price is
// its nodeCount times a node's (the nodes of the cheapest cluster may cost more than the
// cheapest offers; its cap, when given, bounds each). Volumes and serverless resources are not
// priced here: they bill storage and workers, not GPUs by the hour of the plan. A stopped
// Instance counts at its full price: it may be started again, and its disk still bills.

export async function priceOf(
  resource: GpuResource,
  fields: GpuFields,
  market: Market | undefined,
): Promise<Price> {
  if (resource.kind === "Instance") {
    if (fields.recordedDollarsPerHour !== undefined) {
      return { dollarsPerHour: fields.recordedDollarsPerHour, basis: "its recorded price" };
    }
    if (typeof fields.bid === "number") {
      return { dollarsPerHour: fields.bid, basis: "its bid" };
    }
  }
  const count = fields.count;
  if (count === undefined || isUnknown(count)) return { unbounded: "nodeCount is not known" };
  const cap = isUnknown(fields.maxDollarsPerHour) ? undefined : fields.maxDollarsPerHour;
  const times = (each: number, basis: string): Price => ({
    dollarsPerHour: each * count,
    basis: count === 1 ? basis : `${count} × ${basis}`,
  });
  const byCap = (why: string): Price =>
    cap === undefined ? { unbounded: `${why} and no maxDollarsPerHour` } : times(cap, "its cap");

  if (isUnknown(fields.offerQuery)) return byCap("its offerQuery is not known at preview");
  if (fields.offerQuery !== undefined) {
    if (market === undefined) return byCap("no offer search without GPUCLOUD_API_KEY");
    const first = await market
      .firstOffer(fields.offerQuery as InstanceOfferQuery | string, cap)
      .then(
        (found) => found ?? ("no offer found for its offerQuery" as const),
        () => "the offer search failed" as const,
      );
    return typeof first === "string"
      ? byCap(first)
      : times(first.dollarsPerHour, `ask ${first.askId}`);
  }
  if (isUnknown(fields.asks)) return { unbounded: "its askId is not known at preview" };
  if (fields.asks.length === 0) return { unbounded: "it names neither an ask nor an offerQuery" };
  if (market === undefined) {
    return { unbounded: "an ask is priced by the service, which needs GPUCLOUD_API_KEY" };
  }
  const offers = await market.askOffers(fields.asks).catch(() => undefined);
  if (offers === undefined) return { unbounded: "the offer search failed" };
  const prices = fields.asks.map((ask) => offers.get(ask)?.dollarsPerHour);
  if (prices.some((price) => price === undefined)) {
    return { unbounded: "the service does not list its ask" };
  }
  const dearest = Math.max(...(prices as number[]));
  return times(dearest, fields.asks.length === 1 ? `ask ${fields.asks[0]}` : "its dearest ask");
}
