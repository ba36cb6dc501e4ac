import { deadEndStatuses, type GpuCloudClient, type Instance as InstanceWire } from "../../client";
import { watchInstance } from "../../shared/polling";
import { CancelledError } from "../../run/cancellation";
import type { Run } from "../../run/run";
import { raisedBid } from "../../renting/outbid-inputs";
import type { InstanceInputs, InstanceOutputs } from "./inputs";

// An interruptible instance's bid: changed in place, and raised to win back a machine that a
// higher bid took (outbid), as `price` or `onOutbid` allow; otherwise the instance stays paused
// (the service keeps its data), and every up says what it bills meanwhile.

/** How long an outbid instance may take to run again once its bid is raised. */
const resumeTimeoutMs = 600_000;

/**
 * The price of the bid that holds the instance's machine, $/hour, when that bid is higher than
 * the instance's own (`bid`, the recorded price): the instance was outbid. The service then
 * shows it stopped while it still intends it to run, and its `min_bid` is the winning price.
 * Undefined for an on-demand instance, a running one, or one stopped on purpose.
 */
export function outbidBy(instance: InstanceWire, bid: number | undefined): number | undefined {
  if (bid === undefined || instance.is_bid === false) return undefined;
  if (instance.intended_status !== "running" || instance.actual_status !== "stopped") {
    return undefined;
  }
  const winning = instance.min_bid;
  return winning !== null && winning !== undefined && winning > bid ? winning : undefined;
}

/** One line: which instance, its bid, the winning price, and the fix. */
export function outbidMessage(
  name: string,
  instanceId: number,
  bid: number | undefined,
  winning: number,
  outcome = "nothing was changed; the instance is kept, stopped",
): string {
  return (
    `${name}: instance ${instanceId} was outbid: its bid is ` +
    (bid === undefined ? "none (on-demand)" : `$${bid}/h`) +
    ` and a bid of $${winning}/h holds its machine; raise price above ${winning} to run it ` +
    `again (${outcome})`
  );
}

/** What an update of an instance recorded as outbid does. */
export type OutbidPlan =
  /** No longer outbid (or gone from the outbid state): only the outputs change. */
  | { kind: "settled"; instance: InstanceWire | undefined }
  /** Still outbid, and a bid it may set beats the winning one: raise it and wait. */
  | { kind: "raise"; dollarsPerHour: number; winning: number }
  /** Still outbid, and nothing it may bid wins: left paused (onOutbid wait), said why. */
  | { kind: "wait"; note: string; instance: InstanceWire; winning: number };

/** The bid that wins the machine back from `winning`: `price` when above it, else a raise. */
export function winningBid(
  news: Pick<InstanceInputs, "price" | "onOutbid" | "maxBidDollarsPerHour">,
  winning: number,
): number | undefined {
  if (news.price !== undefined && news.price > winning) return news.price;
  if (news.onOutbid !== "raise" || news.maxBidDollarsPerHour === undefined) return undefined;
  return raisedBid(winning, news.maxBidDollarsPerHour);
}

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
export function outbidWaitNote(
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

/**
 * Raises the bid of an outbid instance and waits, bounded, until it runs again. Fails (never
 * destroying it) when it reaches a dead end, is outbid again above the new bid, or does not run
 * in time.
 */
export async function raiseBidAndResume(
  run: Run,
  name: string,
  instanceId: number,
  plan: { dollarsPerHour: number; winning: number },
  pollIntervalSeconds: number,
  progress: (message: string) => void,
): Promise<InstanceWire> {
  progress(
    `instance ${instanceId} was outbid at $${plan.winning}/h: raising its bid to ` +
      `$${plan.dollarsPerHour}/h and waiting for it to run again`,
  );
  await run.client.instances.changeBid(instanceId, plan.dollarsPerHour);
  let last: InstanceWire | undefined;
  const running = await watchInstance(
    run.client,
    instanceId,
    pollIntervalSeconds * 1000,
    Date.now() + resumeTimeoutMs,
    (instance) => {
      if (!instance) throw new Error(`${name}: instance ${instanceId} disappeared while resuming`);
      if (instance.actual_status !== last?.actual_status) {
        progress(
          `instance ${instanceId}: ${instance.actual_status ?? "provisioning"}` +
            (instance.status_msg ? ` (${instance.status_msg})` : ""),
        );
      }
      last = instance;
      const status = instance.actual_status ?? "";
      if (status === "running") return instance;
      if ((deadEndStatuses as readonly string[]).includes(status)) {
        throw new Error(
          `${name}: instance ${instanceId} reached ${status} after its bid was raised to ` +
            `$${plan.dollarsPerHour}/h; it will not run`,
        );
      }
      const again = outbidBy(instance, plan.dollarsPerHour);
      if (again !== undefined) {
        throw new Error(
          outbidMessage(
            name,
            instanceId,
            plan.dollarsPerHour,
            again,
            `its bid was raised, then outbid again; the instance is kept, stopped`,
          ),
        );
      }
      return undefined;
    },
    run.cancellation.signal,
  ).catch((error: unknown) => {
    if (!(error instanceof CancelledError)) throw error;
    throw new Error(
      `${name}: cancelled: instance ${instanceId}'s bid was raised to ` +
        `$${plan.dollarsPerHour}/h; it was still ${last?.actual_status ?? "unknown"} (a refresh ` +
        `shows whether it runs again)`,
    );
  });
  if (running) return running;
  throw new Error(
    `${name}: instance ${instanceId}'s bid was raised to $${plan.dollarsPerHour}/h but it is ` +
      `still ${last?.actual_status ?? "unknown"} after ${resumeTimeoutMs / 60_000} minutes`,
  );
}
