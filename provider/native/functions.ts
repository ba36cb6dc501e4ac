import { z } from "zod";
import type { GpuCloudClient } from "../client";
import { instanceSummaryOf, instanceSummarySchema } from "../client/instance-summaries";
import { instanceOfferOutputSchema, volumeOfferOutputSchema } from "../client/offer-schemas";
import { templateSummaryOf, templateSummarySchema } from "../client/template-summaries";
import { chargesOf, chargesSchema, invoicesOf, invoicesSchema } from "../client/charge-summaries";
import {
  checkedChargesRequest,
  checkedDstId,
  checkedInstanceQuery,
  checkedInvoicesRequest,
} from "../functions";
import type { QueryMarket } from "../shared/input-fields";
import { declared, ref, withExample } from "../shared/reference-examples";
import {
  instanceExample,
  type InstanceInputs,
  type InstanceOutputs,
} from "../resources/instance/inputs";

/**
 * The package's functions as the plugin's Invoke serves them: each calls what the TypeScript
 * function of the same name calls (provider/functions.ts), with the plugin's configured client.
 * A Pulumi function takes and returns an object: the TypeScript function's positional argument
 * is the property `query` (or `dstId`), and a list it returns is the property of the result
 * named after it (`offers`, `templates`, `instances`).
 */
export interface NativeFunction {
  readonly name: string;
  readonly description: string;
  readonly inputs: z.ZodObject;
  readonly outputs: z.ZodObject;
  run(client: GpuCloudClient, args: Record<string, unknown>, preview: boolean): Promise<object>;
}

/** An offer search's query: an object of fields or the official client's string. */
const offerQuery = (market: QueryMarket, example: string, options: string, absent: string) =>
  z
    .union([z.string(), z.record(z.string(), z.unknown())])
    .meta({ pulumiQuery: market })
    .describe(
      `The query: an object of fields, each a plain value (meaning eq) or conditions ` +
        `(eq, neq, gt, gte, lt, lte, in, notin), e.g. ${example}, with ${options}; or the ` +
        `official client's query string. Absent: ${absent}.`,
    )
    .optional();

/** A range of UTC days, as getCharges and getInvoices take it. */
const dayRange = {
  since: z
    .string()
    .describe(
      "The first day counted: a date (`2026-01-31`), or an ISO 8601 time with its zone, whose " +
        "UTC day counts.",
    ),
  until: z
    .string()
    .describe("The last day counted, written as `since`; absent: today (UTC).")
    .optional(),
};

/** The arguments given: an SDK may send an unset one as null. */
const given = (args: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(args).filter(([, value]) => value !== null && value !== undefined),
  );

/** A query as given: an object or a string; absent means everything. */
const queryOf = (args: Record<string, unknown>): Record<string, unknown> | string => {
  const value = args["query"];
  return typeof value === "string" || (typeof value === "object" && value !== null)
    ? (value as Record<string, unknown> | string)
    : {};
};

