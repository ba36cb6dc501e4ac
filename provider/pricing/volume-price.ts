import type { VolumeOffer, VolumeOfferQuery, VolumeOfferRow } from "../client";
import type { Estimate } from "../run/plan-ledger";
import { dollars, storageDollarsPerHour } from "./formulas";
import type { OfferReads } from "./offer-reads";

// A Volume's or NetworkVolume's expected $/hour: its size × the storage price of the offer its
// create accepts (by ask, the ask's; by query, the first in the query's order with room; with
// `forInstance`, the one the placement chose, which its check hands here).

/** A volume: its size × its offer's storage price. */
export function volumeEstimate(
  askId: number,
  storageCostPerGbMonth: number | null | undefined,
  sizeGb: number,
  where = "",
): Estimate {
  const cost = storageCostPerGbMonth ?? 0;
  return {
    dollarsPerHour: storageDollarsPerHour(cost, sizeGb),
    basis: `${sizeGb} GB at ${dollars(cost)}/GB-month (ask ${askId}${where})`,
  };
}

export interface VolumePricing {
  readonly askId?: number | undefined;
  readonly offerQuery?: VolumeOfferQuery | string | undefined;
  readonly sizeGb: number;
}

/** The first offer a query answers with room for the size: the one create accepts. */
export function volumeOfferToAccept(
  offers: readonly VolumeOffer[],
  sizeGb: number,
): VolumeOffer | undefined {
  return offers.find((offer) => offer.diskSpaceGb >= sizeGb);
}

/** By ask, the ask's storage price; by query, the offer create would accept now. */
export async function estimateVolume(
  reads: OfferReads,
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
  const search = await reads.volumes(spec.offerQuery ?? {}, network);
  const fits = volumeOfferToAccept(search?.offers ?? [], spec.sizeGb);
  if (fits === undefined) {
    return { dollarsPerHour: 0, basis: "no volume offer matches the query now: not priced" };
  }
  return volumeEstimate(fits.askId, fits.storageCostPerGbMonth, spec.sizeGb);
}
