import { z } from "zod";
import type { InstanceOffer, VolumeOffer } from "./offer-schemas";

/**
 * Offer queries as programs write them: camelCase fields with units in their names, each a plain
 * value (meaning `eq`) or an operator object, plus `order`, `limit` and `type`. They turn into the
 * service's query body (`{gpu_name: {eq: …}, order: [[…]], …}`), GB fields into the API's MB, and
 * every offer a search answers is checked against the query here as well: the service has been
 * seen to ignore a filter, and an offer that does not match must never be rented.
 */

export const operators = ["eq", "neq", "gt", "gte", "lt", "lte", "in", "notin"] as const;
export type Operator = (typeof operators)[number];
export type Kind = "text" | "number" | "boolean";
export const operatorsOf: Record<Kind, readonly Operator[]> = {
  text: ["eq", "neq", "in", "notin"],
  number: operators,
  // `{in: [true, false]}` lifts a default filter (verified, rentable, rented, external).
  boolean: ["eq", "neq", "in", "notin"],
};

/**
 * One queryable field: its name in the API, its kind, the factor from the query's unit to the
 * API's (1000 for a GB field the API counts in MB) and the typed offer's field it is checked on.
 */
export interface FieldSpec<OfferKey extends string> {
  readonly api: string;
  readonly kind: Kind;
  readonly scale?: number;
  readonly offer: OfferKey;
  /** Names the official client's query strings use for it. */
  readonly aliases: readonly string[];
  /** Compares with null too (`{eq: null}`: the offers without a value, `{neq: null}`: with). */
  readonly nullable?: true;
}

// ---- Fields ---------------------------------------------------------------------------------

type InstanceOfferKey = keyof InstanceOffer;
type VolumeOfferKey = keyof VolumeOffer;

/** The physical cluster: `{clusterId: 7}`, or `{clusterId: {neq: null}}` for any cluster. */
const clusterIdField = {
  api: "cluster_id",
  kind: "number",
  offer: "clusterId",
  aliases: ["cluster_id"],
  nullable: true,
} as const;

const instanceFields = {
  gpuName: { api: "gpu_name", kind: "text", offer: "gpuName", aliases: ["gpu_name"] },
  numGpus: { api: "num_gpus", kind: "number", offer: "numGpus", aliases: ["num_gpus"] },
  gpuRamGb: {
    api: "gpu_ram",
    kind: "number",
    scale: 1000,
    offer: "gpuRamMb",
    aliases: ["gpu_ram"],
  },
  gpuTotalRamGb: {
    api: "gpu_total_ram",
    kind: "number",
    scale: 1000,
    offer: "gpuTotalRamMb",
    aliases: ["gpu_total_ram"],
  },
  cpuRamGb: {
    api: "cpu_ram",
    kind: "number",
    scale: 1000,
    offer: "cpuRamMb",
    aliases: ["cpu_ram"],
  },
  cpuCores: { api: "cpu_cores", kind: "number", offer: "cpuCores", aliases: ["cpu_cores"] },
  diskSpaceGb: { api: "disk_space", kind: "number", offer: "diskSpaceGb", aliases: ["disk_space"] },
  dollarsPerHour: {
    api: "dph_total",
    kind: "number",
    offer: "dollarsPerHour",
    aliases: ["dph", "dph_total"],
  },
  reliability: {
    api: "reliability",
    kind: "number",
    offer: "reliability",
    aliases: ["reliability", "reliability2"],
  },
  geolocation: { api: "geolocation", kind: "text", offer: "geolocation", aliases: ["geolocation"] },
  cudaMaxGood: {
    api: "cuda_max_good",
    kind: "number",
    offer: "cudaMaxGood",
    aliases: ["cuda_max_good", "cuda_vers"],
  },
  computeCap: { api: "compute_cap", kind: "number", offer: "computeCap", aliases: ["compute_cap"] },
  inetDownMbps: { api: "inet_down", kind: "number", offer: "inetDownMbps", aliases: ["inet_down"] },
  inetUpMbps: { api: "inet_up", kind: "number", offer: "inetUpMbps", aliases: ["inet_up"] },
  datacenter: { api: "datacenter", kind: "boolean", offer: "datacenter", aliases: ["datacenter"] },
  verified: { api: "verified", kind: "boolean", offer: "verified", aliases: ["verified"] },
  rentable: { api: "rentable", kind: "boolean", offer: "rentable", aliases: ["rentable"] },
  rented: { api: "rented", kind: "boolean", offer: "rented", aliases: ["rented"] },
  external: { api: "external", kind: "boolean", offer: "external", aliases: ["external"] },
  machineId: { api: "machine_id", kind: "number", offer: "machineId", aliases: ["machine_id"] },
  hostId: { api: "host_id", kind: "number", offer: "hostId", aliases: ["host_id"] },
  staticIp: { api: "static_ip", kind: "boolean", offer: "staticIp", aliases: ["static_ip"] },
  directPortCount: {
    api: "direct_port_count",
    kind: "number",
    offer: "directPortCount",
    aliases: ["direct_port_count"],
  },
  dlperf: { api: "dlperf", kind: "number", offer: "dlperf", aliases: ["dlperf"] },
  clusterId: clusterIdField,
} as const satisfies Record<string, FieldSpec<InstanceOfferKey>>;

