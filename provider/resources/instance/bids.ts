import type { GpuCloudClient, Instance as InstanceWire } from "../../client";
import { outbidBy, winningBid } from "../../renting/outbid";
import type { InstanceInputs, InstanceOutputs } from "./inputs";

// An interruptible instance's bid: changed in place, and raised to win back a machine that a
// higher bid took (outbid), as `price` or `onOutbid` allow; otherwise the instance stays paused
// (the service keeps its data), and every up says what it bills meanwhile. The rules an Instance
// and a NodeGroup's nodes share are renting/outbid.ts'.

/** What an update of an instance recorded as outbid does. */
export type OutbidPlan =
  /** No longer outbid (or gone from the outbid state): only the outputs change. */
  | { kind: "settled"; instance: InstanceWire | undefined }
  /** Still outbid, and a bid it may set beats the winning one: raise it and wait. */
  | { kind: "raise"; dollarsPerHour: number; winning: number }
  /** Still outbid, and nothing it may bid wins: left paused (onOutbid wait), said why. */
  | { kind: "wait"; note: string; instance: InstanceWire; winning: number };

/**
 * True when an update acts on an outbid instance (recorded so by refresh): it can win the
 * machine back, or the program stops it. Otherwise it stays paused, with nothing to update.
 */
export function outbidActs(
  olds: Pick<InstanceOutputs, "outbidByDollarsPerHour">,
  news: Pick<InstanceInputs, "state" | "price" | "onOutbid" | "maxBidDollarsPerHour">,
): boolean {
  const winning = olds.outbidByDollarsPerHour;
  if (winning === undefined) return false;
  return news.state !== "running" || winningBid(news, winning) !== undefined;
}

/** The line an outbid instance left paused gets: what holds it, what it bills, the way out. */
function outbidWaitNote(
  instance: InstanceWire,
  news: Pick<InstanceInputs, "price" | "onOutbid" | "maxBidDollarsPerHour">,
  winning: number,
): string {
  const disk = instance.storage_total_cost;
  const ceiling =
    news.onOutbid === "raise" && news.maxBidDollarsPerHour !== undefined
      ? `its ceiling maxBidDollarsPerHour $${news.maxBidDollarsPerHour}/h is not above it; `
      : "";
  return (
    `instance ${instance.id} is outbid: a bid of $${winning}/h holds its machine; ${ceiling}it ` +
    `stays paused (onOutbid ${news.onOutbid ?? "wait"}), its data kept` +
    (disk === null || disk === undefined ? "" : ` and its disk billing $${disk}/h meanwhile`) +
    `; to run it again, raise price above ${winning}, or set onOutbid: raise with a higher ` +
    "maxBidDollarsPerHour"
  );
}

/**
 * Decides, before any write, what to do about an instance that refresh found outbid: the
 * instance is read again (the winning bid may have gone, or risen).
 */
export async function planOutbid(
  client: GpuCloudClient,
  olds: InstanceOutputs,
  news: InstanceInputs,
): Promise<OutbidPlan> {
  const instance = await client.instances.show(olds.instanceId);
  const winning = instance && outbidBy(instance, olds.price);
  if (instance === undefined || winning === undefined) return { kind: "settled", instance };
  const bid = winningBid(news, winning);
  if (bid === undefined) {
    return { kind: "wait", note: outbidWaitNote(instance, news, winning), instance, winning };
  }
  return { kind: "raise", dollarsPerHour: bid, winning };
}
