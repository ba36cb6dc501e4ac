import { setTimeout as sleep } from "node:timers/promises";
import {
  compileInstanceOfferQuery,
  type GpuCloudClient,
  type InstanceOffer,
  type InstanceOfferQuery,
  type Search,
} from "../client";
import { offerToRent } from "../pricing/choice";
import { type Pin, pinnedQuery } from "../pricing/instance-price";
import { unlessCancelled } from "../run/cancellation";
import type { Run } from "../run/run";
import type { InstanceInputs } from "./instance-inputs";
import { requiredCluster } from "./placement";

// Renting by query: which offer each attempt rents.

/** A create by query that cannot rent anything: no match, or none under the price cap. */
export class NoOfferError extends Error {}

/** The query a create searches, and where it is pinned to, in words, for its errors. */
export interface PinnedQuery {
  readonly query: InstanceOfferQuery | string;
  /** E.g. "on machine 70021 (where volume V.5001 lives)"; undefined when nothing pins it. */
  readonly pin: string | undefined;
}

/**
 * Where an instance must be rented: its linked volume's machine, and the physical cluster of
 * its overlay and network volume (only its machines reach them); undefined when nothing pins
 * it. The create's search is pinned there, and the plan's price looks there too
 * (resources/instance/pricing.ts). Throws a NoOfferError when a placement cannot be met.
 */
export async function placementPin(
  client: GpuCloudClient,
  inputs: Pick<InstanceInputs, "volume" | "overlay" | "networkVolume">,
): Promise<Pin | undefined> {
  let machineId: number | undefined;
  let clusterId: number | undefined;
  const pins: string[] = [];
  if (inputs.volume !== undefined) {
    const { volumeId } = inputs.volume;
    machineId = await volumeMachineOf(client, volumeId);
    pins.push(volumePin(volumeId, machineId));
  }
  if (inputs.overlay !== undefined || inputs.networkVolume !== undefined) {
    const cluster = await requiredCluster(client, inputs);
    if ("problem" in cluster) throw new NoOfferError(cluster.problem);
    if (cluster.clusterId !== undefined) {
      clusterId = cluster.clusterId;
      pins.push(clusterPin(clusterId, inputs));
    }
  }
  return pins.length === 0 ? undefined : { machineId, clusterId, words: pins.join(" and ") };
}

/** "in cluster 7 (where overlay net is)": the words for a search pinned to a cluster. */
export function clusterPin(
  clusterId: number,
  inputs: Pick<InstanceInputs, "overlay" | "networkVolume">,
): string {
  const reached = [
    ...(inputs.overlay === undefined ? [] : [`overlay ${inputs.overlay}`]),
    ...(inputs.networkVolume === undefined
      ? []
      : [`network volume V.${inputs.networkVolume.volumeId}`]),
  ];
  const verb = reached.length > 1 ? "are" : "is";
  return `in cluster ${clusterId} (where ${reached.join(" and ")} ${verb})`;
}

/** The query to search: the program's, pinned where the instance must be (placementPin). */
export async function effectiveQuery(
  client: GpuCloudClient,
  inputs: InstanceInputs,
): Promise<PinnedQuery | undefined> {
  const query = inputs.offerQuery;
  if (query === undefined) return undefined;
  const pin = await placementPin(client, inputs);
  return { query: pinnedQuery(query, pin), pin: pin?.words };
}

/** The words for a search pinned to a volume's machine. */
export const volumePin = (volumeId: number, machineId: number): string =>
  `on machine ${machineId} (where volume V.${volumeId} lives)`;

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

/** What a create by query chooses by, and what it has tried and claimed so far. */
export interface OfferChoice {
  readonly query: InstanceOfferQuery | string;
  /** Where the query is pinned to, in words (PinnedQuery), named by every "no offer" error. */
  readonly pin?: string | undefined;
  /** Never an offer above this price, $/hour. */
  readonly maxDollarsPerHour: number | undefined;
  /** Asks this create has tried: never chosen again. */
  readonly tried: ReadonlySet<number>;
  /** The create's claims: the offer chosen is added. */
  readonly claimed: Set<number>;
  readonly progress: (message: string) => void;
  readonly deadlineMs: number;
  /** Stops a wait for other creates' rents (the run's cancellation, or a group's stop). */
  readonly stop: AbortSignal;
}

/**
 * Searches afresh (offers come and go between attempts) and picks the best offer not tried yet
 * in this create nor being rented by another: the first in the query's order that matches the
 * query when checked here (the service has been seen to ignore a filter) and costs at most
 * `maxDollarsPerHour`. The offer is claimed (added to `claimed`) before this returns.
 */
