import { z } from "zod";

/**
 * Offer queries as programs write them: camelCase fields with units in their names, each a plain
 * value (meaning `eq`) or an operator object, plus `order`, `limit` and `type`. They turn into the
 * service's query body (`{gpu_name: {eq: …}, order: [[…]], …}`), GB fields into the API's MB, and
 * every offer a search answers is checked against the query here as well: the service has been
 * seen to ignore a filter, and an offer that does not match must never be rented.
 */

export const operators = ["eq", "neq", "gt", "gte", "lt", "lte", "in", "notin"] as const;
export type Operator = (typeof operators)[number];
type Kind = "text" | "number" | "boolean";
const operatorsOf: Record<Kind, readonly Operator[]> = {
  text: ["eq", "neq", "in", "notin"],
  number: operators,
  // `{in: [true, false]}` lifts a default filter (verified, rentable, rented, external).
  boolean: ["eq", "neq", "in", "notin"],
};

/**
 * One queryable field: its name in the API, its kind, the factor from the query's unit to the
 * API's (1000 for a GB field the API counts in MB) and the typed offer's field it is checked on.
 */
interface FieldSpec<OfferKey extends string> {
  readonly api: string;
  readonly kind: Kind;
  readonly scale?: number;
  readonly offer: OfferKey;
  /** Names the official client's query strings use for it. */
  readonly aliases: readonly string[];
  /** Compares with null too (`{eq: null}`: the offers without a value, `{neq: null}`: with). */
  readonly nullable?: true;
}

// ---- Typed offers -------------------------------------------------------------------------

const nullableNumber = z.number().nullable().optional();
const nullableString = z.string().nullable().optional();
const nullableBoolean = z.boolean().nullable().optional();

/** "Oregon, US" → "US": the service filters `geolocation` on the country code. */
export function countryCodeOf(geolocation: string | null | undefined): string | null {
  if (!geolocation) return null;
  const code = (geolocation.split(",").at(-1) ?? "").trim();
  return code === "" ? null : code;
}

/** The service's `verification` ("verified", "unverified", …) as a yes/no; null when absent. */
function isVerified(verification: string | null | undefined): boolean | null {
  return verification === undefined || verification === null ? null : verification === "verified";
}

/** What instance and volume offers both say of the machine they are on (wire names). */
const machineWireSchema = z.object({
  machine_id: nullableNumber,
  host_id: nullableNumber,
  geolocation: nullableString,
  reliability: nullableNumber,
  verification: nullableString,
  inet_up: nullableNumber,
  inet_down: nullableNumber,
  static_ip: nullableBoolean,
  cuda_max_good: nullableNumber,
  external: nullableBoolean,
  /** The physical cluster the machine is in; null when it is in none. */
  cluster_id: nullableNumber,
});

/**
 * The machine's fields of an offer as the package gives them: camelCase, units in names. The
 * descriptions are the schema's (the native plugin's getOffers and getVolumeOffers results).
 */
const machineFieldsSchema = z.object({
  machineId: z.number().int().nullable().describe("The id of the machine the offer is on."),
  hostId: z
    .number()
    .int()
    .nullable()
    .describe("The id of the machine's host (who lists it on the marketplace)."),
  location: z.string().nullable().describe('The machine\'s location as listed, e.g. "Oregon, US".'),
  geolocation: z
    .string()
    .nullable()
    .describe("The two-letter country code of the location, which `geolocation` queries compare."),
  reliability: z.number().nullable().describe("The machine's reliability score, from 0 to 1."),
  verified: z.boolean().nullable().describe("Whether the service has verified the machine."),
  inetUpMbps: z.number().nullable().describe("Upload bandwidth, in megabits per second."),
  inetDownMbps: z.number().nullable().describe("Download bandwidth, in megabits per second."),
  staticIp: z.boolean().nullable().describe("Whether the machine has a static IP address."),
  cudaMaxGood: z
    .number()
    .nullable()
    .describe("The newest CUDA version the machine's driver supports, e.g. 12.4."),
  external: z
    .boolean()
    .nullable()
    .describe(
      "Whether the offer is an external one; searches leave external offers out unless the " +
        "query names `external`.",
    ),
  clusterId: z
    .number()
    .int()
    .nullable()
    .describe(
      "The physical cluster the machine is in (machines of one cluster share a fast local " +
        "network, overlays and network volumes); null when it is in none.",
    ),
});
type MachineFields = z.output<typeof machineFieldsSchema>;