const volumeFields = {
  diskSpaceGb: {
    api: "disk_space",
    kind: "number",
    offer: "diskSpaceGb",
    aliases: ["disk_space", "size"],
  },
  storageCostPerGbMonth: {
    api: "storage_cost",
    kind: "number",
    offer: "storageCostPerGbMonth",
    aliases: ["storage_cost"],
  },
  reliability: {
    api: "reliability",
    kind: "number",
    offer: "reliability",
    aliases: ["reliability", "reliability2"],
  },
  geolocation: { api: "geolocation", kind: "text", offer: "geolocation", aliases: ["geolocation"] },
  machineId: { api: "machine_id", kind: "number", offer: "machineId", aliases: ["machine_id"] },
  hostId: { api: "host_id", kind: "number", offer: "hostId", aliases: ["host_id"] },
  verified: { api: "verified", kind: "boolean", offer: "verified", aliases: ["verified"] },
  external: { api: "external", kind: "boolean", offer: "external", aliases: ["external"] },
  staticIp: { api: "static_ip", kind: "boolean", offer: "staticIp", aliases: ["static_ip"] },
  inetDownMbps: { api: "inet_down", kind: "number", offer: "inetDownMbps", aliases: ["inet_down"] },
  inetUpMbps: { api: "inet_up", kind: "number", offer: "inetUpMbps", aliases: ["inet_up"] },
  diskBwMbps: { api: "disk_bw", kind: "number", offer: "diskBwMbps", aliases: ["disk_bw"] },
  // Volume searches filter CUDA as `cuda_vers`, the official client's volume field (the offers
  // it answers carry `cuda_max_good`, as instance offers do).
  cudaMaxGood: {
    api: "cuda_vers",
    kind: "number",
    offer: "cudaMaxGood",
    aliases: ["cuda_max_good", "cuda_vers"],
  },
  clusterId: clusterIdField,
} as const satisfies Record<string, FieldSpec<VolumeOfferKey>>;

// ---- Query schemas (the types programs write) -----------------------------------------------

/**
 * The condition objects' names in the plugin's schema (`.meta({ pulumiType })`): the Python and Go
 * SDKs generate one class or struct each (QueryNumberArgs), so editors complete the operators.
 */
export type ConditionTypeName = "QueryText" | "QueryNumber" | "QueryBoolean";

const conditionDescription = "Conditions on one field, all to hold.";

/** What each operator means, for the schema's condition types. */
const operatorDescriptions: Record<Operator, string> = {
  eq: "Equal to this value.",
  neq: "Not equal to this value.",
  gt: "Greater than this value.",
  gte: "At least this value.",
  lt: "Less than this value.",
  lte: "At most this value.",
  in: "Any of these values.",
  notin: "None of these values.",
};

