import type * as pulumi from "@pulumi/pulumi";
import { deadEndStatuses } from "../../client";
import { asksOf, type InstanceInputs, type InstanceOutputs, runtypeOf } from "./inputs";
import {
  expiredReason,
  idleShutdownFieldChanged,
  lifetimeFieldsChanged,
  lifetimeReplaces,
} from "../../renting/lifetime";
import { recordedOfferMismatch } from "../../renting/offer-choice";
import { outbidActs } from "./bids";

/**
 * What runs is set at launch: a change of any of these launches a new instance. The overlay is
 * joined and the network volume mounted at launch too (in the create's env).
 */
export const replacingFields = [
  "diskGb",
  "runtype",
  "overlay",
  "networkVolume",
  "exposePorts",
] as const;
const inPlaceFields = [
  // Only how create waits: nothing on the service changes.
  "readiness",
  // A bid changes in place (PUT /api/v0/instances/bid_price/{id}/); see bidKindChanged.
  "price",
  // What the next up does about an outbid instance (bids.ts): nothing on the service.
  "onOutbid",
  "maxBidDollarsPerHour",
  // A new value reboots or recycles the container (container.ts).
  "restartTrigger",
  "recycleTrigger",
  "label",
  "state",
  "createTimeoutSeconds",
  "maxAttempts",
  "pollIntervalSeconds",
  "sshKeyIds",
  "offerQuery",
  "maxDollarsPerHour",
] as const;

export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * What the container runs: a change rebuilds it on its machine (container.ts), except a VM's,
 * which is replaced.
 */
export const rebuildFields = ["image", "env", "onstart", "args", "templateHashId"] as const;

export function rebuildFieldsChanged(olds: Partial<InstanceInputs>, news: InstanceInputs) {
  return rebuildFields.filter((field) => !same(olds[field], news[field]));
}

/** The rebuild fields whose change replaces: a VM boots its own image, which the service cannot rebuild. */
function vmRebuildFields(olds: Partial<InstanceInputs>, news: InstanceInputs): string[] {
  return runtypeOf(news) === "vm" ? rebuildFieldsChanged(olds, news) : [];
}

/**
 * True when the instance would go between on-demand and interruptible (a bid added or
 * removed): the service cannot change that, so it replaces. A bid changed for another changes
 * in place.
 */
export function bidKindChanged(
  olds: Pick<InstanceInputs, "price">,
  news: Pick<InstanceInputs, "price">,
): boolean {
  return (olds.price === undefined) !== (news.price === undefined);
}

/** True when these inputs launch a new instance instead of the recorded one. */
export function launchesAnew(olds: Partial<InstanceInputs>, news: InstanceInputs): boolean {
  return (
    replacingFields.some((field) => !same(olds[field], news[field])) ||
    vmRebuildFields(olds, news).length > 0 ||
    bidKindChanged(olds, news) ||
    lifetimeReplaces(olds, news).length > 0
  );
}

/**
 * By query and linking a volume: the replacement must be rented on the volume's machine, where
 * the recorded instance holds an ask (on-demand asks are rented once, until destroyed). Created
 * first, the replacement would take the machine's next ask (often a pricier one: more GPUs) or
 * find none under the cap; deleted first, it can take the same ask again. What is lost: the
 * instance is down from its destroy until the replacement runs, and if the replacement cannot be
 * rented (the ask taken meanwhile, the cap) the stack holds no instance until the next up. The
 * volume and its data stay. docs/guides/renting.md#a-volume-and-its-instance.
 */
export function pinnedToVolume(news: Pick<InstanceInputs, "offerQuery" | "volume">): boolean {
  return news.offerQuery !== undefined && news.volume !== undefined;
}

/** The preview's line for a delete-first replacement of an instance pinned to a volume. */
export function deleteFirstNote(olds: InstanceOutputs): string {
  const offer = olds.offer;
  const held =
    offer === undefined
      ? ""
      : `, where it holds ask ${offer.askId}` +
        (offer.dollarsPerHour === null ? "" : ` ($${offer.dollarsPerHour}/h)`);
  return (
    `instance ${olds.instanceId} is destroyed before its replacement is rented: the ` +
    `replacement must be on the machine of volume V.${olds.volume?.volumeId ?? "?"} ` +
    `(machine ${offer?.machineId ?? "?"})${held}, and an ask is offered again only once its ` +
    `instance is destroyed; the instance is down until the replacement runs`
  );
}