function machineFieldsOf(o: z.infer<typeof machineWireSchema>): MachineFields {
  return {
    machineId: o.machine_id ?? null,
    hostId: o.host_id ?? null,
    location: o.geolocation ?? null,
    geolocation: countryCodeOf(o.geolocation),
    reliability: o.reliability ?? null,
    verified: isVerified(o.verification),
    inetUpMbps: o.inet_up ?? null,
    inetDownMbps: o.inet_down ?? null,
    staticIp: o.static_ip ?? null,
    cudaMaxGood: o.cuda_max_good ?? null,
    external: o.external ?? null,
    clusterId: o.cluster_id ?? null,
  };
}

/** POST /api/v0/bundles/ rows (wire names), as far as the package reads them. */
export const instanceOfferWireSchema = machineWireSchema.extend({
  id: z.number().int(),
  gpu_name: z.string(),
  num_gpus: z.number(),
  /** MB */
  gpu_ram: z.number(),
  dph_total: z.number(),
  gpu_total_ram: nullableNumber,
  cpu_ram: nullableNumber,
  cpu_cores: nullableNumber,
  disk_space: nullableNumber,
  compute_cap: nullableNumber,
  hosting_type: nullableNumber,
  rentable: nullableBoolean,
  rented: nullableBoolean,
  direct_port_count: nullableNumber,
  dlperf: nullableNumber,
  min_bid: nullableNumber,
  is_bid: nullableBoolean,
  storage_cost: nullableNumber,
  avail_vol_ask_id: nullableNumber,
});

/**
 * An instance offer (ask) as the package gives it (getOffers, client.searchOffers): camelCase,
 * units in names. The schema type `InstanceOffer` of the native plugin; the TypeScript type.
 */
export const instanceOfferOutputSchema = z
  .object({
    askId: z.number().int().describe("The offer's id (its ask): what an instance's `askId` rents."),
    ...machineFieldsSchema.shape,
    gpuName: z.string().describe('The GPU model, e.g. "RTX 4090".'),
    numGpus: z.number().int().describe("The number of GPUs the offer rents out."),
    gpuRamMb: z.number().describe("Memory per GPU, in megabytes (MB, the API's unit)."),
    gpuTotalRamMb: z.number().describe("Memory of all the offer's GPUs together, in megabytes."),
    dollarsPerHour: z
      .number()
      .describe(
        "The price in dollars per hour of the searched type: on-demand, or the minimum bid " +
          "when the query's `type` is `interruptible`.",
      ),
    minBidDollarsPerHour: z
      .number()
      .nullable()
      .describe("The lowest bid the offer takes now (interruptible), in dollars per hour."),
    cpuRamMb: z.number().nullable().describe("CPU memory (RAM), in megabytes."),
    cpuCores: z.number().nullable().describe("The number of CPU cores."),
    diskSpaceGb: z.number().nullable().describe("Disk space available, in gigabytes."),
    computeCap: z
      .number()
      .nullable()
      .describe("The GPU's CUDA compute capability times 100, e.g. 860 for 8.6."),
    datacenter: z
      .boolean()
      .nullable()
      .describe("Whether the machine is hosted in a datacenter (the service's hosting type)."),
    rentable: z.boolean().nullable().describe("Whether the offer can be rented now."),
    rented: z.boolean().nullable().describe("Whether the offer is rented out now."),
    directPortCount: z
      .number()
      .int()
      .nullable()
      .describe("The number of ports open for direct connections."),
    dlperf: z
      .number()
      .nullable()
      .describe("The service's deep-learning performance score (DLPerf) of the offer."),
    storageCostPerGbMonth: z
      .number()
      .nullable()
      .describe("The price of disk storage, in dollars per gigabyte per month."),
    volumeAskId: z
      .number()
      .int()
      .nullable()
      .describe("A volume offer (ask) on the same machine, if any."),
  })
  .meta({
    pulumiType: "InstanceOffer",
    description: "An instance offer (ask) as getOffers answers it; units are in the field names.",
  });