/** An operator's operand, described for the schema. */
const operand = <T extends z.ZodType>(schema: T, op: Operator) =>
  schema.optional().describe(operatorDescriptions[op]);

/** The condition objects' name and description in the plugin's schema, when named. */
const named = (name: ConditionTypeName | undefined) =>
  name === undefined ? {} : { pulumiType: name, description: conditionDescription };

/** A value (meaning `eq`) or an object of the service's operators over it. */
export function conditionSchema<T extends z.ZodType>(value: T, name?: ConditionTypeName) {
  return z.union([
    value,
    z
      .strictObject({
        eq: operand(value, "eq"),
        neq: operand(value, "neq"),
        gt: operand(value, "gt"),
        gte: operand(value, "gte"),
        lt: operand(value, "lt"),
        lte: operand(value, "lte"),
        in: operand(z.array(value), "in"),
        notin: operand(z.array(value), "notin"),
      })
      .meta(named(name)),
  ]);
}

/** A value or an object of the operators a text or boolean field takes (operatorsOf). */
function equalityCondition<T extends z.ZodType>(value: T, name: ConditionTypeName) {
  return z.union([
    value,
    z
      .strictObject({
        eq: operand(value, "eq"),
        neq: operand(value, "neq"),
        in: operand(z.array(value), "in"),
        notin: operand(z.array(value), "notin"),
      })
      .meta(named(name)),
  ]);
}
const textCondition = equalityCondition(z.string(), "QueryText");
const numberCondition = conditionSchema(z.number(), "QueryNumber");
const nullableNumberCondition = conditionSchema(z.number().nullable(), "QueryNumber");
const booleanCondition = equalityCondition(z.boolean(), "QueryBoolean");

const commonOptions = {
  /** At most this many offers. */
  limit: z.number().int().positive().optional(),
};

const instanceOrderField = z.enum(Object.keys(instanceFields) as [keyof typeof instanceFields]);
const volumeOrderField = z.enum(Object.keys(volumeFields) as [keyof typeof volumeFields]);

export const instanceOfferQuerySchema = z.strictObject({
  gpuName: textCondition.optional(),
  numGpus: numberCondition.optional(),
  gpuRamGb: numberCondition.optional(),
  gpuTotalRamGb: numberCondition.optional(),
  cpuRamGb: numberCondition.optional(),
  cpuCores: numberCondition.optional(),
  diskSpaceGb: numberCondition.optional(),
  dollarsPerHour: numberCondition.optional(),
  reliability: numberCondition.optional(),
  geolocation: textCondition.optional(),
  cudaMaxGood: numberCondition.optional(),
  computeCap: numberCondition.optional(),
  inetDownMbps: numberCondition.optional(),
  inetUpMbps: numberCondition.optional(),
  datacenter: booleanCondition.optional(),
  verified: booleanCondition.optional(),
  rentable: booleanCondition.optional(),
  rented: booleanCondition.optional(),
  external: booleanCondition.optional(),
  machineId: numberCondition.optional(),
  hostId: numberCondition.optional(),
  staticIp: booleanCondition.optional(),
  directPortCount: numberCondition.optional(),
  dlperf: numberCondition.optional(),
  clusterId: nullableNumberCondition.optional(),
  /** Sort keys, first first; cheapest first (`[["dollarsPerHour", "asc"]]`) when absent. */
  order: z.array(z.tuple([instanceOrderField, z.enum(["asc", "desc"])])).optional(),
  /** `on-demand` (default) or `interruptible` (prices are then the minimum bids). */
  type: z.enum(["on-demand", "interruptible"]).optional(),
  ...commonOptions,
});
/** An instance offer query (docs/guides/renting.md, "The query"). */
// Interfaces, not aliases: the compiler names them in its messages (a misspelled field is
// "not in type InstanceOfferQuery") instead of spelling out every field.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- named, as said above
export interface InstanceOfferQuery extends z.input<typeof instanceOfferQuerySchema> {}

