import { deadEndStatuses, type GpuCloudClient, type Instance as InstanceWire } from "../../client";
import { watchInstance } from "../../shared/polling";
import { CancelledError } from "../../run/cancellation";
import type { Run } from "../../run/run";
import type { InstanceInputs, InstanceOutputs } from "./inputs";

// An interruptible instance's bid: changed in place, and raised to win back a machine that a
// higher bid took (outbid).

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
  /** Still outbid, and the declared bid beats the winning one: raise it and wait. */
  | { kind: "raise"; dollarsPerHour: number; winning: number };

/**
 * Decides, before any write, what to do about an instance that refresh found outbid: the
 * instance is read again (the winning bid may have gone, or risen). When the declared bid is
 * not above the winning price, fails with one line saying why, having changed nothing.
 */
export async function planOutbid(
  client: GpuCloudClient,
  name: string,
  olds: InstanceOutputs,
  news: InstanceInputs,
): Promise<OutbidPlan> {
  const instance = await client.instances.show(olds.instanceId);
  const winning = instance && outbidBy(instance, olds.price);
  if (winning === undefined) return { kind: "settled", instance };
  if (news.price === undefined || news.price <= winning) {
    throw new Error(outbidMessage(name, olds.instanceId, news.price, winning));
  }
  return { kind: "raise", dollarsPerHour: news.price, winning };
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
