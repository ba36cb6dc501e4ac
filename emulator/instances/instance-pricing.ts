import { rentalPrice } from "../market/offers";
import type { ActualStatus } from "./lifecycle";
import type { Instance } from "./instance-state";
import { balanceAt, discountRateAt } from "./prepay";

/**
 * An instance's prices, as its row shows them: those of the offer it was rented from, for its
 * disk (market/offers.ts, `rentalPrice`), so that a search with `allocated_storage` equal to the
 * instance's disk answers the same `dph_base`, `dph_total`, `storage_cost` and
 * `storage_total_cost`. An interruptible instance pays its bid instead of the listed price.
 */
export function instancePrices(instance: Instance, actualStatus: ActualStatus, nowMs: number) {
  const { offer } = instance;
  const listed = instance.bidDollarsPerHour ?? offer.dollarsPerHour;
  const price = rentalPrice(listed, offer.storageCostPerGbMonth, instance.diskGb);
  // A reserved instance's discount (prepay.ts), on its GPU and disk alike, while its deposit
  // lasts: `dph_total` stays the listed price, as in the OpenAPI's Instance example, where the
  // discounted price is `instance.discountedTotalPerHour` beside `credit_discount`.
  const discountRate = discountRateAt(instance, nowMs);
  const breakdown = (gpuCostPerHour: number, diskHour: number) => ({
    gpuCostPerHour,
    diskHour,
    totalHour: gpuCostPerHour + diskHour,
    discountTotalHour: (gpuCostPerHour + diskHour) * discountRate,
    discountedTotalPerHour: (gpuCostPerHour + diskHour) * (1 - discountRate),
  });
  // What it is charged now (the billing guide): the GPU only while it runs (not while loading,
  // stopped or outbid), storage while it exists, except while its machine is offline.
  const charged = breakdown(
    actualStatus === "running" ? price.base : 0,
    actualStatus === "offline" ? 0 : price.storage,
  );
  return {
    // While outbid, the price that took the machine: what a bid must beat to get it back.
    min_bid: instance.outbidDollarsPerHour ?? offer.minBidDollarsPerHour,
    dph_base: price.base,
    dph_total: price.total,
    search: breakdown(price.base, price.storage),
    instance: charged,
    /** $/GB/month, the offer's. */
    storage_cost: offer.storageCostPerGbMonth,
    /** $/hour for this instance's disk. */
    storage_total_cost: price.storage,
    /** $/GB of traffic, the offer's: charged for every byte whatever the state (billing guide). */
    inet_up_cost: offer.inetUpCostPerGb,
    inet_down_cost: offer.inetDownCostPerGb,
    // Per MB of the instance's GPU memory, as the OpenAPI's Instance example divides it.
    vram_costperhour: price.total / (offer.gpuRamMb * offer.numGpus),
    credit_discount_max: offer.creditDiscountMax,
    // A reserved instance's deposit left and its discount; null for one never prepaid.
    credit_balance: instance.prepay === null ? null : balanceAt(instance, nowMs),
    credit_discount: instance.prepay === null ? null : discountRate,
  };
}
