import type * as pulumi from "@pulumi/pulumi";
import { output } from "@pulumi/pulumi/output";
import { RunError } from "@pulumi/pulumi/errors";
import { getConfig } from "@pulumi/pulumi/runtime/config";
import { isDryRun } from "@pulumi/pulumi/runtime/settings";
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
import { templateSummaryOf } from "./client/template-summaries";
import {
  type Charges,
  type ChargesRequest,
  chargesOf,
  chargesRequestSchema,
  type Invoices,
  type InvoicesRequest,
  invoicesOf,
  invoicesRequestSchema,
} from "./client/charge-summaries";
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
      config = resolveConfig({ get: (key) => getConfig(key) });
    } catch (error) {
      throw new RunError(error instanceof Error ? error.message : String(error));
    }
    const pools = new ConnectionPools();
    const problem = await verifyConfiguration(config, pools);
    if (problem !== undefined) throw new RunError(problem);
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
  return output(programClient().then((client) => client.users.current()));
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
  if (isDryRun()) return;
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
    throw new RunError(`cancelRsyncCopy: dstId: ${why}`);
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
  return output(programClient().then((client) => client.searchOffers(query)));
}

/** Volume offers matching `query` (e.g. `{ diskSpaceGb: { gte: 100 }, geolocation: "US" }`). */
export function getVolumeOffers(
  query: VolumeOfferQuery | string = {},
): pulumi.Output<VolumeOffer[]> {
  return output(programClient().then((client) => client.searchVolumeOffers(query)));
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
  return output(
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
    return output(Promise.reject(error as Error));
  }
  return output(
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
  return listQueryOf(checked("getInstances", "query", instanceQuerySchema, query));
}

/**
 * A function's arguments, checked (`root` names them when the whole is wrong), or a RunError
 * naming the field and what is wrong, never quoting what was given.
 */
function checked<S extends z.ZodType>(
  fn: string,
  root: string,
  schema: S,
  args: unknown,
): z.output<S> {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join(".") || root;
  let received: unknown = args;
  for (const key of issue?.path ?? []) {
    received =
      typeof received === "object" && received !== null
        ? (received as Record<PropertyKey, unknown>)[key]
        : undefined;
  }
  const why = issue ? describeIssue(issue, received) : "invalid";
  throw new RunError(`${fn}: ${field}: ${why}`);
}

/** Each argument, and each item of a list, may be a value, a promise or another resource's output. */
export type InputsOf<T> = {
  [K in keyof T]: T[K] extends readonly (infer Item)[] | undefined
    ? pulumi.Input<pulumi.Input<Item>[]> | Extract<T[K], undefined>
    : pulumi.Input<T[K]>;
};

/** getCharges's arguments, checked (shared with the native plugin's Invoke). */
export function checkedChargesRequest(args: unknown): z.output<typeof chargesRequestSchema> {
  return checked("getCharges", "arguments", chargesRequestSchema, args);
}

/** getInvoices's arguments, checked (shared with the native plugin's Invoke). */
export function checkedInvoicesRequest(args: unknown): z.output<typeof invoicesRequestSchema> {
  return checked("getInvoices", "arguments", invoicesRequestSchema, args);
}

/**
 * What the account was billed on a range of UTC days, per contract (an instance or a volume),
 * with its charges by type (GPU time, storage, bandwidth) and `totalDollars`: `since` and
 * `until` (today when absent) are dates (`"2026-01-31"`) or times, whose whole day counts.
 * `instanceIds` (an Instance's `instanceId`, a NodeGroup's nodes' `instanceId`s), `volumeIds`,
 * `types` and `labels` keep only those contracts. Each argument may be another resource's
 * output. Bad arguments reject naming the field, and send nothing.
 */
export function getCharges(args: InputsOf<ChargesRequest>): pulumi.Output<Charges> {
  return output(args).apply(async (resolved) => {
    const request = checkedChargesRequest(resolved);
    const client = await programClient();
    return chargesOf(client.billing, request, Date.now());
  });
}

/**
 * The account's invoices (credit purchases, transfers, payouts) made on a range of UTC days,
 * newest first, optionally of some payment `services` only.
 */
export function getInvoices(args: InputsOf<InvoicesRequest>): pulumi.Output<Invoices> {
  return output(args).apply(async (resolved) => {
    const request = checkedInvoicesRequest(resolved);
    const client = await programClient();
    return invoicesOf(client.billing, request, Date.now());
  });
}