export type InstanceOffer = z.output<typeof instanceOfferOutputSchema>;

/** An instance offer as the service answers it (wire names), turned into an InstanceOffer. */
export const instanceOfferSchema = instanceOfferWireSchema.transform((o): InstanceOffer => ({
  askId: o.id,
  ...machineFieldsOf(o),
  gpuName: o.gpu_name,
  numGpus: o.num_gpus,
  gpuRamMb: o.gpu_ram,
  gpuTotalRamMb: o.gpu_total_ram ?? o.gpu_ram * o.num_gpus,
  dollarsPerHour: o.dph_total,
  minBidDollarsPerHour: o.min_bid ?? null,
  cpuRamMb: o.cpu_ram ?? null,
  cpuCores: o.cpu_cores ?? null,
  diskSpaceGb: o.disk_space ?? null,
  computeCap: o.compute_cap ?? null,
  datacenter: o.hosting_type === undefined || o.hosting_type === null ? null : o.hosting_type === 1,
  rentable: o.rentable ?? null,
  rented: o.rented ?? null,
  directPortCount: o.direct_port_count ?? null,
  dlperf: o.dlperf ?? null,
  storageCostPerGbMonth: o.storage_cost ?? null,
  volumeAskId: o.avail_vol_ask_id ?? null,
}));

/** POST /api/v0/volumes/search/ rows (wire names), as far as the package reads them. */
export const volumeOfferWireSchema = machineWireSchema.extend({
  id: z.number().int(),
  /** GB */
  disk_space: z.number(),
  /** $/GB/month */
  storage_cost: nullableNumber,
  /** $/hour for the search's allocated_storage. */
  storage_total_cost: nullableNumber,
  disk_bw: nullableNumber,
  /** Unix seconds the offer is listed until. */
  end_date: nullableNumber,
});

/**
 * A volume offer (ask) as the package gives it (getVolumeOffers, client.searchVolumeOffers):
 * camelCase, units in names. The schema type `VolumeOffer` of the native plugin.
 */
export const volumeOfferOutputSchema = z
  .object({
    askId: z.number().int().describe("The offer's id (its ask): what a volume's `askId` accepts."),
    ...machineFieldsSchema.shape,
    diskSpaceGb: z.number().describe("The most this offer rents out, in gigabytes."),
    storageCostPerGbMonth: z
      .number()
      .nullable()
      .describe("The price of the storage, in dollars per gigabyte per month."),
    dollarsPerHour: z
      .number()
      .nullable()
      .describe("The price of the size the search asked for, in dollars per hour."),
    diskBwMbps: z
      .number()
      .nullable()
      .describe("The disk's bandwidth, in Mbps as the service reports it (`disk_bw`)."),
  })
  .meta({
    pulumiType: "VolumeOffer",
    description:
      "A volume offer (ask) as getVolumeOffers answers it; units are in the field names.",
  });
export type VolumeOffer = z.output<typeof volumeOfferOutputSchema>;

export const volumeOfferSchema = volumeOfferWireSchema.transform((o): VolumeOffer => ({
  askId: o.id,
  ...machineFieldsOf(o),
  diskSpaceGb: o.disk_space,
  storageCostPerGbMonth: o.storage_cost ?? null,
  dollarsPerHour: o.storage_total_cost ?? null,
  diskBwMbps: o.disk_bw ?? null,
}));

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

