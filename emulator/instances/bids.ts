import { deliverEvent, webhookUrlProblem } from "../accounts/webhook-delivery";
import type { EmulatorSettings } from "../options";
import type { State } from "../shared/state";
import type { Instance } from "./instance-state";
import { bootTimingOf, outbidMessage, reboot } from "./lifecycle";

const MIN_BID = 0.001;
/** The bid-price endpoint's documented maximum, $/hour. */
const MAX_BID = 32;

/** Why a bid price is refused (the service's wording), or undefined. */
export function bidProblem(price: number): string | undefined {
  if (!(price >= MIN_BID)) return `Please set a bid price >= ${String(MIN_BID)}.`;
  if (price > MAX_BID) return `Please set a bid price <= ${MAX_BID.toFixed(1)}.`;
  return undefined;
}

/** What a bid must be to hold the machine: above the bid that took it, at least the ask's minimum. */
export function winningBid(instance: Instance): number {
  const floor = instance.offer.minBidDollarsPerHour;
  const taken = instance.outbidDollarsPerHour;
  return Math.round(Math.max(floor, taken === null ? 0 : taken + MIN_BID) * 1e6) / 1e6;
}

/**
 * Changes an interruptible instance's bid. A bid above the one that took its machine gets the
 * machine back: the instance loads again and reaches its outcome (running) as after a start.
 */
export function changeBid(
  instance: Instance,
  price: number,
  settings: EmulatorSettings,
  nowMs: number,
): void {
  instance.bidDollarsPerHour = price;
  const taken = instance.outbidDollarsPerHour;
  if (taken !== null && price > taken) {
    instance.outbidDollarsPerHour = null;
    reboot(instance, nowMs, bootTimingOf(settings, instance.id));
  }
}

/** A higher bid takes the machine of an interruptible instance (the test control). */
export function outbid(instance: Instance, dollarsPerHour: number): void {
  instance.outbidDollarsPerHour = dollarsPerHour;
}

/** Tells the account's `client:outbid` subscribers, without waiting for their receivers. */
export function notifyOutbid(state: State, settings: EmulatorSettings, instance: Instance): void {
  const price = instance.outbidDollarsPerHour;
  if (price === null) return;
  for (const webhook of state.webhooks) {
    if (!webhook.eventTypes.includes("client:outbid")) continue;
    if (webhookUrlProblem(webhook.url, settings.allowInsecureWebhooks) !== undefined) continue;
    void deliverEvent(webhook, {
      notif_type: "outbid",
      title: "Instance outbid",
      message: outbidMessage(price),
      instance_id: instance.id,
    });
  }
}
