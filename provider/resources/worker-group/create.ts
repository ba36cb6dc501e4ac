import type * as pulumi from "@pulumi/pulumi";
import { recoverLostCreate } from "../../shared/lost-create";
import type { Run } from "../../run/run";
import { fieldFailure } from "../../shared/validation";
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
  return recoverLostCreate({
    create: () => client.workerGroups.create(fields),
    // A group that was not there before, created as asked (the newest, should there be two).
    findCreated: async () =>
      (await client.workerGroups.list(new AbortController().signal).catch(() => []))
        .filter((group) => !before.has(group.id) && isAsSent(group, fields))
        .sort((a, b) => b.id - a.id)[0]?.id,
    lookAgain: {
      announce: () => {
        run.progress("the worker group's create reply was lost; looking for the group");
      },
      initialIntervalMs: 1_000,
      maxIntervalMs: 5_000,
      until: () => Date.now() + 30_000,
      signal: run.cancellation.signal,
      cancelled: (lost) =>
        new Error(
          `${lost.message}. Cancelled while looking for the group: one may exist and rent ` +
            `workers; look at endpoint ${inputs.endpointId}'s worker groups and delete it.`,
        ),
    },
    notFound: (lost) =>
      new Error(
        `${lost.message}. No new worker group of endpoint ${inputs.endpointId} was found: one ` +
          `may exist and rent workers; look at the account's worker groups and delete it.`,
      ),
  });
}
