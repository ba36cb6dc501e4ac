import type { Row } from "../shared/query";
import { type InstanceAsk, InstanceAskSchema, type VolumeAsk, VolumeAskSchema } from "./asks";

/** Storage is priced per GB-month; the service bills it by the hour of a 30-day month. */
const HOURS_PER_MONTH = 720;
/** The storage an instance offer's listed price includes (the description's default). */
export const DEFAULT_ALLOCATED_STORAGE_GB = 8;

/** Asks with every field defaulted, for reading off the fields rows have. */
export const SAMPLE_INSTANCE_ASK = InstanceAskSchema.parse({
  id: 1,
  gpuName: "sample",
  numGpus: 1,
  gpuRamMb: 1,
  dollarsPerHour: 1,
  diskGb: 1,
  geolocation: "Sample, XX",
});
export const SAMPLE_VOLUME_ASK = VolumeAskSchema.parse({
  id: 1,
  diskGb: 1,
  storageCostPerGbMonth: 1,
  geolocation: "Sample, XX",
});

/**
 * Asks an on-demand instance holds. With a market (exclusive renting) such an ask is rented:
 * searches show it `rented` (so the default filters hide it) and a create on it is refused.
 */
export function heldAskIds(
  instances: ReadonlyArray<{ offer: { id: number }; bidDollarsPerHour: number | null }>,
): Set<number> {
  return new Set(
    instances.filter((i) => i.bidDollarsPerHour === null).map((instance) => instance.offer.id),
  );
}

export type OfferType = "on-demand" | "bid" | "reserved";

export function dollars(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}

export function storageDollarsPerHour(costPerGbMonth: number, gb: number): number {
  return (costPerGbMonth * gb) / HOURS_PER_MONTH;
}

/**
 * The service's price of a rental, $/hour, as its OpenAPI's Instance example adds it up: a base
 * (GPU) price and its storage, `storage_total_cost = storage_cost × disk_space / 720` (GB-month
 * prices over a 30-day month), `dph_total = dph_base + storage_total_cost`. An ask lists its
 * prices (on-demand, minimum bid) with the default 8 GB of storage included, and a bid is read
 * the same way (it is weighed against that minimum), so the base is the listed price less the
 * storage of 8 GB.
 */
export function rentalPrice(
  listedDollarsPerHour: number,
  storageCostPerGbMonth: number,
  gb: number,
) {
  const included = storageDollarsPerHour(storageCostPerGbMonth, DEFAULT_ALLOCATED_STORAGE_GB);
  const base = Math.max(0, listedDollarsPerHour - included);
  const storage = storageDollarsPerHour(storageCostPerGbMonth, gb);
  return { base, storage, total: base + storage };
}

/** "Oregon, US" → "US": location filters take the two-letter country code. */
export function countryCode(geolocation: string): string {
  const parts = geolocation.split(",");
  return (parts[parts.length - 1] ?? geolocation).trim();
}

function geolocode(geolocation: string): number {
  const code = countryCode(geolocation);
  return ((code.charCodeAt(0) || 0) << 8) + (code.charCodeAt(1) || 0);
}

/** "550.54.15" → 550054015, the service's numeric form of a driver version. */
function driverVers(version: string): number {
  const [major = 0, minor = 0, patch = 0] = version.split(".").map((part) => Number(part) || 0);
  return major * 1_000_000 + minor * 1_000 + patch;
}

/** What both kinds of offer say about the machine they are listed on. */
function machineColumns(ask: InstanceAsk | VolumeAsk, nowSeconds: number) {
  return {
    machine_id: ask.machineId,
    host_id: ask.hostId,
    cpu_arch: ask.cpuArch,
    cpu_ghz: ask.cpuGhz,
    cpu_name: ask.cpuName,
    cuda_max_good: ask.cudaMaxGood,
    disk_bw: ask.diskBwMbps,
    disk_name: ask.diskName,
    driver_version: ask.driverVersion,
    duration: Math.max(0, ask.endsAtSeconds - nowSeconds),
    start_date: ask.listedAtSeconds,
    end_date: ask.endsAtSeconds,
    external: ask.external,
    geolocation: ask.geolocation,
    inet_up: ask.inetUpMbps,
    inet_down: ask.inetDownMbps,
    mobo_name: ask.moboName,
    reliability: ask.reliability,
    reliability2: ask.reliability,
    reliability_mult: ask.reliability,
    static_ip: ask.staticIp,
    verification: ask.verification,
    vms_enabled: ask.vmsEnabled,
  };
}

