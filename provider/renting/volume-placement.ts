import { z } from "zod";
import type { GpuCloudClient, InstanceOffer, InstanceOfferQuery } from "../client";
import { typedInstanceQuery } from "../client/offer-query";
import { offerQueryInputSchema } from "../shared/input-fields";

// A local volume lives on one machine, and an instance that links it is rented there (its
// search is pinned to the machine: offer-choice.ts). A Volume is created before the Instance
// that mounts it, so its own search cannot see what the instance needs unless the program says
// so: `forInstance`, the instance's offer query and cap. The volume then goes only to a machine
// that also has such an instance offer, the cheapest of them.

export const forInstanceSchema = z
  .object(
    {
      offerQuery: offerQueryInputSchema.describe(
        "The offer query of the instance that will link the volume (its `offerQuery`).",
      ),
      maxDollarsPerHour: z
        .number({ error: "forInstance.maxDollarsPerHour must be a number ($/hour)" })
        .positive("forInstance.maxDollarsPerHour must be positive")
        .describe("The instance's price cap (its `maxDollarsPerHour`), in dollars per hour.")
        .optional(),
    },
    { error: "forInstance must be { offerQuery, maxDollarsPerHour? }" },
  )
  .describe(
    "Place the volume where the instance that links it can be rented: give that instance's " +
      "`offerQuery` and `maxDollarsPerHour`. With `volumeOfferQuery`, the volume goes to the " +
      "machine whose cheapest matching instance offer under the cap is cheapest; with `askId`, " +
      "preview fails when the ask's machine has no such offer. Changing it changes nothing on " +
      "the service (the volume is never moved for it).",
  );
export type ForInstance = z.infer<typeof forInstanceSchema>;

/** Instance offers a placement search reads at most, unless the query sets its own limit. */
const placementSearchLimit = 1000;

/**
 * The cheapest instance offer matching `forInstance` under its cap on each of the machines
 * (those with none are absent). Unrented offers only: a new volume's instance rents one.
 */
export async function instanceOffersOn(
  client: GpuCloudClient,
  forInstance: ForInstance,
  machineIds: readonly number[],
): Promise<{ cheapest: Map<number, InstanceOffer>; overCap: InstanceOffer | undefined }> {
  const cheapest = new Map<number, InstanceOffer>();
  if (machineIds.length === 0) return { cheapest, overCap: undefined };
  const typed: InstanceOfferQuery = typedInstanceQuery(forInstance.offerQuery);
  // The program's own machine condition stays (both must hold: filtered below).
  const query: InstanceOfferQuery = {
    limit: placementSearchLimit,
    ...typed,
    ...(typed.machineId === undefined ? { machineId: { in: [...machineIds] } } : {}),
  };
  const search = await client.offers.searchInstances(query);
  const cap = forInstance.maxDollarsPerHour;
  let overCap: InstanceOffer | undefined;
  for (const offer of search.offers) {
    if (offer.machineId === null || !machineIds.includes(offer.machineId)) continue;
    if (cap !== undefined && offer.dollarsPerHour > cap) {
      if (overCap === undefined || offer.dollarsPerHour < overCap.dollarsPerHour) overCap = offer;
      continue;
    }
    const known = cheapest.get(offer.machineId);
    if (known === undefined || offer.dollarsPerHour < known.dollarsPerHour) {
      cheapest.set(offer.machineId, offer);
    }
  }
  return { cheapest, overCap };
}

/**
 * Of the volume offers (in the volume query's order), the one whose machine has the cheapest
 * instance offer for `forInstance`, the volume query's order breaking ties; or why none has.
 */
export async function placeWithInstance<V extends { machineId: number | null }>(
  client: GpuCloudClient,
  forInstance: ForInstance,
  volumeOffers: readonly V[],
): Promise<{ volume: V; instance: InstanceOffer } | { problem: string }> {
  const machineIds = [
    ...new Set(
      volumeOffers.flatMap((offer) => (offer.machineId === null ? [] : [offer.machineId])),
    ),
  ];
  const { cheapest, overCap } = await instanceOffersOn(client, forInstance, machineIds);
  let best: { volume: V; instance: InstanceOffer } | undefined;
  for (const volume of volumeOffers) {
    const instance = volume.machineId === null ? undefined : cheapest.get(volume.machineId);
    if (instance === undefined) continue;
    if (best === undefined || instance.dollarsPerHour < best.instance.dollarsPerHour) {
      best = { volume, instance };
    }
  }
  if (best !== undefined) return best;
  return {
    problem:
      `none of the ${machineIds.length} machine(s) of the matching volume offers has an ` +
      missingInstanceOffer(forInstance, overCap),
  };
}

/** "instance offer matching forInstance.offerQuery under …", and the cheapest over the cap. */
export function missingInstanceOffer(
  forInstance: ForInstance,
  overCap: InstanceOffer | undefined,
): string {
  const cap = forInstance.maxDollarsPerHour;
  return (
    "instance offer matching forInstance.offerQuery" +
    (cap === undefined ? "" : ` under forInstance.maxDollarsPerHour $${cap}/h`) +
    (overCap === undefined
      ? ""
      : `; the cheapest match there is $${overCap.dollarsPerHour}/h (ask ${overCap.askId}, ` +
        `${overCap.numGpus}x ${overCap.gpuName}, machine ${overCap.machineId ?? "?"})`)
  );
}