/** A value (meaning `eq`) or an object of the service's operators over it. */
export function conditionSchema<T extends z.ZodType>(value: T) {
  return z.union([
    value,
    z.strictObject({
      eq: value.optional(),
      neq: value.optional(),
      gt: value.optional(),
      gte: value.optional(),
      lt: value.optional(),
      lte: value.optional(),
      in: z.array(value).optional(),
      notin: z.array(value).optional(),
    }),
  ]);
}
const textCondition = conditionSchema(z.string());
const numberCondition = conditionSchema(z.number());
const nullableNumberCondition = conditionSchema(z.number().nullable());
const booleanCondition = z.union([
  z.boolean(),
  z.strictObject({
    eq: z.boolean().optional(),
    neq: z.boolean().optional(),
    in: z.array(z.boolean()).optional(),
    notin: z.array(z.boolean()).optional(),
  }),
]);

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
export type InstanceOfferQuery = z.input<typeof instanceOfferQuerySchema>;

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
export type VolumeOfferQuery = z.input<typeof volumeOfferQuerySchema>;

type Scalar = string | number | boolean | null;
type Condition = Partial<Record<Operator, Scalar | Scalar[]>>;

// ---- Validation with readable messages -----------------------------------------------------

/** A query that cannot be sent; the message names the field or token and what is allowed. */
export class OfferQueryError extends Error {}

type Fields = Record<string, FieldSpec<string>>;

interface Market<O> {
  readonly what: string;
  readonly fields: Fields;
  readonly schema: z.ZodType;
  readonly defaultOrder: readonly [string, "asc" | "desc"];
  /** Filters the service applies to a field the query leaves out; sent explicitly. */
  readonly defaults: Readonly<Record<string, Condition>>;
  readonly readOffer: (offer: O, key: string) => unknown;
}

