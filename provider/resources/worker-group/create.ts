import type * as pulumi from "@pulumi/pulumi";
import { GpuCloudError } from "../../client";
import { pollUntil } from "../../polling";
import { CancelledError } from "../../run/cancellation";
import type { Run } from "../../run/run";
import { fieldFailure } from "../../validation";
import type { WorkerGroupInputs } from "./inputs";
import { createOf, isAsSent } from "./wire";

// What create needs besides the request: check's look at the account, and the lost reply.

/**
 * What check can know only from the account: an endpoint that does not exist. When the account
 * cannot be read, check leaves it to the service's own refusal.
 */
export async function accountFailures(
  run: Run,
  inputs: WorkerGroupInputs,
): Promise<pulumi.dynamic.CheckFailure[]> {
  const endpoints = await run.client.endpoints.list().catch(() => undefined);
  if (!endpoints || endpoints.some((endpoint) => endpoint.id === inputs.endpointId)) return [];
  return [
    fieldFailure(
      "endpointId",
      `the account has no endpoint ${inputs.endpointId}; give an Endpoint's endpointId`,
    ),
  ];
}

/**
 * Creates the group. The create is never sent twice; when its reply is lost after it may have
 * reached the service, a group renting workers may exist: it is looked for (a group that was
 * not there before, created as asked) and taken, or the error says where to look.
 */
export async function createGroup(run: Run, inputs: WorkerGroupInputs): Promise<number> {
  const client = run.client;
  const fields = createOf(inputs);
  // The groups before the create, to tell a new one apart. Without this list a lost reply could
  // take an existing group as this create's (e.g. the one a replacement replaces): no create.
  const before = new Set((await client.workerGroups.list()).map((group) => group.id));
  try {
    return await client.workerGroups.create(fields);
  } catch (error) {
    if (!(error instanceof GpuCloudError && error.mayHaveCreated)) throw error;
    run.progress("the worker group's create reply was lost; looking for the group");
    const found = await pollUntil(
      async () =>
        (await client.workerGroups.list(new AbortController().signal).catch(() => []))
          .filter((group) => !before.has(group.id) && isAsSent(group, fields))
          .sort((a, b) => b.id - a.id)[0]?.id,
      {
        initialIntervalMs: 1_000,
        maxIntervalMs: 5_000,
        deadlineMs: Date.now() + 30_000,
        signal: run.cancellation.signal,
      },
    ).catch((cancelled: unknown) => {
      if (!(cancelled instanceof CancelledError)) throw cancelled;
      throw new Error(
        `${error.message}. Cancelled while looking for the group: one may exist and rent ` +
          `workers; look at endpoint ${inputs.endpointId}'s worker groups and delete it.`,
      );
    });
    if (found !== undefined) return found;
    throw new Error(
      `${error.message}. No new worker group of endpoint ${inputs.endpointId} was found: one ` +
        `may exist and rent workers; look at the account's worker groups and delete it.`,
    );
  }
}
