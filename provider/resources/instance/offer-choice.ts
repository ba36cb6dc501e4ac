import { setTimeout as sleep } from "node:timers/promises";
import {
  compileInstanceOfferQuery,
  type GpuCloudClient,
  type InstanceOffer,
  type InstanceOfferQuery,
  withCondition,
} from "../../client";
import { unlessCancelled } from "../../run/cancellation";
import type { Run } from "../../run/run";
import type { InstanceInputs } from "./inputs";
import { requiredCluster } from "./placement";

// Renting by query: which offer each attempt rents.

/** A create by query that cannot rent anything: no match, or none under the price cap. */
export class NoOfferError extends Error {}

/**
 * The query to search: the program's, pinned to the linked volume's machine if any, and to the
 * physical cluster of the overlay and the network volume if any (only its machines reach them).
 */
export async function effectiveQuery(
  client: GpuCloudClient,
  inputs: InstanceInputs,
): Promise<InstanceOfferQuery | string | undefined> {
  const query = inputs.offerQuery;
  if (query === undefined) return query;
  let pinned: InstanceOfferQuery | string = query;
  if (inputs.volume !== undefined) {
    const machineId = await volumeMachineOf(client, inputs.volume.volumeId);
    pinned = withCondition(pinned, "machineId", machineId);
  }
  if (inputs.overlay !== undefined || inputs.networkVolume !== undefined) {
    const cluster = await requiredCluster(client, inputs);
    if ("problem" in cluster) throw new NoOfferError(cluster.problem);
    if (cluster.clusterId !== undefined) {
      pinned = withCondition(pinned, "clusterId", cluster.clusterId);
    }
  }
  return pinned;
}

/** The machine a volume lives on; fails naming the volume when it is not on the account. */
export async function volumeMachineOf(client: GpuCloudClient, volumeId: number): Promise<number> {
  const volume = (await client.volumes.list()).find((v) => v.id === volumeId);
  if (volume === undefined) {
    throw new NoOfferError(`volume.volumeId: no volume ${volumeId} (V.${volumeId}) on the account`);
  }
  if (volume.machine_id === null || volume.machine_id === undefined) {
    throw new NoOfferError(`volume V.${volumeId}: the service does not say which machine it is on`);
  }
  return volume.machine_id;
}

/**
 * Ends a create's claims (run/renting-ledger.ts): its asks are rented (and no longer offered)
 * or free again.
 */
export function releaseOffers(run: Run, claimed: Set<number>): void {
  for (const askId of claimed) run.renting.asksBeingRented.delete(askId);
  claimed.clear();
}

/** The answered offers this create has not tried and no other create has claimed. */
function freeOffers(
  run: Run,
  offers: InstanceOffer[],
  tried: ReadonlySet<number>,
): InstanceOffer[] {
  const claimed = run.renting.asksBeingRented;
  return offers.filter((offer) => !tried.has(offer.askId) && !claimed.has(offer.askId));
}

/**
 * Searches afresh (offers come and go between attempts) and picks the best offer not tried yet
 * in this create nor being rented by another: the first in the query's order that matches the
 * query when checked here (the service has been seen to ignore a filter) and costs at most
 * `maxDollarsPerHour`. The offer is claimed (added to `claimed`) before this returns.
 */
export async function chooseOffer(
  run: Run,
  query: InstanceOfferQuery | string,
  inputs: Pick<InstanceInputs, "maxDollarsPerHour">,
  tried: ReadonlySet<number>,
  claimed: Set<number>,
  progress: (message: string) => void,
  deadlineMs: number,
  stop: AbortSignal,
): Promise<InstanceOffer> {
  const { client, renting } = run;
  const asksBeingRented = renting.asksBeingRented;
  let search = await client.offers.searchInstances(query);
  let free = freeOffers(run, search.offers, tried);
  // Every answer claimed by others: search again as their rents land, until the deadline.
  while (free.length === 0 && search.offers.some((offer) => asksBeingRented.has(offer.askId))) {
    const remainingMs = deadlineMs - Date.now();
    if (renting.rentsInFlight === 0 || remainingMs <= 0) break;
    // Unreferenced: a wait that lost the race must not keep the process alive.
    await unlessCancelled(
      Promise.race([renting.nextRentReturned(), sleep(remainingMs, undefined, { ref: false })]),
      stop,
    );
    search = await client.offers.searchInstances(query);
    free = freeOffers(run, search.offers, tried);
  }
  for (const { offer, reason } of search.rejected.slice(0, 3)) {
    progress(`skipping ask ${offer.askId}: the search answered it, but ${reason}`);
  }
  const untried = search.offers.filter((offer) => !tried.has(offer.askId));
  const cap = inputs.maxDollarsPerHour;
  const affordable = free.filter((offer) => cap === undefined || offer.dollarsPerHour <= cap);
  const [best] = affordable;
  if (best !== undefined) {
    asksBeingRented.add(best.askId);
    claimed.add(best.askId);
    return best;
  }
  const busy = untried.length - free.length;
  if (busy > 0 && free.length === 0) {
    throw new NoOfferError(
      `no offer matching offerQuery is left: the ${busy} that match are being rented by other ` +
        `instances of this run` +
        (tried.size > 0 ? ` (and this create has tried ${tried.size})` : ""),
    );
  }
  const cheapest = [...free].sort((a, b) => a.dollarsPerHour - b.dollarsPerHour)[0];
  if (cheapest !== undefined && cap !== undefined) {
    throw new NoOfferError(
      `no offer matching offerQuery costs at most maxDollarsPerHour $${cap}/h; the cheapest ` +
        `match is $${cheapest.dollarsPerHour}/h (ask ${cheapest.askId}, ${cheapest.numGpus}x ` +
        `${cheapest.gpuName})`,
    );
  }
  const skipped = search.rejected.length;
  throw new NoOfferError(
    `no offer matches offerQuery` +
      (tried.size > 0 ? ` that this create has not already tried (${tried.size} tried)` : "") +
      (skipped > 0
        ? `; ${skipped} answered offer(s) did not match the query and were skipped`
        : ""),
  );
}

/** Why the recorded offer does not satisfy the query, or undefined when it does. */
export function recordedOfferMismatch(
  offer: Record<string, unknown> | undefined,
  query: InstanceOfferQuery | string,
): string | undefined {
  if (offer === undefined) return "no offer is recorded";
  return compileInstanceOfferQuery(query).mismatch(offer as InstanceOffer);
}
