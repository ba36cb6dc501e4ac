import { randomUUID } from "node:crypto";
import { type CreateInstanceRequest, environmentOf, type GpuCloudClient } from "../client";
import { recoverLostCreate } from "../shared/lost-create";
import type { Run } from "../run/run";
import { CreateOutcomeUnknownError } from "./errors";
import { createTokenVariable } from "./identity";
import type { InstanceInputs } from "./instance-inputs";

// The two requests that make an instance a stack's: the rent, and the hand-over once it runs.

/** One rent: the ask, what to launch, and how long it may take. */
export interface Rent {
  readonly askId: number;
  readonly request: CreateInstanceRequest;
  /** The marker variables for a create token (identity.ts `markersOf`). */
  readonly markers: (token: string) => Record<string, string>;
  readonly deadlineMs: number;
  /** Stops the rent while it waits for its turn (the engine's Cancel, or a group's stop). */
  readonly stop: AbortSignal;
}

/**
 * Rents one instance. The create call is never retried; when its reply is lost after it may
 * have reached the service, the instance is looked for by this create's token instead, until
 * the create's deadline.
 */
export async function rentInstance(run: Run, rent: Rent): Promise<number> {
  const client = run.client;
  const token = randomUUID();
  const { request } = rent;
  return recoverLostCreate({
    // A rent waiting for its turn (the service's rate limit) stops at a cancellation; one sent
    // is never aborted, its reply says which instance to destroy.
    create: () =>
      client.instances.create(
        rent.askId,
        { ...request, env: { ...request.env, ...rent.markers(token) } },
        undefined,
        rent.stop,
      ),
    // The instance carrying this create's token. A failed look is only a failed look: keep
    // looking until the deadline.
    findCreated: async () =>
      (await client.instances.list().catch(() => [])).find(
        (instance) => environmentOf(instance)[createTokenVariable] === token,
      )?.id,
    lookAgain: {
      announce: () => {
        run.progress(`the create reply was lost; looking for the instance by its create token`);
      },
      initialIntervalMs: 1_000,
      maxIntervalMs: 10_000,
      until: () => Math.max(rent.deadlineMs, Date.now() + 15_000),
      signal: run.cancellation.signal,
      // Labelled as being created by this stack (identity.ts): the next run settles it.
      cancelled: (lost) =>
        new CreateOutcomeUnknownError(
          `${lost.message}. Cancelled while looking for the instance by ` +
            `${createTokenVariable}=${token}: one may exist in your account, labelled as being ` +
            `created by this stack; the next \`pulumi up\` adopts or destroys it.`,
        ),
    },
    notFound: (lost) =>
      new CreateOutcomeUnknownError(
        `${lost.message}. No instance with ${createTokenVariable}=${token} was found before the ` +
          `deadline: one may exist in your account; look for that variable and destroy it.`,
      ),
  });
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