/** Fields the service filters on that the rows do not carry, or carry in another form. */
function machineFilterColumns(ask: InstanceAsk | VolumeAsk) {
  return {
    geolocation: countryCode(ask.geolocation),
    verified: ask.verification === "verified",
    datacenter: ask.datacenter,
    ubuntu_version: ask.osVersion,
    cuda_vers: ask.cudaMaxGood,
    cluster_id: ask.clusterId,
    pci_gen: ask.pciGen,
    pcie_bw: ask.pcieBwGbps,
    has_avx: ask.hasAvx ? 1 : 0,
  };
}

export interface InstancePricing {
  type: OfferType;
  allocatedStorageGb: number;
}

function breakdown(gpu: number, disk: number, total: number, discount: number) {
  return {
    gpuCostPerHour: dollars(gpu),
    diskHour: dollars(disk),
    totalHour: dollars(total),
    discountTotalHour: dollars(discount),
    discountedTotalPerHour: dollars(total - discount),
  };
}

/**
 * An instance offer as POST /api/v0/bundles/ answers it. `dph_total` is the price of the asked
 * `type` with `allocatedStorageGb` of disk: on-demand the listed price, bid the minimum bid,
 * reserved the listed price less the host's reserved discount.
 */
export function describeInstanceOffer(
  ask: InstanceAsk,
  pricing: InstancePricing,
  volumeAsks: readonly VolumeAsk[],
  nowSeconds: number,
) {
  const isBid = pricing.type === "bid";
  const listed = isBid ? ask.minBidDollarsPerHour : ask.dollarsPerHour;
  const price = rentalPrice(listed, ask.storageCostPerGbMonth, pricing.allocatedStorageGb);
  const { base: gpuOnly, storage, total: undiscounted } = price;
  const discountRate = pricing.type === "reserved" ? ask.creditDiscountMax : 0;
  const discount = undiscounted * discountRate;
  const dphTotal = dollars(undiscounted - discount);
  const totalRamMb = ask.gpuRamMb * ask.numGpus;
  const volume = volumeAsks.find((v) => v.machineId === ask.machineId);
  const prices = breakdown(gpuOnly, storage, undiscounted, discount);
  return {
    id: ask.id,
    ask_contract_id: ask.id,
    bundle_id: ask.id,
    bundled_results: null,
    ...machineColumns(ask, nowSeconds),
    bw_nvlink: ask.bwNvlinkGbps,
    compute_cap: ask.computeCap,
    cpu_cores: ask.cpuCores,
    cpu_cores_effective: ask.cpuCores,
    cpu_ram: ask.cpuRamMb,
    credit_discount_max: ask.creditDiscountMax,
    direct_port_count: ask.directPortCount,
    disk_space: ask.diskGb,
    dlperf: ask.dlperf,
    dlperf_per_dphtotal: dphTotal > 0 ? dollars(ask.dlperf / dphTotal) : 0,
    dph_base: dollars(gpuOnly),
    dph_total: dphTotal,
    driver_vers: driverVers(ask.driverVersion),
    flops_per_dphtotal: dphTotal > 0 ? dollars(ask.totalFlops / dphTotal) : 0,
    geolocode: geolocode(ask.geolocation),
    gpu_arch: ask.gpuArch,
    gpu_display_active: ask.gpuDisplayActive,
    gpu_frac: 1,
    gpu_ids: Array.from({ length: ask.numGpus }, (_, i) => ask.machineId * 10 + i),
    gpu_lanes: ask.gpuLanes,
    gpu_mem_bw: ask.gpuMemBwGbps,
    gpu_name: ask.gpuName,
    gpu_ram: ask.gpuRamMb,
    gpu_total_ram: totalRamMb,
    gpu_max_power: ask.gpuMaxPowerW,
    gpu_max_temp: ask.gpuMaxTempC,
    has_avx: ask.hasAvx ? 1 : 0,
    hosting_type: ask.datacenter ? 1 : 0,
    hostname: null,
    inet_down_cost: ask.inetDownCostPerGb,
    inet_up_cost: ask.inetUpCostPerGb,
    is_bid: isBid,
    logo: null,
    min_bid: ask.minBidDollarsPerHour,
    num_gpus: ask.numGpus,
    os_version: ask.osVersion,
    pci_gen: ask.pciGen,
    pcie_bw: ask.pcieBwGbps,
    public_ipaddr: ask.publicIpAddr,
    rentable: ask.rentable,
    rented: ask.rented,
    score: dphTotal > 0 ? dollars((ask.dlperf / dphTotal) * ask.reliability) : 0,
    storage_cost: ask.storageCostPerGbMonth,
    storage_total_cost: dollars(storage),
    total_flops: ask.totalFlops,
    vericode: ask.verification === "verified" ? 1 : 0,
    vram_costperhour: dollars(dphTotal / (totalRamMb / 1000)),
    webpage: null,
    expected_reliability: ask.reliability,
    is_vm_deverified: false,
    resource_type: "gpu",
    cluster_id: ask.clusterId,
    avail_vol_ask_id: volume?.id ?? null,
    avail_vol_dph: volume ? dollars(storageDollarsPerHour(volume.storageCostPerGbMonth, 1)) : null,
    avail_vol_size: volume?.diskGb ?? null,
    nw_disk_min_bw: null,
    nw_disk_max_bw: null,
    nw_disk_avg_bw: null,
    dph_total_adj: dphTotal,
    discount_rate: discountRate,
    discounted_hourly: dollars(discount),
    discounted_dph_total: dphTotal,
    search: prices,
    instance: prices,
    time_remaining: "",
    time_remaining_isbid: "",
    internet_up_cost_per_tb: dollars(ask.inetUpCostPerGb * 1000),
    internet_down_cost_per_tb: dollars(ask.inetDownCostPerGb * 1000),
  };
}

