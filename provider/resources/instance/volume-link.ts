import type { GpuCloudClient } from "../../client";
import { containsUnknown } from "../../shared/validation";
import { asksOf, type InstanceInputs } from "./inputs";

/**
 * At check: an explicit ask that is on another machine than the linked volume, named with both
 * machines; undefined when they agree or when it cannot be known yet (the volume or the ask not
 * known at preview, the ask not listed). The service refuses such a create in any case.
 */
export async function askOffVolumeMachine(
  client: GpuCloudClient,
  inputs: InstanceInputs,
  news: Record<string, unknown>,
): Promise<string | undefined> {
  const volumeId = inputs.volume?.volumeId;
  const asks = asksOf(inputs);
  if (volumeId === undefined || asks.length === 0) return undefined;
  if (containsUnknown(news["askId"]) || containsUnknown(news["askIds"])) return undefined;
  const volume = (await client.volumes.list()).find((v) => v.id === volumeId);
  if (volume === undefined) {
    return `volume.volumeId: no volume ${volumeId} (V.${volumeId}) on the account`;
  }
  const machineId = volume.machine_id;
  if (machineId === null || machineId === undefined) return undefined;
  // Rented asks are searched too: the one an instance holds is still on its machine.
  const offers = await client.instances.searchOffers({
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
