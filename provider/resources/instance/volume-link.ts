import { withCondition } from "../../client";
import type { Run } from "../../run/run";
import { volumePin } from "../../renting/offer-choice";
import { containsUnknown } from "../../shared/validation";
import { asksOf, type InstanceInputs } from "./inputs";

/** Why a linked volume cannot be: the account does not hold it (deleted, or another's id). */
const noVolume = (volumeId: number): string =>
  `no volume ${volumeId} (V.${volumeId}) on the account: give a Volume's volumeId`;

/**
 * At check: a linked volume the account does not hold, or an explicit ask that is on another
 * machine than the volume, named with both machines; undefined when they agree or when it
 * cannot be known yet (the volume or the ask not known at preview, the ask not listed). The
 * service refuses such a create in any case.
 */
export async function askOffVolumeMachine(
  run: Run,
  inputs: InstanceInputs,
  news: Record<string, unknown>,
): Promise<string | undefined> {
  const volumeId = inputs.volume?.volumeId;
  const asks = asksOf(inputs);
  if (volumeId === undefined || asks.length === 0) return undefined;
  if (containsUnknown(news["askId"]) || containsUnknown(news["askIds"])) return undefined;
  const volume = await run.reads.volume(volumeId);
  if (volume === undefined) return `volume.volumeId: ${noVolume(volumeId)}`;
  const machineId = volume.machine_id;
  if (machineId === null || machineId === undefined) return undefined;
  // Rented asks are searched too: the one an instance holds is still on its machine.
  const offers = await run.client.instances.searchOffers({
    id: { in: asks },
    rented: {},
    rentable: {},
    verified: {},
  });
  const elsewhere = offers.filter((offer) => offer.machine_id !== machineId);
  const [first] = elsewhere;
  if (first === undefined) return undefined;
  return (
    `volume: V.${volumeId} is on machine ${machineId}, but ask ${first.id} is on machine ` +
    `${first.machine_id ?? "?"}; a volume can only be linked on its own machine (rent by ` +
    `offerQuery to be placed there automatically)`
  );
}

/**
 * At check, for an instance by query about to be rented with a volume: the account holds the
 * volume, and its search is pinned to the volume's machine, so a machine with no offer matching
 * the query, or none under the cap, fails at preview rather than at create, naming the volume,
 * its machine and the cap. Offers an instance holds there count (the instance a replacement
 * deletes first holds one); a volume not known yet (created in the same run) or a failed search
 * is left to create.
 */
export async function volumeMachineMismatch(
  run: Run,
  inputs: InstanceInputs,
  news: Record<string, unknown>,
): Promise<
  { field: "volume.volumeId" | "offerQuery" | "maxDollarsPerHour"; message: string } | undefined
> {
  const volumeId = inputs.volume?.volumeId;
  const query = inputs.offerQuery;
  if (volumeId === undefined || query === undefined) return undefined;
  if (containsUnknown(news["volume"])) return undefined;
  const volume = await run.reads.volume(volumeId);
  if (volume === undefined) return { field: "volume.volumeId", message: noVolume(volumeId) };
  if (containsUnknown(news["offerQuery"]) || containsUnknown(news["maxDollarsPerHour"])) {
    return undefined;
  }
  const machineId = volume.machine_id;
  if (machineId === null || machineId === undefined) return undefined;
  const pinned = withCondition(query, "machineId", machineId);
  const search = await run.client.offers
    .searchInstances({ rented: { in: [true, false] }, ...pinned })
    .catch(() => undefined);
  if (search === undefined) return undefined;
  const where = volumePin(volumeId, machineId);
  const cheapest = [...search.offers].sort((a, b) => a.dollarsPerHour - b.dollarsPerHour)[0];
  if (cheapest === undefined) {
    return {
      field: "offerQuery",
      message:
        `no offer ${where} matches offerQuery, rented or not: an instance linking a volume is ` +
        "rented on its machine; change offerQuery, or place the volume where the instance " +
        "fits (Volume forInstance)",
    };
  }
  const cap = inputs.maxDollarsPerHour;
  if (cap !== undefined && cheapest.dollarsPerHour > cap) {
    return {
      field: "maxDollarsPerHour",
      message:
        `no offer ${where} matching offerQuery costs at most maxDollarsPerHour $${cap}/h; the ` +
        `cheapest there is $${cheapest.dollarsPerHour}/h (ask ${cheapest.askId}, ` +
        `${cheapest.numGpus}x ${cheapest.gpuName})`,
    };
  }
  return undefined;
}
