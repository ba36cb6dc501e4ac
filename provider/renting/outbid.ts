import { deadEndStatuses, type Instance as InstanceWire } from "../client";
import { CancelledError } from "../run/cancellation";
import type { Run } from "../run/run";
import { watchInstance } from "../shared/polling";
import { type FieldFailure, fieldFailure } from "../shared/validation";
import { type OnOutbid, raisedBid } from "./outbid-inputs";

// What an Instance and a NodeGroup's nodes share about bids: whether a higher bid took an
// instance's machine (outbid), the bid that wins it back, and raising it.

/** How long an outbid instance may take to run again once its bid is raised. */
const resumeTimeoutMs = 600_000;

/** The inputs the bid that wins a machine back rests on. */
export interface BidInputs {
  readonly price?: number | undefined;
  readonly onOutbid?: OnOutbid | undefined;
  readonly maxBidDollarsPerHour?: number | undefined;
}

/** A ceiling needs a bid to raise, and is one it may raise to; raise needs a ceiling. */
export function bidInputFailures(inputs: BidInputs): FieldFailure[] {
  const failures: FieldFailure[] = [];
  if (inputs.maxBidDollarsPerHour !== undefined && inputs.price === undefined) {
    failures.push(fieldFailure("maxBidDollarsPerHour", "caps a bid: give price with it"));
  } else if ((inputs.maxBidDollarsPerHour ?? Infinity) < (inputs.price ?? 0)) {
    failures.push(fieldFailure("maxBidDollarsPerHour", "must be at least price"));
  }
  if (inputs.onOutbid === "raise" && inputs.maxBidDollarsPerHour === undefined) {
    failures.push(
      fieldFailure("onOutbid", "raise needs maxBidDollarsPerHour, the highest bid it may set"),
    );
  }
  return failures;
}

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
function outbidMessage(
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

/** The bid that wins the machine back from `winning`: `price` when above it, else a raise. */
export function winningBid(news: BidInputs, winning: number): number | undefined {
  if (news.price !== undefined && news.price > winning) return news.price;
  if (news.onOutbid !== "raise" || news.maxBidDollarsPerHour === undefined) return undefined;
  return raisedBid(winning, news.maxBidDollarsPerHour);
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
