import { deadEndStatuses, type Instance as InstanceWire, type InstanceState } from "../client";
import { watchInstance } from "../shared/polling";
import { CancelledError } from "../run/cancellation";
import type { Run } from "../run/run";
import type { InstanceInputs } from "./instance-inputs";

/** How long a stop or start may take before the update fails; the service usually needs seconds. */
const followTimeoutMs = 600_000;

/**
 * Asks the service to stop or start the instance and waits, bounded, until `actual_status`
 * follows. A stopped instance is not a dead end: its disk is kept and it can start again.
 */
export async function followState(
  run: Run,
  instanceId: number,
  state: InstanceState,
  inputs: Pick<InstanceInputs, "pollIntervalSeconds">,
  progress: (message: string) => void,
): Promise<InstanceWire> {
  progress(`${state === "stopped" ? "stopping" : "starting"} instance ${instanceId}`);
  await run.client.instances.setState(instanceId, state);
  return untilStatus(run, instanceId, state, inputs);
}

/**
 * Waits, bounded, until the instance's `actual_status` is `state`: after a stop or start, or a
 * container rebooted or rebuilt on its machine (which passes through rebooting or recycling).
 */
export async function untilStatus(
  run: Run,
  instanceId: number,
  state: InstanceState,
  inputs: Pick<InstanceInputs, "pollIntervalSeconds">,
): Promise<InstanceWire> {
  let last: InstanceWire | undefined;
  const reached = await watchInstance(
    run.client,
    instanceId,
    inputs.pollIntervalSeconds * 1000,
    Date.now() + followTimeoutMs,
    (instance): InstanceWire | undefined => {
      if (!instance) throw new Error(`instance ${instanceId} disappeared while ${state}`);
      last = instance;
      const status = instance.actual_status ?? "";
      if (status === state) return instance;
      if (state === "running" && (deadEndStatuses as readonly string[]).includes(status)) {
        throw new Error(`instance ${instanceId} reached ${status} while starting; it will not run`);
      }
      return undefined;
    },
    run.cancellation.signal,
  ).catch((error: unknown) => {
    if (!(error instanceof CancelledError)) throw error;
    throw new Error(
      `cancelled: instance ${instanceId} was asked to be ${state} and was still ` +
        `${last?.actual_status ?? "unknown"}; the service carries on, and a refresh shows where ` +
        `it got to`,
    );
  });
  if (reached) return reached;
  throw new Error(
    `instance ${instanceId} was asked to be ${state} but is still ` +
      `${last?.actual_status ?? "unknown"} after ${followTimeoutMs / 60_000} minutes`,
  );
}
