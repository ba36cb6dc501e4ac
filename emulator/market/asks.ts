import { z } from "zod";

/**
 * Asks are plain data, so that a generator can produce a market of them. Fields beyond the first
 * few are optional in input (asks from options, control calls and older state files lack them)
 * and filled from the ask's id; the parsed ask always has them all.
 */

/** The host machine an ask is listed on. */
const MachineFields = {
  machineId: z.int().positive(),
  hostId: z.int().positive(),
  /** 0 to 1. */
  reliability: z.number().min(0).max(1),
  verification: z.enum(["verified", "unverified", "deverified"]),
  /** A datacenter host (hosting_type 1) rather than a private one. */
  datacenter: z.boolean(),
  /** Listed by an outside partner rather than on the marketplace itself. */
  external: z.boolean(),
  staticIp: z.boolean(),
  publicIpAddr: z.string(),
  directPortCount: z.int().nonnegative(),
  inetUpMbps: z.number().nonnegative(),
  inetDownMbps: z.number().nonnegative(),
  inetUpCostPerGb: z.number().nonnegative(),
  inetDownCostPerGb: z.number().nonnegative(),
  cpuName: z.string(),
  cpuArch: z.enum(["amd64", "arm64"]),
  cpuCores: z.int().positive(),
  cpuGhz: z.number().positive(),
  cpuRamMb: z.int().positive(),
  moboName: z.string(),
  diskName: z.string(),
  diskBwMbps: z.number().nonnegative(),
  pciGen: z.number().positive(),
  pcieBwGbps: z.number().nonnegative(),
  driverVersion: z.string(),
  cudaMaxGood: z.number().nonnegative(),
  osVersion: z.string(),
  vmsEnabled: z.boolean(),
  hasAvx: z.boolean(),
  /** When the ask was listed and until when it is offered (Unix seconds). */
  listedAtSeconds: z.number().nonnegative(),
  endsAtSeconds: z.number().nonnegative(),
  /** The physical cluster (machines of one host on one fast LAN) the machine is in; null: none. */
  clusterId: z.int().positive().nullable(),
};

const InstanceOnlyFields = {
  /** The interruptible price at the default 8 GB of storage, $/hour. */
  minBidDollarsPerHour: z.number().nonnegative(),
  storageCostPerGbMonth: z.number().nonnegative(),
  /** The reserved-instance discount at its longest term, 0 to 1. */
  creditDiscountMax: z.number().min(0).max(1),
  rentable: z.boolean(),
  rented: z.boolean(),
  gpuArch: z.enum(["nvidia", "amd"]),
  /** CUDA compute capability × 100. */
  computeCap: z.int().nonnegative(),
  /** TFLOPs across all the ask's GPUs. */
  totalFlops: z.number().nonnegative(),
  dlperf: z.number().nonnegative(),
  gpuMemBwGbps: z.number().nonnegative(),
  gpuMaxPowerW: z.number().nonnegative(),
  gpuMaxTempC: z.number().nonnegative(),
  gpuLanes: z.int().nonnegative(),
  bwNvlinkGbps: z.number().nonnegative(),
  gpuDisplayActive: z.boolean(),
};

function partialMask<T extends object>(fields: T): { [K in keyof T]: true } {
  return Object.fromEntries(Object.keys(fields).map((key) => [key, true])) as {
    [K in keyof T]: true;
  };
}

/** Values given win; absent (or undefined) ones come from the defaults of the other fields. */
function filled<T, Given extends keyof T>(
  defaults: Omit<T, Given>,
  given: Pick<T, Given> & Partial<T>,
): T {
  const present = Object.entries(given).filter(([, value]) => value !== undefined);
  return { ...defaults, ...Object.fromEntries(present) } as T;
}

/** Plausible machine values for an ask that names none; addresses in 198.51.100.0/24 (TEST-NET-2). */
function machineDefaults(askId: number) {
  return {
    machineId: 10000 + (askId % 90000),
    hostId: 100000 + (askId % 900000),
    reliability: 0.99,
    verification: "verified" as const,
    datacenter: false,
    external: false,
    staticIp: true,
    publicIpAddr: `198.51.100.${String((askId % 254) + 1)}`,
    directPortCount: 20,
    inetUpMbps: 800,
    inetDownMbps: 900,
    inetUpCostPerGb: 0.005,
    inetDownCostPerGb: 0.005,
    cpuName: "AMD EPYC 7543 32-Core Processor",
    cpuArch: "amd64" as const,
    cpuCores: 32,
    cpuGhz: 2.8,
    cpuRamMb: 128000,
    moboName: "H12SSL-i",
    diskName: "Samsung PM9A3 3.84TB",
    diskBwMbps: 3000,
    pciGen: 4,
    pcieBwGbps: 24.5,
    driverVersion: "550.54.15",
    cudaMaxGood: 12.4,
    osVersion: "22.04",
    vmsEnabled: false,
    hasAvx: true,
    listedAtSeconds: 1767225600, // 2026-01-01
    endsAtSeconds: 1893456000, // 2030-01-01
    clusterId: null,
  };
}