const instanceMarket: Market<InstanceOffer> = {
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
const volumeMarket: Market<VolumeOffer> = {
  what: "volume offer",
  fields: volumeFields,
  schema: volumeOfferQuerySchema,
  defaultOrder: ["storageCostPerGbMonth", "asc"],
  defaults: {},
  readOffer: (offer, key) => offer[key as keyof VolumeOffer],
};

const kindWords: Record<Kind, string> = {
  text: "text",
  number: "a number",
  boolean: "true or false",
};

function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function fits(kind: Kind, value: unknown, nullable = false): boolean {
  if (value === null) return nullable;
  if (kind === "text") return typeof value === "string";
  if (kind === "number") return typeof value === "number" && Number.isFinite(value);
  return typeof value === "boolean";
}

/** The field's condition as an operator object, or a message naming what is wrong. */
function conditionOf(name: string, spec: FieldSpec<string>, raw: unknown): Condition {
  const allowed = operatorsOf[spec.kind];
  if (typeof raw !== "object" || raw === null) {
    if (!fits(spec.kind, raw, spec.nullable)) {
      throw new OfferQueryError(
        `${name}: got ${shown(raw)}; expected ${kindWords[spec.kind]} or an operator object ` +
          `such as {${allowed[0]}: …} (${allowed.join(", ")})`,
      );
    }
    return { eq: raw as Scalar };
  }
  if (Array.isArray(raw)) {
    throw new OfferQueryError(`${name}: got a list; write {in: [...]} for any of several values`);
  }
  const condition: Condition = {};
  const entries = Object.entries(raw);
  if (entries.length === 0) throw new OfferQueryError(`${name}: an empty operator object`);
  for (const [op, operand] of entries) {
    if (!(allowed as readonly string[]).includes(op)) {
      throw new OfferQueryError(
        `${name}: operator ${shown(op)} is not allowed; ${name} takes ${allowed.join(", ")}`,
      );
    }
    if (op === "in" || op === "notin") {
      if (
        !Array.isArray(operand) ||
        !operand.every((item) => fits(spec.kind, item, spec.nullable))
      ) {
        throw new OfferQueryError(
          `${name}.${op}: got ${shown(operand)}; expected a list of ${kindWords[spec.kind]} values`,
        );
      }
    } else if (!fits(spec.kind, operand, spec.nullable && (op === "eq" || op === "neq"))) {
      throw new OfferQueryError(
        `${name}.${op}: got ${shown(operand)}; expected ${kindWords[spec.kind]}`,
      );
    }
    condition[op as Operator] = operand as Scalar | Scalar[];
  }
  return condition;
}

/** A query checked and in canonical form: one operator object per field, in API units. */
export interface NormalizedQuery {
  /** Typed field name → condition in the query's units. */
  readonly filters: ReadonlyArray<readonly [string, Condition]>;
  readonly order: ReadonlyArray<readonly [string, "asc" | "desc"]>;
  readonly limit: number | undefined;
  readonly type: "on-demand" | "interruptible";
}

function normalize(market: Market<unknown>, query: unknown): NormalizedQuery {
  if (typeof query !== "object" || query === null || Array.isArray(query)) {
    throw new OfferQueryError(
      `the ${market.what} query must be an object such as {gpuName: "RTX 4090"} or a string ` +
        `such as "gpu_name=RTX_4090 num_gpus>=1"`,
    );
  }
  const filters: Array<[string, Condition]> = [];
  let order: Array<[string, "asc" | "desc"]> = [];
  let limit: number | undefined;
  let type: NormalizedQuery["type"] = "on-demand";
  const known = Object.keys(market.fields);
  for (const [name, raw] of Object.entries(query as Record<string, unknown>)) {
    if (raw === undefined) continue;
    const spec = market.fields[name];
    if (spec) {
      filters.push([name, conditionOf(name, spec, raw)]);
    } else if (name === "order") {
      if (
        !Array.isArray(raw) ||
        !raw.every(
          (item) =>
            Array.isArray(item) &&
            item.length === 2 &&
            known.includes(String(item[0])) &&
            (item[1] === "asc" || item[1] === "desc"),
        )
      ) {
        throw new OfferQueryError(
          `order: got ${shown(raw)}; expected a list of [field, "asc" | "desc"] pairs over ` +
            `the query's fields (e.g. [["dollarsPerHour", "asc"]])`,
        );
      }
      order = raw as Array<[string, "asc" | "desc"]>;
    } else if (name === "limit") {
      if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 1) {
        throw new OfferQueryError(`limit: got ${shown(raw)}; expected a positive whole number`);
      }
      limit = raw;
    } else if (name === "type" && market === (instanceMarket as Market<unknown>)) {
      if (raw !== "on-demand" && raw !== "interruptible") {
        throw new OfferQueryError(
          `type: got ${shown(raw)}; expected "on-demand" or "interruptible"`,
        );
      }
      type = raw;
    } else {
      throw new OfferQueryError(
        `${name}: not a field of ${market.what} queries; the fields are ${known.join(", ")}, ` +
          `order, limit${market === (instanceMarket as Market<unknown>) ? ", type" : ""}`,
      );
    }
  }
  // Belt and braces: what passed the checks above must be what the declared type allows.
  const typed = market.schema.safeParse(query);
  if (!typed.success) throw new OfferQueryError(`the ${market.what} query: ${typed.error.message}`);
  if (order.length === 0) order = [[market.defaultOrder[0], market.defaultOrder[1]]];
  return { filters, order, limit, type };
}

function scaled(condition: Condition, scale: number): Condition {
  if (scale === 1) return condition;
  const by = (value: Scalar): Scalar => (typeof value === "number" ? value * scale : value);
  return Object.fromEntries(
    Object.entries(condition).map(([op, operand]) => [
      op,
      Array.isArray(operand) ? operand.map(by) : by(operand),
    ]),
  );
}

