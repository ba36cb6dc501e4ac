import { z } from "zod";
import type { Instance } from "./instance-rows";
import type { InstanceListQuery } from "./instances";
import { conditionSchema } from "./offer-query-language";

// The account's instances as programs read them (getInstances): camelCase filters over the
// columns the instance list filters on, and summaries with units in their names. A summary
// never carries an instance's environment or onstart script (either may hold secrets), nor
// any credential.

/** The list's filterable columns (stored on the contract), by their camelCase names. */
const columns = {
  instanceId: "id",
  label: "label",
  actualStatus: "actual_status",
  intendedStatus: "intended_status",
  gpuName: "gpu_name",
  machineId: "machine_id",
  hostId: "host_id",
  image: "image_uuid",
  geolocation: "geolocation",
  diskGb: "disk_space",
  templateHashId: "template_hash_id",
} as const;
type Column = keyof typeof columns;

const text = conditionSchema(z.string());
const number = conditionSchema(z.number());
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const instanceQuerySchema = z.strictObject({
  instanceId: number.optional(),
  /** `null` matches instances without a label. */
  label: conditionSchema(z.string().nullable()).optional(),
  actualStatus: text.optional(),
  intendedStatus: text.optional(),
  gpuName: text.optional(),
  machineId: number.optional(),
  hostId: number.optional(),
  image: text.optional(),
  /** As the list shows it, e.g. "Oregon, US". */
  geolocation: text.optional(),
  diskGb: number.optional(),
  templateHashId: text.optional(),
  /**
   * Conditions on other columns the list filters on, in its own names
   * (`{ verification: { eq: "verified" } }`); computed ones (dph_total, num_gpus) are refused
   * by the service.
   */
  selectFilters: z
    .record(
      z.string(),
      z.partialRecord(
        z.enum(["eq", "neq", "gt", "gte", "lt", "lte", "in", "notin"]),
        z.union([scalar, z.array(scalar)]),
      ),
    )
    .optional(),
  /** Sort keys, first first (the id breaks ties); by id when absent. */
  orderBy: z
    .array(
      z.tuple([z.enum(Object.keys(columns) as [Column, ...Column[]]), z.enum(["asc", "desc"])]),
    )
    .optional(),
});
/** A filter of the account's instances (getInstances). */
export type InstanceQuery = z.input<typeof instanceQuerySchema>;

/** The instance list's query (wire column names) for a checked query. */
export function listQueryOf(query: z.output<typeof instanceQuerySchema>): InstanceListQuery {
  const selectFilters: NonNullable<InstanceListQuery["selectFilters"]> = {
    ...query.selectFilters,
  };
  for (const name of Object.keys(columns) as Column[]) {
    const condition = query[name];
    if (condition === undefined) continue;
    selectFilters[columns[name]] =
      typeof condition === "object" && condition !== null ? condition : { eq: condition };
  }
  return {
    ...(Object.keys(selectFilters).length > 0 ? { selectFilters } : {}),
    ...(query.orderBy
      ? { orderBy: query.orderBy.map(([name, dir]) => ({ col: columns[name], dir })) }
      : {}),
  };
}

/**
 * An instance of the account as getInstances gives it: no environment, no credential. The
 * schema type `InstanceSummary` of the native plugin; the TypeScript type.
 */
export const instanceSummarySchema = z
  .object({
    instanceId: z.number().int().describe("The service's id of the instance."),
    label: z.string().nullable().describe("The instance's label, if it has one."),
    actualStatus: z
      .string()
      .nullable()
      .describe(
        "What the instance is doing: `running`, `loading`, `stopped`, `exited`, ... (absent " +
          "while it is provisioned).",
      ),
    intendedStatus: z
      .string()
      .nullable()
      .describe("What the service keeps the instance at: `running` or `stopped`."),
    statusMessage: z.string().nullable().describe("The service's last status message."),
    gpuName: z.string().nullable().describe('The GPU model, e.g. "RTX 4090".'),
    numGpus: z.number().int().nullable().describe("The number of GPUs."),
    gpuRamMb: z.number().nullable().describe("Memory per GPU, in megabytes (MB)."),
    dollarsPerHour: z.number().nullable().describe("What the instance costs, in dollars per hour."),
    machineId: z.number().int().nullable().describe("The id of the machine it runs on."),
    askId: z.number().int().nullable().describe("The ask (offer) it was rented from."),
    image: z.string().nullable().describe("The container or VM image it was launched with."),
    diskGb: z.number().nullable().describe("Its disk size, in gigabytes."),
    sshHost: z.string().nullable().describe("The host to connect to over SSH."),
    sshPort: z.number().int().nullable().describe("The port to connect to over SSH."),
    publicIp: z.string().nullable().describe("The machine's public IP address."),
    geolocation: z
      .string()
      .nullable()
      .describe('The machine\'s location as the list shows it, e.g. "Oregon, US".'),
    startDate: z
      .number()
      .nullable()
      .describe("When the instance was started, in seconds since the Unix epoch."),
    templateHashId: z
      .string()
      .nullable()
      .describe(
        "The hash of the template it was launched from, if any (a serverless worker's is its " +
          "group's template).",
      ),
  })
  .meta({
    pulumiType: "InstanceSummary",
    description:
      "An instance of the account as getInstances answers it: never its environment or onstart " +
      "script, nor any credential.",
  });
export type InstanceSummary = z.output<typeof instanceSummarySchema>;

export function instanceSummaryOf(instance: Instance): InstanceSummary {
  return {
    instanceId: instance.id,
    label: instance.label ?? null,
    actualStatus: instance.actual_status ?? null,
    intendedStatus: instance.intended_status ?? null,
    statusMessage: instance.status_msg ?? null,
    gpuName: instance.gpu_name ?? null,
    numGpus: instance.num_gpus ?? null,
    gpuRamMb: instance.gpu_ram ?? null,
    dollarsPerHour: instance.dph_total ?? null,
    machineId: instance.machine_id ?? null,
    askId: instance.bundle_id ?? null,
    image: instance.image_uuid ?? null,
    diskGb: instance.disk_space ?? null,
    sshHost: instance.ssh_host ?? null,
    sshPort: instance.ssh_port ?? null,
    publicIp: instance.public_ipaddr ?? null,
    geolocation: instance.geolocation ?? null,
    startDate: instance.start_date ?? null,
    templateHashId: instance.template_hash_id ?? null,
  };
}
