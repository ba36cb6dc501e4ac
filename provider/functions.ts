import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import {
  ConnectionPools,
  type CurrentUser,
  type GpuCloudClient,
  type InstanceOffer,
  type InstanceOfferQuery,
  type InstanceListQuery,
  type InstanceQuery,
  type InstanceSummary,
  type TemplateQuery,
  type TemplateSummary,
  type VolumeOffer,
  type VolumeOfferQuery,
} from "./client";
import { templateSummaryOf } from "./client/templates";
import { instanceQuerySchema, instanceSummaryOf, listQueryOf } from "./client/instance-summaries";
import { clientFor, type ProviderConfig, resolveConfig, verifyConfiguration } from "./run/config";
import { once } from "./run/once";
import { describeIssue } from "./shared/validation";

// Functions run in the program's process, called by the program with nothing but their
// arguments: configuration comes from the stack's config (read raw, so a secret key is not
// echoed in a warning) or the environment. It is verified once per program run, like the
// providers' check does; a problem is a RunError, which the runtime prints as its message
// alone, without a stack trace. The calls share the verification's connections; each has a
// client of its own.
const programService = once(
  async (): Promise<{ config: ProviderConfig; pools: ConnectionPools }> => {
    let config: ProviderConfig;
    try {
      config = resolveConfig({ get: (key) => pulumi.runtime.getConfig(key) });
    } catch (error) {
      throw new pulumi.RunError(error instanceof Error ? error.message : String(error));
    }
    const pools = new ConnectionPools();
    const problem = await verifyConfiguration(config, pools);
    if (problem !== undefined) throw new pulumi.RunError(problem);
    return { config, pools };
  },
);

async function programClient(): Promise<GpuCloudClient> {
  const { config, pools } = await programService();
  return clientFor(config, { pools });
}

/**
 * The account behind the configured API key (calling it also verifies the key): id, email,
 * credit, balance, the id of the API key in use and whether an SSH key is registered. Never the
 * key material or an API key.
 */
export function getCurrentUser(): pulumi.Output<CurrentUser> {
  return pulumi.output(programClient().then((client) => client.users.current()));
}

/** An instance id, as a number or its digits. */
const dstIdSchema = z.union(
  [z.number().int().positive(), z.string().regex(/^[1-9][0-9]*$/, "the digits of an instance id")],
  { error: "an instance id: a positive whole number, or its digits as a string" },
);

/**
 * Cancels the rsync copy running into instance `dstId`. Rejects with the service's message
 * (`Invalid dst_id.` or `Remote instance does not have an open port`) when it cannot. During a
 * preview it checks its argument and the configuration, sends nothing and resolves: a preview
 * changes nothing.
 */
export async function cancelRsyncCopy(dstId: string | number): Promise<void> {
  const checked = checkedDstId(dstId);
  const client = await programClient();
  if (pulumi.runtime.isDryRun()) return;
  await client.commands.cancelRsyncCopy(checked);
}

/**
 * cancelRsyncCopy's argument, checked (shared with the native plugin's Invoke): the instance
 * id's digits, or a RunError naming what is wrong.
 */
export function checkedDstId(dstId: unknown): string {
  const parsed = dstIdSchema.safeParse(dstId);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const why = issue ? describeIssue(issue, dstId) : "invalid";
    throw new pulumi.RunError(`cancelRsyncCopy: dstId: ${why}`);
  }
  return String(parsed.data);
}

/**
 * Instance offers matching `query`, cheapest first unless its `order` says otherwise: a typed
 * object (`{ gpuName: "RTX 4090", gpuRamGb: { gte: 24 }, dollarsPerHour: { lte: 0.6 } }`) or the
 * official client's string (`"gpu_name=RTX_4090 num_gpus>=2 dph<0.6"`). A malformed query
 * rejects naming the field or token, and sends nothing. Offers the service answers that do not
 * match the query are left out.
 */
export function getOffers(query: InstanceOfferQuery | string = {}): pulumi.Output<InstanceOffer[]> {
  return pulumi.output(programClient().then((client) => client.searchOffers(query)));
}

/** Volume offers matching `query` (e.g. `{ diskSpaceGb: { gte: 100 }, geolocation: "US" }`). */
export function getVolumeOffers(
  query: VolumeOfferQuery | string = {},
): pulumi.Output<VolumeOffer[]> {
  return pulumi.output(programClient().then((client) => client.searchVolumeOffers(query)));
}

/**
 * Templates matching `query`: the account's own and others' public ones. Each field of the
 * templates guide (creatorId, name, image, tag, hashId, templateId, recommended, useSsh,
 * sshDirect, jupyterDirect, countCreated, createdAt, recentCreateDate, diskGb, defaultTag,
 * dockerLoginRepo) is a plain value (meaning `eq`) or an operator object (eq, neq, lt, lte, gt,
 * gte, in, notin); `orderBy` names the field to sort by. A malformed query rejects naming the
 * field, and sends nothing. Summaries never carry a registry password.
 */
export function getTemplates(query: TemplateQuery = {}): pulumi.Output<TemplateSummary[]> {
  return pulumi.output(
    programClient().then(async (client) =>
      (await client.templates.find(query)).map(templateSummaryOf),
    ),
  );
}

/**
 * The account's instances, or those matching `query`, as summaries (instanceId, label,
 * actualStatus, gpuName, numGpus, gpuRamMb, dollarsPerHour, sshHost, ...): never an instance's
 * environment or onstart script, nor any credential. Filters are camelCase fields of the list
 * (`{ actualStatus: "running", label: { in: ["a", "b"] }, gpuName: "RTX 4090" }`), each a
 * plain value (meaning `eq`) or an operator object (eq, neq, gt, gte, lt, lte, in, notin), with
 * `selectFilters` for other columns in the list's own names and `orderBy` to sort. A malformed
 * query rejects naming the field, and sends nothing.
 */
export function getInstances(query: InstanceQuery = {}): pulumi.Output<InstanceSummary[]> {
  let listQuery: InstanceListQuery;
  try {
    listQuery = checkedInstanceQuery(query);
  } catch (error) {
    return pulumi.output(Promise.reject(error as Error));
  }
  return pulumi.output(
    programClient().then(async (client) =>
      (await client.instances.list(listQuery)).map(instanceSummaryOf),
    ),
  );
}

/**
 * getInstances's query, checked and turned into the list's query (shared with the native
 * plugin's Invoke), or a RunError naming the field.
 */
export function checkedInstanceQuery(query: unknown): InstanceListQuery {
  const parsed = instanceQuerySchema.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join(".") || "query";
    let received: unknown = query;
    for (const key of issue?.path ?? []) {
      received =
        typeof received === "object" && received !== null
          ? (received as Record<PropertyKey, unknown>)[key]
          : undefined;
    }
    const why = issue ? describeIssue(issue, received) : "invalid";
    throw new pulumi.RunError(`getInstances: ${field}: ${why}`);
  }
  return listQueryOf(parsed.data);
}