function bodyOf(market: Market<unknown>, query: NormalizedQuery): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const named = new Set(query.filters.map(([name]) => name));
  const filters = [
    ...Object.entries(market.defaults).filter(([name]) => !named.has(name)),
    ...query.filters,
  ];
  for (const [name, condition] of filters) {
    const spec = market.fields[name];
    if (spec) body[spec.api] = scaled(condition, spec.scale ?? 1);
  }
  body["order"] = query.order.map(([name, direction]) => [
    market.fields[name]?.api ?? name,
    direction,
  ]);
  if (query.limit !== undefined) body["limit"] = query.limit;
  if (market === (instanceMarket as Market<unknown>)) {
    body["type"] = query.type === "interruptible" ? "bid" : "on-demand";
  }
  return body;
}

// ---- The official client's string syntax ---------------------------------------------------

const STRING_OPERATORS: ReadonlyArray<readonly [string, Operator]> = [
  [">=", "gte"],
  ["<=", "lte"],
  ["!=", "neq"],
  ["==", "eq"],
  [">", "gt"],
  ["<", "lt"],
  ["=", "eq"],
];

/** Splits at spaces outside brackets: `geolocation in [US, CA]` stays one list. */
function tokensOf(text: string): string[] {
  const tokens: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of text) {
    if (char === "[") depth++;
    if (char === "]") depth--;
    if (/\s/.test(char) && depth === 0) {
      if (current !== "") tokens.push(current);
      current = "";
    } else current += char;
  }
  if (current !== "") tokens.push(current);
  return tokens;
}

function valueOf(token: string, text: string, kind: Kind): Scalar {
  if (kind === "number") {
    const number = Number(text);
    if (text.trim() === "" || !Number.isFinite(number)) {
      throw new OfferQueryError(`"${token}": ${shown(text)} is not a number`);
    }
    return number;
  }
  if (kind === "boolean") {
    if (text === "true" || text === "True") return true;
    if (text === "false" || text === "False") return false;
    throw new OfferQueryError(`"${token}": ${shown(text)} is not true or false`);
  }
  // The official client writes spaces in values as underscores: RTX_4090.
  return text.replaceAll("_", " ");
}

/**
 * Parses the official client's query syntax (`gpu_name=RTX_4090 num_gpus>=2 dph<0.6
 * geolocation in [US,CA]`) into a typed query. RAM fields are in GB there too.
 */
function parseQueryString(market: Market<unknown>, text: string): Record<string, unknown> {
  const byAlias = new Map<string, string>();
  for (const [name, spec] of Object.entries(market.fields)) {
    for (const alias of spec.aliases) byAlias.set(alias, name);
  }
  // `field in [a,b]` and `field notin [a,b]` are written with spaces: join them first.
  const raw = tokensOf(text.trim());
  const tokens: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const next = raw[i + 1];
    if ((next === "in" || next === "notin" || next === "nin") && raw[i + 2] !== undefined) {
      tokens.push(`${raw[i] ?? ""} ${next} ${raw[i + 2] ?? ""}`);
      i += 2;
    } else tokens.push(raw[i] ?? "");
  }
  const query: Record<string, Condition> = {};
  for (const token of tokens) {
    let fieldText: string;
    let op: Operator;
    let valueText: string;
    const listMatch = /^(\w+) (in|notin|nin) \[(.*)\]$/.exec(token);
    if (listMatch) {
      fieldText = listMatch[1] ?? "";
      op = listMatch[2] === "in" ? "in" : "notin";
      valueText = listMatch[3] ?? "";
    } else {
      const match = /^(\w+)(>=|<=|!=|==|>|<|=)(.+)$/.exec(token);
      if (!match) {
        throw new OfferQueryError(
          `"${token}": not a condition; write field, operator, value with no spaces ` +
            `(gpu_name=RTX_4090, num_gpus>=2, dph<0.6) or field in [a,b]`,
        );
      }
      fieldText = match[1] ?? "";
      op = STRING_OPERATORS.find(([symbol]) => symbol === match[2])?.[1] ?? "eq";
      valueText = match[3] ?? "";
    }
    const name = byAlias.get(fieldText);
    const spec = name === undefined ? undefined : market.fields[name];
    if (name === undefined || spec === undefined) {
      throw new OfferQueryError(
        `"${token}": unknown field ${fieldText}; the fields are ${[...byAlias.keys()].join(", ")}`,
      );
    }
    if (!operatorsOf[spec.kind].includes(op)) {
      throw new OfferQueryError(
        `"${token}": ${fieldText} takes ${operatorsOf[spec.kind].join(", ")}, not ${op}`,
      );
    }
    const condition = (query[name] ??= {});
    condition[op] =
      op === "in" || op === "notin"
        ? valueText
            .split(",")
            .map((item) => item.trim())
            .filter((item) => item !== "")
            .map((item) => valueOf(token, item, spec.kind))
        : spec.nullable && (op === "eq" || op === "neq") && /^(None|null)$/.test(valueText)
          ? // The service's own guides write "in no cluster" as cluster_id=None.
            null
          : valueOf(token, valueText, spec.kind);
  }
  return query;
}

