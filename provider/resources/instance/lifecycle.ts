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
import { reportProgress } from "../../provider-runtime";
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
  client: GpuCloudClient,
  askId: number,
  request: CreateInstanceRequest,
  /** The marker variables for a create token (see identity.ts). */
  markers: (token: string) => Record<string, string>,
  deadlineMs: number,
): Promise<number> {
  const token = randomUUID();
  try {
    return await client.instances.create(askId, {
      ...request,
      env: { ...request.env, ...markers(token) },
    });
  } catch (error) {
    if (!(error instanceof GpuCloudError && error.mayHaveCreated)) throw error;
    reportProgress(`the create reply was lost; looking for the instance by its create token`);
    const found = await pollUntil(
      async () =>
        // A failed look is only a failed look: keep looking until the deadline.
        (await client.instances.list().catch(() => [])).find(
          (instance) => environmentOf(instance)[createTokenVariable] === token,
        )?.id,
      {
        initialIntervalMs: 1_000,
        maxIntervalMs: 10_000,
        deadlineMs: Math.max(deadlineMs, Date.now() + 15_000),
      },
    );
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
): Promise<void> {
  if (inputs.stackToken === undefined) return;
  await client.instances.relabel(instanceId, inputs.label ?? "");
}

export type BootOutcome =
  | { kind: "running"; instance: InstanceWire }
  | { kind: "dead-end"; instance: InstanceWire }
  | { kind: "gone" }
  | { kind: "deadline"; instance: InstanceWire | undefined };

/**
 * Waits, through the shared status rounds, until the instance runs, reaches a dead end,
 * disappears, or the deadline passes.
 */
export async function waitUntilRunning(
  client: GpuCloudClient,
  instanceId: number,
  deadlineMs: number,
  pollIntervalSeconds: number,
  onStatus: (instance: InstanceWire) => void,
): Promise<BootOutcome> {
  let last: InstanceWire | undefined;
  const outcome = await watchInstance<BootOutcome>(
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
  );
  return outcome ?? { kind: "deadline", instance: last };
}

/** Destroys the instance and waits, bounded, until the service no longer shows it. */
export async function destroyAndConfirm(
  client: GpuCloudClient,
  instanceId: number,
  pollIntervalSeconds: number,
  timeoutMs = 120_000,
): Promise<boolean> {
  await client.instances.destroy(instanceId);
  const gone = await watchInstance(
    client,
    instanceId,
    pollIntervalSeconds * 1000,
    Date.now() + timeoutMs,
    (instance) => (instance === undefined ? true : undefined),
  );
  return gone === true;
}