/** True when the recorded instance never reached running or has since reached a dead end. */
function isBroken(olds: InstanceOutputs): boolean {
  const lastAttempt = olds.attempts.at(-1);
  return (
    lastAttempt?.lastStatus !== undefined ||
    (deadEndStatuses as readonly string[]).includes(olds.actualStatus ?? "")
  );
}

/**
 * The service can relabel, stop and start an instance and change its bid: any other change of
 * what runs replaces it (a template's hash is only recorded: a template applies at launch).
 * The ask list replaces only when it no longer holds the ask the instance was rented from; the
 * resource's own timing settings change nothing on the service. An instance recorded as not
 * running (kept after a failed create, or found at a dead end by refresh) is replaced, and so
 * is one whose `expiresAt` has passed at `nowMs` (its watchdog stopped or destroyed it), or
 * whose lifetime changes (its deadline is in its onstart). A replacement on the same ask
 * deletes first: the ask's machine cannot hold both. So does one by query linking a volume.
 */
export function diffInstance(
  recorded: InstanceOutputs,
  news: InstanceInputs,
  nowMs = Date.now(),
): pulumi.dynamic.DiffResult {
  // Stacks written before stop and start record no state: their instances run.
  const olds = { ...recorded, state: recorded.state ?? "running" };
  const replaces: string[] = replacingFields.filter((field) => !same(olds[field], news[field]));
  replaces.push(...vmRebuildFields(olds, news));
  if (bidKindChanged(olds, news)) replaces.push("price");
  const rentedFrom = olds.attempts.at(-1)?.askId;
  const newAsks = asksOf(news);
  const asksChanged = !same(asksOf(olds), newAsks);
  if (asksChanged && (rentedFrom === undefined || !newAsks.includes(rentedFrom))) {
    replaces.push(news.askIds === undefined ? "askId" : "askIds");
  }
  // By query: what runs stays while its offer satisfies the (new) query and price cap.
  if (news.offerQuery !== undefined) {
    const queryChanged =
      !same(olds.offerQuery, news.offerQuery) ||
      !same(olds.maxDollarsPerHour, news.maxDollarsPerHour);
    const price = olds.offer?.dollarsPerHour;
    if (
      queryChanged &&
      (recordedOfferMismatch(olds.offer, news.offerQuery) !== undefined ||
        (news.maxDollarsPerHour !== undefined &&
          (price === null || price === undefined || price > news.maxDollarsPerHour)))
    ) {
      replaces.push("offerQuery");
    }
  }
  if (!same(olds.volume, news.volume)) replaces.push("volume");
  // `replaceOnChanges` (the resource option): what would change in place replaces instead.
  const replaceOn = news.replaceOnChanges ?? [];
  for (const field of [...inPlaceFields, ...rebuildFields, "idleShutdown"] as const) {
    if ((replaceOn.includes(field) || replaceOn.includes("*")) && !same(olds[field], news[field])) {
      replaces.push(field);
    }
  }
  if (isBroken(olds)) replaces.push("actualStatus");
  replaces.push(...lifetimeReplaces(olds, news));
  if (expiredReason(olds, nowMs) !== undefined) replaces.push("expiresAt");
  // Outbid (found by refresh): an update when it can win the machine back, or is stopping it
  // (bids.ts); left paused otherwise (onOutbid wait), which preview says.
  const outbid = outbidActs(olds, news);
  const changes =
    replaces.length > 0 ||
    asksChanged ||
    outbid ||
    lifetimeFieldsChanged(olds, news) ||
    // A new idle rule rebuilds the container (container.ts); one written otherwise is recorded.
    idleShutdownFieldChanged(olds, news) ||
    // A prepay not made yet (a create whose prepay failed): the update makes it.
    (news.prepayDollars ?? 0) > (olds.prepaidDollars ?? 0) ||
    [...inPlaceFields, ...rebuildFields].some((field) => !same(olds[field], news[field]));
  return {
    changes,
    replaces,
    deleteBeforeReplace:
      replaces.length > 0 &&
      ((rentedFrom !== undefined && newAsks.includes(rentedFrom)) || pinnedToVolume(news)),
  };
}
