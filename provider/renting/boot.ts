import {
  deadEndStatuses,
  type GpuCloudClient,
  type InstanceOffer,
  type Instance as InstanceWire,
} from "../client";
import { watchInstance } from "../shared/polling";
import { CancelledError } from "../run/cancellation";
import { askOf, type AttemptSource, describeAttempts, type InstanceCreate } from "./attempts";
import { destroyAfterCancel, destroyRented } from "./destroy";
import { InstanceLeftBehindError } from "./errors";
import type { InstanceAttempt, InstanceOutputs } from "./instance-inputs";
import { connectionOutputs, offerShownBy } from "./instance-shown";
import { expiresAtShownBy } from "./lifetime";
import { expiresAtOf } from "../shared/expiry-watchdog";
import { followState } from "./power";
import { type ReadyOutcome, waitUntilReady } from "./readiness";

// The boot of an attempt's instance, and what its outcome leaves: a running instance (stopped
// first when the program asks), or one destroyed (or recorded, when it cannot be) so that the
// next attempt may start.

/** An instance rented and running (or stopped, as asked), with the outputs to record. */
export type Created = { id: string; outs: InstanceOutputs };

/** How an attempt ended: its instance runs, another attempt may follow, or none may. */
export type AttemptEnd = { created: Created } | "next attempt" | "no more attempts";

/**
 * Waits for the attempt's instance to boot, then keeps it (running as asked) or discards it;
 * a cancelled boot destroys it and throws.
 */
