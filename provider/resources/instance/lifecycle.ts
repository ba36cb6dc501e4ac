import { randomUUID } from "node:crypto";
import {
  type CreateInstanceRequest,
  deadEndStatuses,
  environmentOf,
  GpuCloudError,
  type GpuCloudClient,
  type Instance as InstanceWire,
} from "../../client";
import { pollUntil, watchInstance } from "../../polling";
import { CancelledError, cleanupAfterCancelMs, neverCancelled } from "../../run/cancellation";
import type { Run } from "../../run/run";
import { createTokenVariable } from "./identity";
import type { InstanceInputs, InstanceOutputs } from "./inputs";

// One instance's life on the service: rent it, wait for it to run, destroy it.

/** A create that leaves an instance behind: Pulumi records it (with init errors) by this id. */
export class InstanceLeftBehindError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: InstanceOutputs,
    readonly reasons: string[],
  ) {
    super(message);
  }
}

/** A create whose reply was lost, and whose instance could not be found by its token. */
export class CreateOutcomeUnknownError extends Error {}

/**
 * Rents one instance. The create call is never retried; when its reply is lost after it may
 * have reached the service, the instance is looked for by this create's token instead, until
 * the create's deadline.
 */
export async function rentInstance(
  run: Run,
  askId: number,
  request: CreateInstanceRequest,
  /** The marker variables for a create token (see identity.ts). */
  markers: (token: string) => Record<string, string>,
  deadlineMs: number,
  /** Stops the rent while it waits for its turn (the engine's Cancel, or a group's stop). */
  stop: AbortSignal,
): Promise<number> {
  const client = run.client;
  const token = randomUUID();
  try {
    // A rent waiting for its turn (the service's rate limit) stops at a cancellation; one sent
    // is never aborted, its reply says which instance to destroy.
    return await client.instances.create(
      askId,
      { ...request, env: { ...request.env, ...markers(token) } },
      undefined,
      stop,
    );
  } catch (error) {
    if (!(error instanceof GpuCloudError && error.mayHaveCreated)) throw error;
    run.progress(`the create reply was lost; looking for the instance by its create token`);
    let found: number | undefined;
    try {
      found = await pollUntil(
        async () =>
          // A failed look is only a failed look: keep looking until the deadline.
          (await client.instances.list().catch(() => [])).find(
            (instance) => environmentOf(instance)[createTokenVariable] === token,
          )?.id,
        {
          initialIntervalMs: 1_000,
          maxIntervalMs: 10_000,
          deadlineMs: Math.max(deadlineMs, Date.now() + 15_000),
          signal: run.cancellation.signal,
        },
      );
    } catch (cancelled) {
      if (!(cancelled instanceof CancelledError)) throw cancelled;
      // Labelled as being created by this stack (identity.ts): the next run settles it.
      throw new CreateOutcomeUnknownError(
        `${error.message}. Cancelled while looking for the instance by ` +
          `${createTokenVariable}=${token}: one may exist in your account, labelled as being ` +
          `created by this stack; the next \`pulumi up\` adopts or destroys it.`,
      );
    }
    if (found !== undefined) return found;
    throw new CreateOutcomeUnknownError(
      `${error.message}. No instance with ${createTokenVariable}=${token} was found before the ` +
        `deadline: one may exist in your account; look for that variable and destroy it.`,
    );
  }
}

/**
 * Hands an instance over to the engine: it takes the program's label in place of the label it
 * was rented with (identity.ts), which no cleanup touches again. One request (retried: a
 * relabel is idempotent), only for instances rented with a stack token.
 */
export async function handOver(
  client: GpuCloudClient,
  instanceId: number,
  inputs: Pick<InstanceInputs, "label" | "stackToken">,
  signal?: AbortSignal,
): Promise<void> {
  if (inputs.stackToken === undefined) return;
  await client.instances.relabel(instanceId, inputs.label ?? "", signal);
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
 * Destroys the instance and waits, bounded, until the service no longer shows it. The wait
 * throws a CancelledError when the engine cancels the run: the destroy was sent by then, only
 * its confirmation is missing.
 */
export async function destroyAndConfirm(
  run: Run,
  instanceId: number,
  pollIntervalSeconds: number,
  timeoutMs = 120_000,
): Promise<boolean> {
  await run.client.instances.destroy(instanceId);
  const gone = await watchInstance(
    run.client,
    instanceId,
    pollIntervalSeconds * 1000,
    Date.now() + timeoutMs,
    (instance) => (instance === undefined ? true : undefined),
    run.cancellation.signal,
  );
  return gone === true;
}

/** Status reads while confirming a destroy after a cancellation, ms: the bound is short. */
const cleanupIntervalMs = 500;

/**
 * Destroys an instance the create rented, after the engine cancelled the operation, and
 * confirms it gone, all within `cleanupAfterCancelMs` (run/cancellation.ts says why that bound): the
 * destroy request and every status read are abandoned at the bound. Never throws: false when
 * the instance could not be confirmed gone in time.
 */
export async function destroyAfterCancel(
  client: GpuCloudClient,
  instanceId: number,
  boundMs = cleanupAfterCancelMs,
): Promise<boolean> {
  const deadlineMs = Date.now() + boundMs;
  try {
    await client.instances.destroy(instanceId, AbortSignal.timeout(boundMs));
    const gone = await watchInstance(
      client,
      instanceId,
      cleanupIntervalMs,
      deadlineMs,
      (instance) => (instance === undefined ? true : undefined),
      neverCancelled(),
    );
    return gone === true;
  } catch {
    return false;
  }
}

/**
 * Destroys an instance the create rented (a dead end, a refused hand-over) and confirms it gone:
 * as {@link destroyAndConfirm}, until the engine cancels the operation; from then on (or when it
 * is cancelled already) within the cleanup bound, by {@link destroyAfterCancel}.
 */
export async function destroyRented(
  run: Run,
  instanceId: number,
  pollIntervalSeconds: number,
): Promise<boolean> {
  if (!run.cancellation.isCancelled) {
    try {
      return await destroyAndConfirm(run, instanceId, pollIntervalSeconds);
    } catch (error) {
      if (!(error instanceof CancelledError)) throw error;
    }
  }
  return destroyAfterCancel(run.client, instanceId);
}