// ---- Verification --------------------------------------------------------------------------

function sameValue(actual: unknown, expected: Scalar): boolean {
  if (typeof actual === "string" && typeof expected === "string") {
    return actual.replaceAll("_", " ") === expected.replaceAll("_", " ");
  }
  return actual === expected;
}

/** Whether an offer's value satisfies one operator; unknown values satisfy no comparison. */
export function satisfies(actual: unknown, op: Operator, operand: Scalar | Scalar[]): boolean {
  const list = Array.isArray(operand) ? operand : [operand];
  const single = list[0];
  switch (op) {
    case "eq":
      return single !== undefined && sameValue(actual, single);
    case "neq":
      return single !== undefined && !sameValue(actual, single);
    case "in":
      return list.some((item) => sameValue(actual, item));
    case "notin":
      return !list.some((item) => sameValue(actual, item));
    default: {
      if (typeof actual !== "number" || typeof single !== "number") return false;
      if (op === "gt") return actual > single;
      if (op === "gte") return actual >= single;
      if (op === "lt") return actual < single;
      return actual <= single;
    }
  }
}

/**
 * What the offer fails of the query, e.g. `reliability 0.91 is not gte 0.98`; undefined when it
 * matches. Offers are checked in the offer's units (MB for RAM), the query's GB scaled to them.
 */
function mismatch<O>(market: Market<O>, query: NormalizedQuery, offer: O): string | undefined {
  const named = new Set(query.filters.map(([name]) => name));
  const filters = [
    ...Object.entries(market.defaults).filter(([name]) => !named.has(name)),
    ...query.filters,
  ];
  for (const [name, condition] of filters) {
    const spec = market.fields[name];
    if (!spec) continue;
    const actual = market.readOffer(offer, spec.offer);
    for (const [op, operand] of Object.entries(scaled(condition, spec.scale ?? 1))) {
      if (!satisfies(actual, op as Operator, operand)) {
        return `${name} ${shown(actual)}${spec.scale ? ` (${spec.offer})` : ""} is not ${op} ${shown(operand)}`;
      }
    }
  }
  return undefined;
}

// ---- The compiled query --------------------------------------------------------------------

/** A checked query: the body to send and the check each answered offer must pass. */
export interface CompiledQuery<O> {
  readonly normalized: NormalizedQuery;
  readonly body: Record<string, unknown>;
  /** Why the offer does not match, or undefined when it does. */
  mismatch(offer: O): string | undefined;
}

function compile<O>(market: Market<O>, query: unknown): CompiledQuery<O> {
  const typed =
    typeof query === "string" ? parseQueryString(market as Market<unknown>, query) : query;
  const normalized = normalize(market as Market<unknown>, typed);
  return {
    normalized,
    body: bodyOf(market as Market<unknown>, normalized),
    mismatch: (offer) => mismatch(market, normalized, offer),
  };
}

