import type { InstanceOfferQuery } from "../provider/client";
import { estimateNewGroup } from "../provider/pricing/group-price";
import {
  estimateAnywhere,
  estimateInstance,
  type InstancePricing,
} from "../provider/pricing/instance-price";
import { recordedPrice } from "../provider/pricing/recorded";
import type { Market } from "./market";
import type { Price } from "./rules";
import { type GpuFields, type GpuResource, isUnknown } from "./shapes";

// What a GPU resource of the plan is expected to cost, in dollars per hour, by the provider's
// own pricing (provider/pricing/): a deployed resource at what its state records (an Instance's
// `dollarsPerHour`, a NodeGroup's nodes as rented), a new one at the offer its create would rent
// (by ask, the first listed on offer; by query, the first in the query's order under its cap, on
// its volume's machine when the volume exists; a NodeGroup, its ranks' offers in the cluster its
// create would choose). Without the service (no credentials, a failed search), the plan alone
// bounds it: a bid, else the cap. Volumes and serverless resources are not priced here: they
// bill storage and workers, not GPUs by the hour of the plan.

/** A state's recorded price, when the props are a deployed resource's outputs. */
function recorded(resource: GpuResource, fields: GpuFields): Price | undefined {
  if (fields.recordedDollarsPerHour === undefined) return undefined;
  const found = recordedPrice(resource.kind, resource.props);
  return found.unrecorded === true
    ? undefined
    : { dollarsPerHour: found.dollarsPerHour, basis: found.basis };
}

const known = <T>(value: T): Exclude<T, symbol> | undefined =>
  isUnknown(value) ? undefined : (value as Exclude<T, symbol>);

/** The provider's estimate of a new resource, from the service's offers now. */
async function estimateOf(
  resource: GpuResource,
  fields: GpuFields,
  market: Market,
): Promise<Awaited<ReturnType<typeof estimateInstance>> | undefined> {
  const { props } = resource;
  const diskGb = typeof props["diskGb"] === "number" ? props["diskGb"] : undefined;
  const cap = known(fields.maxDollarsPerHour);
  const query = fields.offerQuery as InstanceOfferQuery | string | undefined;
  if (resource.kind === "NodeGroup") {
    const count = known(fields.count);
    if (query === undefined || count === undefined) return undefined;
    return estimateNewGroup(market.reads, {
      offerQuery: query,
      nodeCount: count,
      maxDollarsPerHour: cap,
      diskGb,
    });
  }
  const asks = known(fields.asks) ?? [];
  const spec: InstancePricing = {
    asks,
    offerQuery: query,
    maxDollarsPerHour: cap,
    diskGb,
    bid: known(fields.bid),
    stopped: props["state"] === "stopped",
    // A reserved instance is priced at its discount, as the preview prices it.
    prepayDollars: typeof props["prepayDollars"] === "number" ? props["prepayDollars"] : undefined,
  };
  const volume = props["volume"] as { volumeId?: unknown } | undefined;
  if (query === undefined || volume === undefined) return estimateInstance(market.reads, spec);
  // On the volume's machine when the volume exists; a volume the same plan makes: anywhere.
  const volumeId = volume.volumeId;
  const machineId = typeof volumeId === "number" ? await market.volumeMachine(volumeId) : undefined;
  return machineId === undefined
    ? estimateAnywhere(market.reads, spec, query, "volume.volumeId")
    : estimateInstance(market.reads, {
        ...spec,
        pin: {
          machineId,
          words: `on machine ${machineId} (where volume V.${String(volumeId)} lives)`,
        },
      });
}

export async function priceOf(
  resource: GpuResource,
  fields: GpuFields,
  market: Market | undefined,
): Promise<Price> {
  const deployed = recorded(resource, fields);
  if (deployed !== undefined) return deployed;
  const count = fields.count;
  if (count === undefined || isUnknown(count)) return { unbounded: "nodeCount is not known" };
  const cap = known(fields.maxDollarsPerHour);
  const times = (each: number, basis: string): Price => ({
    dollarsPerHour: each * count,
    basis: count === 1 ? basis : `${count} × ${basis}`,
  });
  const bounded = (why: string): Price => {
    if (resource.kind === "Instance" && typeof fields.bid === "number") {
      return { dollarsPerHour: fields.bid, basis: "its bid" };
    }
    return cap === undefined
      ? { unbounded: `${why} and no maxDollarsPerHour` }
      : times(cap, "its cap");
  };
  if (isUnknown(fields.offerQuery)) return bounded("its offerQuery is not known at preview");
  if (fields.offerQuery === undefined) {
    if (isUnknown(fields.asks)) return { unbounded: "its askId is not known at preview" };
    if (fields.asks.length === 0) return { unbounded: "it names neither an ask nor an offerQuery" };
  }
  if (market === undefined) {
    return fields.offerQuery === undefined && typeof fields.bid !== "number"
      ? { unbounded: "an ask is priced by the service, which needs GPUCLOUD_API_KEY" }
      : bounded("no offer search without GPUCLOUD_API_KEY");
  }
  const estimate = await estimateOf(resource, fields, market).catch(() => undefined);
  if (estimate === undefined) return bounded("the offer search failed");
  if (estimate.dollarsPerHour <= 0 && estimate.pending === undefined) {
    return fields.offerQuery === undefined
      ? { unbounded: `the service does not list its ask (${estimate.basis})` }
      : bounded(estimate.basis);
  }
  return { dollarsPerHour: estimate.dollarsPerHour, basis: estimate.basis };
}
