import { z } from "zod";

// The offers a search answers: the service's rows (wire names) as far as the package reads them,
// and the typed offers the package gives (camelCase, units in names), which are also the schema
// types of the native plugin's getOffers and getVolumeOffers results.

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
  /** The GPU's share of dph_total, without storage (the service's offers answer it). */
  dph_base: nullableNumber,
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
  /** The host's longest-term prepay discount, 0 to 1 (the OpenAPI's offer field). */
  credit_discount_max: nullableNumber,
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
    creditDiscountMax: z
      .number()
      .nullable()
      .describe(
        "The most a prepay discounts an instance of this offer, 0 to 1 (the host's discount " +
          "for the longest term: an Instance's `prepayDollars`).",
      ),
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
  creditDiscountMax: o.credit_discount_max ?? null,
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