/** Checks an instance offer query (object or string); throws OfferQueryError when malformed. */
export function compileInstanceOfferQuery(
  query: InstanceOfferQuery | string,
): CompiledQuery<InstanceOffer> {
  return compile(instanceMarket, query);
}

export function compileVolumeOfferQuery(
  query: VolumeOfferQuery | string,
): CompiledQuery<VolumeOffer> {
  return compile(volumeMarket, query);
}

/**
 * The query with one more condition on a field, both to hold (used to pin a search to a
 * volume's machine).
 */
export function withCondition(
  query: InstanceOfferQuery | string,
  field: "machineId" | "clusterId",
  value: number,
): InstanceOfferQuery {
  const typed = typedInstanceQuery(query);
  const existing = typed[field];
  if (existing === undefined) return { ...typed, [field]: value };
  // The query's own equality becomes a one-value list, so that both must hold.
  const own = typeof existing === "object" && existing !== null ? existing : { eq: existing };
  const { eq, ...rest } = own;
  const list = eq === undefined ? rest.in : (rest.in ?? [eq]).filter((item) => item === eq);
  return { ...typed, [field]: { ...rest, ...(list ? { in: list } : {}), eq: value } };
}

/** The typed query a string means (for showing and comparing), or the object itself. */
export function typedInstanceQuery(query: InstanceOfferQuery | string): InstanceOfferQuery {
  return typeof query === "string"
    ? parseQueryString(instanceMarket as Market<unknown>, query)
    : query;
}

// ---- A query's own filters, stored by the service (template extra_filters) -------------------

/** API-named filters: `{cuda_max_good: {gte: 12.6}}`, GB fields in the API's MB. */
export type OfferFilters = Record<string, Partial<Record<Operator, Scalar | Scalar[]>>>;

/**
 * The instance offer query's own conditions in the API's names and units, as the service stores
 * filters (a template's `extra_filters`): none of the search's defaults, no order, limit or type.
 * Throws OfferQueryError when the query is malformed.
 */
export function instanceOfferFilters(query: InstanceOfferQuery | string): OfferFilters {
  const { normalized } = compileInstanceOfferQuery(query);
  const filters: OfferFilters = {};
  for (const [name, condition] of normalized.filters) {
    const spec = instanceMarket.fields[name];
    if (spec) filters[spec.api] = scaled(condition, spec.scale ?? 1);
  }
  return filters;
}

/**
 * The reverse of {@link instanceOfferFilters}: stored API-named filters as a typed query (operator
 * objects, the query's units). A name or operator the field table does not know is left out and
 * listed in `unknown`.
 */
export function instanceOfferQueryOfFilters(filters: Readonly<Record<string, unknown>>): {
  query: InstanceOfferQuery;
  unknown: string[];
} {
  const query: Record<string, Condition> = {};
  const unknown: string[] = [];
  for (const [api, raw] of Object.entries(filters)) {
    const entry = Object.entries(instanceMarket.fields).find(([, spec]) => spec.api === api);
    if (entry === undefined) {
      unknown.push(api);
      continue;
    }
    const [name, spec] = entry;
    const scale = spec.scale ?? 1;
    const by = (value: unknown): Scalar =>
      typeof value === "number" && scale !== 1 ? value / scale : (value as Scalar);
    const operands =
      typeof raw === "object" && raw !== null && !Array.isArray(raw)
        ? Object.entries(raw)
        : [["eq", raw] as const];
    const condition: Condition = {};
    for (const [op, operand] of operands) {
      if (!(operators as readonly string[]).includes(op)) {
        unknown.push(`${api}.${op}`);
        continue;
      }
      condition[op as Operator] = Array.isArray(operand) ? operand.map(by) : by(operand);
    }
    if (Object.keys(condition).length > 0) query[name] = condition;
  }
  return { query, unknown };
}