export async function bootAttempt(
  create: InstanceCreate,
  number: number,
  source: AttemptSource,
  instanceId: number,
): Promise<AttemptEnd> {
  const attempt: InstanceAttempt & { instanceId: number } = { askId: askOf(source), instanceId };
  create.attempts.push(attempt);
  create.progress(
    `attempt ${number} of ${create.inputs.maxAttempts}: instance ${instanceId} from ask ${attempt.askId}, waiting for running`,
  );
  const outcome = await awaitBoot(create, attempt);
  const offer = "offer" in source ? source.offer : undefined;
  const outs = outputsAfterBoot(create, instanceId, outcome, offer);
  if (outcome.kind === "cancelled") return endCancelledBoot(create, attempt, outs);
  if (outcome.kind === "running") {
    create.progress(`instance ${instanceId} is running (attempt ${number})`);
    const ready = await awaitReadiness(create, attempt, outcome.instance);
    if (ready.kind === "ready") {
      const readyOuts = outputsAfterBoot(
        create,
        instanceId,
        { kind: "running", instance: ready.instance },
        offer,
      );
      return { created: await runningAsAsked(create, instanceId, readyOuts) };
    }
    if (ready.kind === "cancelled") return endCancelledBoot(create, attempt, outs);
    // Never ready: a dead end like `exited`, destroyed so that another offer may be tried.
    const neverReady = { kind: "dead-end", instance: ready.instance } as const;
    await discardFailedBoot(create, attempt, neverReady, outs, "not ready");
    if (!ready.createDeadline) return "next attempt";
    create.reason = `the ${create.inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
    return "no more attempts";
  }
  await discardFailedBoot(create, attempt, outcome, outs);
  if (outcome.kind !== "deadline") return "next attempt";
  if (create.reason.startsWith("every")) {
    create.reason = `the ${create.inputs.createTimeoutSeconds} s createTimeoutSeconds deadline passed`;
  }
  return "no more attempts";
}

export type BootOutcome =
  | { kind: "running"; instance: InstanceWire }
  | { kind: "dead-end"; instance: InstanceWire }
  | { kind: "gone" }
  | { kind: "deadline"; instance: InstanceWire | undefined }
  /** The engine cancelled the operation (run/cancellation.ts) while the instance booted. */
  | { kind: "cancelled"; instance: InstanceWire | undefined };

/**
 * Waits, through the shared status rounds, until the instance runs, reaches a dead end,
 * disappears, the deadline passes, or the engine cancels the operation.
 */
export async function waitUntilRunning(
  client: GpuCloudClient,
  instanceId: number,
  deadlineMs: number,
  pollIntervalSeconds: number,
  onStatus: (instance: InstanceWire) => void,
  signal: AbortSignal,
): Promise<BootOutcome> {
  let last: InstanceWire | undefined;
  let outcome: BootOutcome | undefined;
  try {
    outcome = await watchInstance<BootOutcome>(
      client,
      instanceId,
      pollIntervalSeconds * 1000,
      deadlineMs,
      (instance) => {
        if (!instance) return { kind: "gone" };
        if (instance.actual_status !== last?.actual_status) onStatus(instance);
        last = instance;
        const status = instance.actual_status ?? "";
        if (status === "running") return { kind: "running", instance };
        if ((deadEndStatuses as readonly string[]).includes(status)) {
          return { kind: "dead-end", instance };
        }
        return undefined;
      },
      signal,
    );
  } catch (error) {
    if (error instanceof CancelledError) return { kind: "cancelled", instance: last };
    throw error;
  }
  return outcome ?? { kind: "deadline", instance: last };
}

/**
 * With `readiness`: waits for its check once the instance runs (readiness.ts). A check that
 * never passes leaves its last answer in the attempt's error; a failed logs read counts as one
 * failed check, a failed status read ends the wait.
 */
async function awaitReadiness(
  create: InstanceCreate,
  attempt: InstanceAttempt & { instanceId: number },
  running: InstanceWire,
): Promise<ReadyOutcome> {
  const { readiness } = create.inputs;
  if (readiness === undefined) return { kind: "ready", instance: running };
  const seconds = readiness.timeoutSeconds ?? 600;
  try {
    const ready = await waitUntilReady(
      {
        client: create.run.client,
        instanceId: attempt.instanceId,
        readiness,
        deadlineMs: create.deadlineMs,
        signal: create.stop,
        progress: create.progress,
      },
      running,
    );
    if (ready.kind === "not ready") attempt.error = notReadyError(ready, seconds);
    return ready;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    attempt.error = `the readiness check failed: ${why}`;
    return { kind: "not ready", instance: running, answer: why, createDeadline: false };
  }
}

/** Why an attempt's instance was not ready: the check's timeout, create's, or its status. */
function notReadyError(
  ready: { answer: string; createDeadline: boolean },
  seconds: number,
): string {
  if (ready.answer.startsWith("the instance is ")) return `not ready: ${ready.answer}`;
  const bound = ready.createDeadline
    ? "when create's deadline (createTimeoutSeconds) passed"
    : `after the ${seconds} s readiness timeout`;
  return `not ready ${bound}; the last check answered: ${ready.answer}`;
}

/** Waits for the attempt's instance to boot; a failed wait counts as its deadline. */
export async function awaitBoot(
  create: InstanceCreate,
  attempt: InstanceAttempt & { instanceId: number },
): Promise<BootOutcome> {
  const { instanceId } = attempt;
  try {
    return await waitUntilRunning(
      create.run.client,
      instanceId,
      create.deadlineMs,
      create.inputs.pollIntervalSeconds,
      (instance) => {
        create.progress(
          `instance ${instanceId}: ${instance.actual_status ?? "provisioning"}` +
            (instance.status_msg ? ` (${instance.status_msg})` : ""),
        );
      },
      create.stop,
    );
  } catch (error) {
    attempt.error = error instanceof Error ? error.message : String(error);
    create.reason = "polling the instance failed";
    return { kind: "deadline", instance: undefined };
  }
}

/** The instance's outputs after its boot, whatever the outcome. */
export function outputsAfterBoot(
  create: InstanceCreate,
  instanceId: number,
  outcome: BootOutcome,
  offer: InstanceOffer | undefined,
): InstanceOutputs {
  const shown = outcome.kind === "gone" ? undefined : outcome.instance;
  const recordedOffer = offer ?? offerShownBy(shown);
  // An adopted leftover keeps the deadline its own watchdog counts down to.
  const expiresAt =
    create.expiry === undefined
      ? undefined
      : (expiresAtShownBy(shown) ?? expiresAtOf(create.expiry));
  return {
    ...create.inputs,
    instanceId,
    ...connectionOutputs(shown, create.overlaySubnet),
    attempts: create.attempts,
    ...(recordedOffer === undefined ? {} : { offer: recordedOffer }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
}

/**
 * A boot the engine cancelled (or a group stopped after a sibling failed): the instance is
 * destroyed within the cleanup bound and the create fails saying so; one that cannot be
 * confirmed gone in time is recorded (never left unrecorded). Always throws.
 */
export async function endCancelledBoot(
  create: InstanceCreate,
  attempt: InstanceAttempt & { instanceId: number },
  outs: InstanceOutputs,
): Promise<never> {
  const { instanceId } = attempt;
  const status = outs.actualStatus ?? "provisioning";
  attempt.lastStatus = status;
  attempt.error = "cancelled";
  if (create.witness === true) leaveWitness(create, instanceId, "its boot was stopped");
  create.progress(`cancelled: destroying instance ${instanceId} (${status})`);
  const destroyed = await destroyAfterCancel(create.run.client, instanceId);
  // One that may remain stays unrecorded until its caller records it: a cleanup meanwhile
  // (the engine gone) still knows of it, and a group's witness waits for it.
  if (destroyed) create.unrecorded.delete(instanceId);
  if (destroyed) {
    throw new Error(
      `${create.name}: cancelled: instance ${instanceId} destroyed; nothing is left running.\n` +
        describeAttempts(create.attempts),
    );
  }
  const message =
    `${create.name}: cancelled: instance ${instanceId} (${status}) could not be confirmed ` +
    `destroyed in time; it is kept in the stack so that a later \`pulumi up\` or ` +
    `\`pulumi destroy\` deals with it.\n` +
    describeAttempts(create.attempts);
  throw new InstanceLeftBehindError(message, String(instanceId), outs, [message]);
}

/** A running instance, stopped first when the program asks for `state: stopped`. */
export async function runningAsAsked(
  create: InstanceCreate,
  instanceId: number,
  outs: InstanceOutputs,
): Promise<Created> {
  if (create.inputs.state !== "stopped") return { id: String(instanceId), outs };
  try {
    const stopped = await followState(
      create.run,
      instanceId,
      "stopped",
      create.inputs,
      create.progress,
    );
    return {
      id: String(instanceId),
      outs: { ...outs, ...connectionOutputs(stopped, create.overlaySubnet) },
    };
  } catch (error) {
    // Running but not stopped: recorded all the same, and the next up stops it.
    const message = `${create.name}: instance ${instanceId} runs but could not be stopped: ${String(error)}`;
    throw new InstanceLeftBehindError(message, String(instanceId), { ...outs, state: "running" }, [
      message,
    ]);
  }
}

/**
 * An instance that will not run (a dead end, gone, the deadline): destroyed and confirmed gone,
 * so that the next attempt may start; one that cannot be destroyed is recorded (throws).
 */
export async function discardFailedBoot(
  create: InstanceCreate,
  attempt: InstanceAttempt & { instanceId: number },
  outcome: Exclude<BootOutcome, { kind: "running" | "cancelled" }>,
  outs: InstanceOutputs,
  /** What the attempt reports, when not the status shown (`not ready`: its check never passed). */
  lastStatus?: string,
): Promise<void> {
  const { instanceId } = attempt;
  attempt.lastStatus =
    lastStatus ?? (outcome.kind === "gone" ? "gone" : (outs.actualStatus ?? "provisioning"));
  if (outs.statusMessage) attempt.statusMessage = outs.statusMessage;
  if (create.witness === true) {
    leaveWitness(create, instanceId, `it did not reach running (${attempt.lastStatus})`);
  }
  if (outcome.kind === "gone") {
    create.unrecorded.delete(instanceId);
    return;
  }
  create.progress(`instance ${instanceId} will not run (${attempt.lastStatus}); destroying it`);
  let destroyed = false;
  try {
    destroyed = await destroyRented(create.run, instanceId, create.inputs.pollIntervalSeconds);
  } catch (error) {
    attempt.error = error instanceof Error ? error.message : String(error);
  }
  // As at a cancelled boot: one that may remain stays unrecorded until its caller records it.
  if (destroyed) {
    create.unrecorded.delete(instanceId);
    return;
  }
  const why = attempt.lastStatus === "not ready" ? "was not ready" : "did not reach running";
  const message =
    `${create.name}: instance ${instanceId} ${why} and could not be destroyed; it is ` +
    `kept in the stack so that a later \`pulumi up\` or \`pulumi destroy\` deals with it.\n` +
    describeAttempts(create.attempts);
  throw new InstanceLeftBehindError(message, String(instanceId), outs, [message]);
}

/**
 * A group create's witness whose boot did not end running (attempts.ts `witness`): neither
 * destroyed nor replaced here, since destroying it first would leave the other nodes with
 * nothing that proves them leftovers. The create fails; the instance stays unrecorded for the
 * group, which destroys it after every other node. Always throws.
 */
function leaveWitness(create: InstanceCreate, instanceId: number, why: string): never {
  throw new Error(
    `${create.name}: instance ${instanceId}, the group create's witness, is not running: ${why}; ` +
      `it is not replaced, the group is taken apart (the witness last).\n` +
      describeAttempts(create.attempts),
  );
}