const VolumeAskFieldsSchema = z.object({
  id: z.int().positive(),
  diskGb: z.number().positive(),
  storageCostPerGbMonth: z.number().nonnegative(),
  geolocation: z.string(),
  ...MachineFields,
});
export type VolumeAsk = z.infer<typeof VolumeAskFieldsSchema>;
type VolumeAskCore = "id" | "diskGb" | "storageCostPerGbMonth" | "geolocation";

/** Storage a host rents out; accepting it (PUT /api/v0/volumes/) creates a volume. */
export const VolumeAskSchema = VolumeAskFieldsSchema.partial(partialMask(MachineFields)).transform(
  (ask) => filled<VolumeAsk, VolumeAskCore>(machineDefaults(ask.id), ask),
);

const InstanceAskFieldsSchema = z.object({
  id: z.int().positive(),
  gpuName: z.string(),
  numGpus: z.int().positive(),
  gpuRamMb: z.int().positive(),
  /** The on-demand price at the default 8 GB of storage, $/hour. */
  dollarsPerHour: z.number().nonnegative(),
  diskGb: z.number().positive(),
  geolocation: z.string(),
  ...MachineFields,
  ...InstanceOnlyFields,
});
export type InstanceAsk = z.infer<typeof InstanceAskFieldsSchema>;
type InstanceAskCore =
  "id" | "gpuName" | "numGpus" | "gpuRamMb" | "dollarsPerHour" | "diskGb" | "geolocation";

function instanceDefaults(ask: { id: number; numGpus: number; dollarsPerHour: number }) {
  return {
    ...machineDefaults(ask.id),
    minBidDollarsPerHour: Math.round(ask.dollarsPerHour * 0.6 * 1e6) / 1e6,
    storageCostPerGbMonth: 0.15,
    creditDiscountMax: 0.2,
    rentable: true,
    rented: false,
    gpuArch: "nvidia" as const,
    computeCap: 860,
    totalFlops: 35 * ask.numGpus,
    dlperf: 20 * ask.numGpus,
    gpuMemBwGbps: 900,
    gpuMaxPowerW: 350,
    gpuMaxTempC: 83,
    gpuLanes: 16,
    bwNvlinkGbps: 0,
    gpuDisplayActive: false,
  };
}

/** A machine offer; accepting it (PUT /api/v0/asks/{id}/) creates an instance. */
export const InstanceAskSchema = InstanceAskFieldsSchema.partial({
  ...partialMask(MachineFields),
  ...partialMask(InstanceOnlyFields),
}).transform((ask) => filled<InstanceAsk, InstanceAskCore>(instanceDefaults(ask), ask));

/**
 * Storage a host lists on a cluster's network disk; accepting it (PUT /api/v0/network_volumes/)
 * makes a network volume that any instance on a machine of the cluster can mount. Several
 * volumes may be cut from one ask until its `diskGb` is used up.
 */
export const NetworkVolumeAskSchema = z.object({
  id: z.int().positive(),
  clusterId: z.int().positive(),
  diskGb: z.number().positive(),
  storageCostPerGbMonth: z.number().nonnegative(),
  geolocation: z.string(),
  hostId: z.int().positive().default(100000),
  reliability: z.number().min(0).max(1).default(0.99),
  verification: z.enum(["verified", "unverified", "deverified"]).default("verified"),
  external: z.boolean().default(false),
  inetUpMbps: z.number().nonnegative().default(1000),
  inetDownMbps: z.number().nonnegative().default(1000),
  /** The network disk's measured read bandwidth, MiB/s. */
  nwDiskMinBwMbps: z.number().nonnegative().default(500),
  nwDiskMaxBwMbps: z.number().nonnegative().default(2000),
  nwDiskAvgBwMbps: z.number().nonnegative().default(1200),
  listedAtSeconds: z.number().nonnegative().default(1767225600), // 2026-01-01
  endsAtSeconds: z.number().nonnegative().default(1893456000), // 2030-01-01
});
export type NetworkVolumeAsk = z.output<typeof NetworkVolumeAskSchema>;
