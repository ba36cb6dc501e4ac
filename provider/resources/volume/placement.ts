import type { VolumeOffer, VolumeOfferRow } from "../../client";
import { offerReadsOf } from "../../pricing/offer-reads";
import { estimateVolume, volumeEstimate } from "../../pricing/volume-price";
import {
  type ForInstance,
  instanceOffersOn,
  missingInstanceOffer,
  placeWithInstance,
} from "../../renting/volume-placement";
import type { Run } from "../../run/run";

// A Volume's place at check: the ask's offer (its room and its machine), where `forInstance`
// puts the volume (renting/volume-placement.ts), and the price of the offer it takes there.

/** What check and price need of a volume's inputs. */
interface PlacedInputs {
  readonly askId?: number | undefined;
  readonly volumeOfferQuery?: Parameters<Run["client"]["offers"]["searchVolumes"]>[0] | undefined;
  readonly sizeGb: number;
}

/** The ask's offer, read once per run: its disk_space is the most a volume from it holds. */
export function volumeOffer(run: Run, askId: number): Promise<VolumeOfferRow | undefined> {
  const offerReads = run.reads.volumeOfferByAsk;
  let read = offerReads.get(askId);
  if (!read) {
    // A failed search says nothing about the size: check passes and create decides.
    read = run.client.volumes
      .searchOffers({ id: { eq: askId } })
      .then(([offer]) => offer)
      .catch(() => undefined);
    offerReads.set(askId, read);
  }
  return read;
}

/** Where a volume placed for an instance goes, as its check finds it: its machine and offer. */
export type Placement = { problem: string } | { machineId?: number; offer?: VolumeOffer };

/**
 * At check: where the volume goes with `forInstance` (its machine and, by query, its offer), or
 * why it cannot be placed where `forInstance` can rent (no machine of the matching volume
 * offers, or not the ask's, has such an instance offer under its cap). Nothing is known when a
 * search fails (create decides then).
 */
export async function placeForInstance(
  run: Run,
  inputs: PlacedInputs,
  forInstance: ForInstance,
): Promise<Placement> {
  if (inputs.askId !== undefined) {
    const machineId = (await volumeOffer(run, inputs.askId))?.machine_id;
    if (machineId === null || machineId === undefined) return {};
    const found = await instanceOffersOn(run.client, forInstance, [machineId]).catch(
      () => undefined,
    );
    if (found === undefined) return {};
    return found.cheapest.size > 0
      ? { machineId }
      : {
          problem:
            `ask ${inputs.askId} is on machine ${machineId}, which has no ` +
            missingInstanceOffer(forInstance, found.overCap),
        };
  }
  const query = inputs.volumeOfferQuery;
  if (query === undefined) return {};
  const search = await offerReadsOf(run).volumes(query, false);
  const fits = search?.offers.filter((offer) => offer.diskSpaceGb >= inputs.sizeGb) ?? [];
  // No volume offer at all is create's to say (with the sizes it saw).
  if (fits.length === 0) return {};
  const placed = await placeWithInstance(run.client, forInstance, fits).catch(() => undefined);
  if (placed === undefined) return {};
  if ("problem" in placed) return placed;
  return {
    offer: placed.volume,
    ...(placed.volume.machineId === null ? {} : { machineId: placed.volume.machineId }),
  };
}

/** Its price: the offer the placement chose, else the one create accepts without one. */
export function volumePrice(run: Run, inputs: PlacedInputs, placement: Placement | undefined) {
  return async () => {
    if (placement !== undefined && "offer" in placement && placement.offer !== undefined) {
      const { offer } = placement;
      return volumeEstimate(
        offer.askId,
        offer.storageCostPerGbMonth,
        inputs.sizeGb,
        `, on machine ${offer.machineId ?? "?"}, where forInstance rents`,
      );
    }
    return estimateVolume(
      offerReadsOf(run),
      { askId: inputs.askId, offerQuery: inputs.volumeOfferQuery, sizeGb: inputs.sizeGb },
      (id) => volumeOffer(run, id),
      false,
    );
  };
}
