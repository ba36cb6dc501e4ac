import { z } from "zod";
import type { GpuCloudClient } from "../client";
import { instanceSummaryOf } from "../client/instance-summaries";
import { templateSummaryOf } from "../client/templates";
import { checkedDstId, checkedInstanceQuery } from "../functions";

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

const query = z.union([z.string(), z.record(z.string(), z.unknown())]).optional();
const anyList = z.array(z.record(z.string(), z.unknown()));

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
      "Instance offers matching query (an object such as { gpuName: RTX 4090, gpuRamGb: { gte: " +
      "24 } } or the official client's query string), cheapest first unless its order says " +
      "otherwise. Offers the service answers that do not match the query are left out.",
    inputs: z.object({ query }),
    outputs: z.object({ offers: anyList }),
    run: async (client, args) => ({ offers: await client.searchOffers(queryOf(args)) }),
  },
  {
    name: "getVolumeOffers",
    description: "Volume offers matching query (e.g. { diskSpaceGb: { gte: 100 } }).",
    inputs: z.object({ query }),
    outputs: z.object({ offers: anyList }),
    run: async (client, args) => ({ offers: await client.searchVolumeOffers(queryOf(args)) }),
  },
  {
    name: "getCurrentUser",
    description:
      "The account behind the configured API key: id, email, credit, balance, the id of the " +
      "key in use and whether an SSH key is registered. Never the key itself.",
    inputs: z.object({}),
    outputs: z.object({
      id: z.number().int(),
      email: z.string(),
      credit: z.number(),
      balance: z.number().nullable(),
      keyId: z.number().int().nullable(),
      hasSshKey: z.boolean(),
    }),
    run: (client) => client.users.current(),
  },
  {
    name: "cancelRsyncCopy",
    description:
      "Cancels the rsync copy running into instance dstId. During a preview it checks its " +
      "argument and sends nothing.",
    inputs: z.object({ dstId: z.union([z.number().int(), z.string()]) }),
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
    inputs: z.object({ query: z.record(z.string(), z.unknown()).optional() }),
    outputs: z.object({ templates: anyList }),
    run: async (client, args) => ({
      templates: (await client.templates.find(queryOf(args) as object)).map(templateSummaryOf),
    }),
  },
  {
    name: "getInstances",
    description:
      "The account's instances, or those matching query, as summaries: never an instance's " +
      "environment or onstart script, nor any credential.",
    inputs: z.object({ query: z.record(z.string(), z.unknown()).optional() }),
    outputs: z.object({ instances: anyList }),
    run: async (client, args) => {
      const listQuery = checkedInstanceQuery(args["query"] ?? {});
      return { instances: (await client.instances.list(listQuery)).map(instanceSummaryOf) };
    },
  },
];

export function functionOf(token: string): NativeFunction | undefined {
  const [pkg, module, name] = token.split(":");
  if (pkg !== "gpucloud" || module !== "index") return undefined;
  return nativeFunctions.find((fn) => fn.name === name);
}