export function instanceOfferFilterView(ask: InstanceAsk, offer: Row): Row {
  return { ...offer, ...machineFilterColumns(ask) };
}

/** A volume offer as POST /api/v0/volumes/search/ answers it. */
export function describeVolumeOffer(
  ask: VolumeAsk,
  allocatedStorageGb: number,
  nowSeconds: number,
) {
  const storage = storageDollarsPerHour(ask.storageCostPerGbMonth, allocatedStorageGb);
  return {
    id: ask.id,
    ask_contract_id: ask.id,
    bundle_id: ask.id,
    ...machineColumns(ask, nowSeconds),
    disk_space: ask.diskGb,
    driver_vers: String(driverVers(ask.driverVersion)),
    geolocode: String(geolocode(ask.geolocation)),
    gpu_arch: "nvidia",
    storage_cost: ask.storageCostPerGbMonth,
    storage_total_cost: dollars(storage),
    vericode: ask.verification === "verified" ? "1" : "0",
    // Not in the description's schema, but what the official client orders by by default.
    score: dollars((ask.diskBwMbps / 1000) * ask.reliability),
  };
}

export function volumeOfferFilterView(ask: VolumeAsk, offer: Row): Row {
  return {
    ...offer,
    ...machineFilterColumns(ask),
    total_flops: null,
    nw_disk_min_bw: null,
    nw_disk_avg_bw: null,
    nw_disk_max_bw: null,
  };
}

/** The machine columns of a volume row (GET /api/v0/volumes/). */
export function volumeMachineColumns(ask: VolumeAsk) {
  return {
    machine_id: ask.machineId,
    host_id: ask.hostId,
    cpu_arch: ask.cpuArch,
    cpu_name: ask.cpuName,
    mobo_name: ask.moboName,
    disk_name: ask.diskName,
    driver_version: ask.driverVersion,
    cuda_max_good: ask.cudaMaxGood,
    os_version: ask.osVersion,
    inet_up: ask.inetUpMbps,
    inet_down: ask.inetDownMbps,
    public_ipaddr: ask.publicIpAddr,
    reliability2: ask.reliability,
    static_ip: ask.staticIp,
    verification: ask.verification,
    geolocation: ask.geolocation,
  };
}