export const nativeFunctions: readonly NativeFunction[] = [
  {
    name: "getOffers",
    description:
      "Instance offers matching query (an OfferQuery, e.g. an RTX 4090 with at least 24 GB of " +
      'GPU RAM, or the official client\'s query string, e.g. `"gpu_name=RTX_4090 num_gpus=1"`), ' +
      "cheapest first unless its order says " +
      "otherwise. Offers the service answers that do not match the query are left out.",
    inputs: withExample(
      z.object({
        query: offerQuery(
          "instance",
          "an RTX 4090 with at least 24 GB of GPU RAM",
          "order, limit and type (on-demand, the default, or interruptible: prices are then the " +
            "minimum bids)",
          "every verified, rentable, unrented offer that is not external",
        ),
      }),
      { inputs: { query: { gpuName: "RTX 4090", gpuRamGb: { gte: 24 } } } },
    ),
    outputs: z.object({
      offers: z
        .array(instanceOfferOutputSchema)
        .describe("The matching offers, in the query's order (cheapest first by default)."),
    }),
    run: async (client, args) => ({ offers: await client.searchOffers(queryOf(args)) }),
  },
  {
    name: "getVolumeOffers",
    description:
      "Volume offers matching query (a VolumeOfferQuery, e.g. at least 100 GB of disk space, or " +
      "the official client's query string).",
    inputs: withExample(
      z.object({
        query: offerQuery(
          "volume",
          "at least 100 GB of disk space in the US",
          "order and limit",
          "every offer",
        ),
      }),
      { inputs: { query: { diskSpaceGb: { gte: 100 } } } },
    ),
    outputs: z.object({
      offers: z
        .array(volumeOfferOutputSchema)
        .describe(
          "The matching offers, in the query's order (cheapest per gigabyte-month first by " +
            "default).",
        ),
    }),
    run: async (client, args) => ({ offers: await client.searchVolumeOffers(queryOf(args)) }),
  },
  {
    name: "getCurrentUser",
    description:
      "The account behind the configured API key: id, email, credit, balance, the id of the " +
      "key in use and whether an SSH key is registered. Never the key itself.",
    inputs: z.object({}),
    outputs: z.object({
      id: z.number().int().describe("The account's id."),
      email: z.string().describe("The account's email address."),
      credit: z.number().describe("The account's credit, in dollars."),
      balance: z
        .number()
        .nullable()
        .describe("What the account owes, as the service reports it (absent when it does not)."),
      keyId: z
        .number()
        .int()
        .nullable()
        .describe(
          "The id of the API key in use (an ApiKey's `apiKeyId`), never the key itself; absent " +
            "when the service does not say.",
        ),
      hasSshKey: z
        .boolean()
        .describe("Whether the account has an SSH public key registered (a VM needs one)."),
    }),
    run: (client) => client.users.current(),
  },
  {
    name: "cancelRsyncCopy",
    description:
      "Cancels the rsync copy running into instance dstId. During a preview it checks its " +
      "argument and sends nothing.",
    inputs: withExample(
      z.object({
        dstId: z
          .union([z.number().int(), z.string()])
          .describe(
            "The id of the instance the copy runs into: a positive whole number, or its digits.",
          ),
      }),
      {
        // A copy runs into a running instance: the example rents one (none runs into it, and
        // cancelling nothing succeeds).
        needs: [declared<InstanceInputs>("Instance", "instance", instanceExample)],
        inputs: { dstId: ref<InstanceOutputs>("instance", "instanceId") },
      },
    ),
    outputs: z.object({}),
    run: async (client, args, preview) => {
      const dstId = checkedDstId(args["dstId"]);
      if (!preview) await client.commands.cancelRsyncCopy(dstId);
      return {};
    },
  },
  {
    name: "getTemplates",
    description:
      "Templates matching query: the account's own and others' public ones. Summaries never " +
      "carry a registry password.",
    inputs: withExample(
      z.object({
        query: z
          .record(z.string(), z.unknown())
          .describe(
            "The query: template search fields (creatorId, name, image, tag, hashId, templateId, " +
              "recommended, useSsh, sshDirect, jupyterDirect, countCreated, createdAt, " +
              "recentCreateDate, diskGb, defaultTag, dockerLoginRepo), each a plain value " +
              "(meaning eq) or an operator object (eq, neq, lt, lte, gt, gte, in, notin), and " +
              "orderBy, the field to sort by.",
          )
          .optional(),
      }),
      { inputs: { query: { useSsh: true } } },
    ),
    outputs: z.object({
      templates: z.array(templateSummarySchema).describe("The matching templates."),
    }),
    run: async (client, args) => ({
      templates: (await client.templates.find(queryOf(args) as object)).map(templateSummaryOf),
    }),
  },
  {
    name: "getInstances",
    description:
      "The account's instances, or those matching query, as summaries: never an instance's " +
      "environment or onstart script, nor any credential.",
    inputs: withExample(
      z.object({
        query: z
          .record(z.string(), z.unknown())
          .describe(
            "The query: the list's fields (instanceId, label, actualStatus, intendedStatus, " +
              "gpuName, machineId, hostId, image, geolocation, diskGb, templateHashId), each a " +
              "plain value (meaning eq) or an operator object (eq, neq, gt, gte, lt, lte, in, " +
              "notin); selectFilters for other columns in the list's own names; orderBy, a list " +
              "of [field, asc or desc] pairs. Absent: every instance of the account.",
          )
          .optional(),
      }),
      { inputs: { query: { actualStatus: "running" } } },
    ),
    outputs: z.object({
      instances: z
        .array(instanceSummarySchema)
        .describe("The matching instances, ordered by id unless orderBy says otherwise."),
    }),
    run: async (client, args) => {
      const listQuery = checkedInstanceQuery(args["query"] ?? {});
      return { instances: (await client.instances.list(listQuery)).map(instanceSummaryOf) };
    },
  },
  {
    name: "getCharges",
    description:
      "What the account was billed on a range of UTC days, per contract (an instance or a " +
      "volume), with its charges by type (GPU time, storage, bandwidth) and the total. " +
      "instanceIds (an Instance's instanceId, a NodeGroup's nodes' instanceIds), volumeIds, " +
      "types and labels keep only those contracts.",
    inputs: withExample(
      z.object({
        ...dayRange,
        instanceIds: z
          .array(z.number().int())
          .describe(
            "Only these instances' charges: an Instance's `instanceId`, a NodeGroup's nodes'.",
          )
          .optional(),
        volumeIds: z
          .array(z.number().int())
          .describe("Only these volumes' charges: a Volume's or a NetworkVolume's `volumeId`.")
          .optional(),
        types: z
          .array(z.string())
          .describe("Only contracts of these types: `instance`, `volume`, `serverless` (workers).")
          .optional(),
        labels: z
          .array(z.string())
          .describe("Only contracts whose label is one of these.")
          .optional(),
      }),
      { inputs: { since: "2026-01-01", types: ["instance", "volume"] } },
    ),
    outputs: chargesSchema,
    run: (client, args) =>
      chargesOf(client.billing, checkedChargesRequest(given(args)), Date.now()),
  },
  {
    name: "getInvoices",
    description:
      "The account's invoices (credit purchases, transfers, payouts) made on a range of UTC " +
      "days, newest first.",
    inputs: withExample(
      z.object({
        ...dayRange,
        services: z
          .array(z.string())
          .describe("Only these payment services: `stripe_payments`, `transfer`, `coinbase`, ...")
          .optional(),
      }),
      { inputs: { since: "2026-01-01" } },
    ),
    outputs: invoicesSchema,
    run: (client, args) =>
      invoicesOf(client.billing, checkedInvoicesRequest(given(args)), Date.now()),
  },
];

export function functionOf(token: string): NativeFunction | undefined {
  const [pkg, module, name] = token.split(":");
  if (pkg !== "gpucloud" || module !== "index") return undefined;
  return nativeFunctions.find((fn) => fn.name === name);
}