export async function chooseOffer(run: Run, choice: OfferChoice): Promise<InstanceOffer> {
  const { search, free } = await searchUnclaimed(run, choice);
  for (const { offer, reason } of search.rejected.slice(0, 3)) {
    choice.progress(`skipping ask ${offer.askId}: the search answered it, but ${reason}`);
  }
  const best = offerToRent(free, choice.maxDollarsPerHour);
  if (best === undefined) throw noOffer(choice, search, free);
  run.renting.asksBeingRented.add(best.askId);
  choice.claimed.add(best.askId);
  return best;
}

/**
 * The search's answer, and its offers this create has not tried and no other create has
 * claimed. When every answer is claimed by others, it searches again as their rents land,
 * until the deadline.
 */
async function searchUnclaimed(
  run: Run,
  choice: OfferChoice,
): Promise<{ search: Search<InstanceOffer>; free: InstanceOffer[] }> {
  const { client, renting } = run;
  const claimedByAny = renting.asksBeingRented;
  const unclaimed = (offers: InstanceOffer[]) =>
    offers.filter((offer) => !choice.tried.has(offer.askId) && !claimedByAny.has(offer.askId));
  let search = await client.offers.searchInstances(choice.query);
  let free = unclaimed(search.offers);
  while (free.length === 0 && search.offers.some((offer) => claimedByAny.has(offer.askId))) {
    const remainingMs = choice.deadlineMs - Date.now();
    if (renting.rentsInFlight === 0 || remainingMs <= 0) break;
    // Unreferenced: a wait that lost the race must not keep the process alive.
    await unlessCancelled(
      Promise.race([renting.nextRentReturned(), sleep(remainingMs, undefined, { ref: false })]),
      choice.stop,
    );
    search = await client.offers.searchInstances(choice.query);
    free = unclaimed(search.offers);
  }
  return { search, free };
}

/**
 * Why nothing can be chosen: every match claimed, none under the cap, or none at all. Each
 * names where the search was pinned (a volume's machine, a cluster) and the cap, which are
 * what a program can change.
 */
function noOffer(
  choice: OfferChoice,
  search: Search<InstanceOffer>,
  free: readonly InstanceOffer[],
): NoOfferError {
  const { tried } = choice;
  const where = choice.pin === undefined ? "" : ` ${choice.pin}`;
  const cap = choice.maxDollarsPerHour;
  const capped = cap === undefined ? "" : ` under maxDollarsPerHour $${cap}/h`;
  const untried = search.offers.filter((offer) => !tried.has(offer.askId));
  const busy = untried.length - free.length;
  if (busy > 0 && free.length === 0) {
    return new NoOfferError(
      `no offer matching offerQuery${where}${capped} is left: the ${busy} that match are ` +
        `being rented by other instances of this run` +
        (tried.size > 0 ? ` (and this create has tried ${tried.size})` : ""),
    );
  }
  const cheapest = [...free].sort((a, b) => a.dollarsPerHour - b.dollarsPerHour)[0];
  if (cheapest !== undefined && cap !== undefined) {
    return new NoOfferError(
      `no offer matching offerQuery${where} costs at most maxDollarsPerHour $${cap}/h; the ` +
        `cheapest match${where === "" ? "" : " there"} is $${cheapest.dollarsPerHour}/h (ask ` +
        `${cheapest.askId}, ${cheapest.numGpus}x ${cheapest.gpuName})` +
        pinHint(choice, "cap"),
    );
  }
  const skipped = search.rejected.length;
  return new NoOfferError(
    `no offer matches offerQuery${where}` +
      (cap === undefined ? "" : ` at any price (maxDollarsPerHour is $${cap}/h)`) +
      (tried.size > 0 ? ` that this create has not already tried (${tried.size} tried)` : "") +
      (skipped > 0
        ? `; ${skipped} answered offer(s) did not match the query and were skipped`
        : "") +
      pinHint(choice, "none"),
  );
}

/**
 * What a program can do about a search pinned to a volume's machine: under the cap, an ask an
 * instance holds there is not seen (the service rents an on-demand ask once, until the instance
 * is destroyed); with no match at all, the volume was placed without the instance in mind.
 */
function pinHint(choice: OfferChoice, kind: "cap" | "none"): string {
  if (choice.pin?.startsWith("on machine ") !== true) return "";
  return kind === "cap"
    ? "; an ask an instance holds on that machine is offered again only once that instance " +
        "is destroyed"
    : "; give the Volume forInstance (this instance's offerQuery and cap) to place it where " +
        "the instance can be rented";
}

/** Why the recorded offer does not satisfy the query, or undefined when it does. */
export function recordedOfferMismatch(
  offer: Record<string, unknown> | undefined,
  query: InstanceOfferQuery | string,
): string | undefined {
  if (offer === undefined) return "no offer is recorded";
  return compileInstanceOfferQuery(query).mismatch(offer as InstanceOffer);
}