export const volumeOfferQuerySchema = z.strictObject({
  diskSpaceGb: numberCondition.optional(),
  storageCostPerGbMonth: numberCondition.optional(),
  reliability: numberCondition.optional(),
  geolocation: textCondition.optional(),
  machineId: numberCondition.optional(),
  hostId: numberCondition.optional(),
  verified: booleanCondition.optional(),
  external: booleanCondition.optional(),
  staticIp: booleanCondition.optional(),
  inetDownMbps: numberCondition.optional(),
  inetUpMbps: numberCondition.optional(),
  diskBwMbps: numberCondition.optional(),
  cudaMaxGood: numberCondition.optional(),
  clusterId: nullableNumberCondition.optional(),
  /** Cheapest first (`[["storageCostPerGbMonth", "asc"]]`) when absent. */
  order: z.array(z.tuple([volumeOrderField, z.enum(["asc", "desc"])])).optional(),
  ...commonOptions,
});
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- named, as said above
export interface VolumeOfferQuery extends z.input<typeof volumeOfferQuerySchema> {}

export type Scalar = string | number | boolean | null;
export type Condition = Partial<Record<Operator, Scalar | Scalar[]>>;

// ---- Markets: what each kind of query is made of, and how its parts are shown ---------------

/** A query that cannot be sent; the message names the field or token and what is allowed. */
export class OfferQueryError extends Error {}

type Fields = Record<string, FieldSpec<string>>;

export interface Market<O> {
  readonly what: string;
  readonly fields: Fields;
  readonly schema: z.ZodType;
  readonly defaultOrder: readonly [string, "asc" | "desc"];
  /** Filters the service applies to a field the query leaves out; sent explicitly. */
  readonly defaults: Readonly<Record<string, Condition>>;
  readonly readOffer: (offer: O, key: string) => unknown;
}

export const instanceMarket: Market<InstanceOffer> = {
  what: "instance offer",
  fields: instanceFields,
  schema: instanceOfferQuerySchema,
  defaultOrder: ["dollarsPerHour", "asc"],
  defaults: {
    verified: { eq: true },
    rentable: { eq: true },
    rented: { eq: false },
    external: { eq: false },
  },
  readOffer: (offer, key) => offer[key as keyof InstanceOffer],
};
export const volumeMarket: Market<VolumeOffer> = {
  what: "volume offer",
  fields: volumeFields,
  schema: volumeOfferQuerySchema,
  defaultOrder: ["storageCostPerGbMonth", "asc"],
  defaults: {},
  readOffer: (offer, key) => offer[key as keyof VolumeOffer],
};

export const kindWords: Record<Kind, string> = {
  text: "text",
  number: "a number",
  boolean: "true or false",
};

export function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

export function fits(kind: Kind, value: unknown, nullable = false): boolean {
  if (value === null) return nullable;
  if (kind === "text") return typeof value === "string";
  if (kind === "number") return typeof value === "number" && Number.isFinite(value);
  return typeof value === "boolean";
}

/** A query checked and in canonical form: one operator object per field, in API units. */
export interface NormalizedQuery {
  /** Typed field name → condition in the query's units. */
  readonly filters: ReadonlyArray<readonly [string, Condition]>;
  readonly order: ReadonlyArray<readonly [string, "asc" | "desc"]>;
  readonly limit: number | undefined;
  readonly type: "on-demand" | "interruptible";
}

/** A condition in the query's units scaled to the API's (GB to MB). */
export function scaled(condition: Condition, scale: number): Condition {
  if (scale === 1) return condition;
  const by = (value: Scalar): Scalar => (typeof value === "number" ? value * scale : value);
  return Object.fromEntries(
    Object.entries(condition).map(([op, operand]) => [
      op,
      Array.isArray(operand) ? operand.map(by) : by(operand),
    ]),
  );
}
