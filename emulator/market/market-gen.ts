import { seededRandom } from "../shared/random";
import type { InstanceAsk, NetworkVolumeAsk, VolumeAsk } from "./asks";
import { formClusters } from "./cluster-gen";

/**
 * A realistic market, deterministic from a seed: machines across GPUs, countries, prices and
 * reliabilities, each listing one to three instance asks (slices of its GPUs); some also list a
 * volume ask, and every machine with a volume ask lists instance asks, so a volume can always be
 * used; a few datacenter machines form physical clusters (cluster-gen.ts). Ids start above the
 * hand-written seed (asks 31001–31004, 21001–21003, seeded-asks.ts), so both coexist.
 */

export const FIRST_GENERATED_INSTANCE_ASK = 40001;
export const FIRST_GENERATED_VOLUME_ASK = 22001;
const FIRST_GENERATED_MACHINE = 70001;

interface Gpu {
  name: string;
  ramMb: number;
  /** Typical on-demand price of one GPU, $/hour. */
  dollarsPerGpuHour: number;
  computeCap: number;
  tflops: number;
  dlperf: number;
  memBwGbps: number;
  powerW: number;
  /** GPUs a machine of this kind usually has. */
  counts: readonly number[];
  datacenter: boolean;
}

const GPUS: readonly Gpu[] = [
  {
    name: "RTX 3060",
    ramMb: 12288,
    dollarsPerGpuHour: 0.07,
    computeCap: 860,
    tflops: 12.7,
    dlperf: 11.2,
    memBwGbps: 360,
    powerW: 170,
    counts: [1, 2, 4],
    datacenter: false,
  },
  {
    name: "RTX 3090",
    ramMb: 24576,
    dollarsPerGpuHour: 0.2,
    computeCap: 860,
    tflops: 35.6,
    dlperf: 31.1,
    memBwGbps: 936,
    powerW: 350,
    counts: [1, 2, 4, 8],
    datacenter: false,
  },
  {
    name: "RTX 4070",
    ramMb: 12282,
    dollarsPerGpuHour: 0.12,
    computeCap: 890,
    tflops: 29.1,
    dlperf: 22.4,
    memBwGbps: 504,
    powerW: 200,
    counts: [1, 2],
    datacenter: false,
  },
  {
    name: "RTX 4090",
    ramMb: 24564,
    dollarsPerGpuHour: 0.38,
    computeCap: 890,
    tflops: 82.6,
    dlperf: 68.4,
    memBwGbps: 1008,
    powerW: 450,
    counts: [1, 2, 4, 8],
    datacenter: false,
  },
  {
    name: "RTX 5090",
    ramMb: 32607,
    dollarsPerGpuHour: 0.65,
    computeCap: 1200,
    tflops: 104.8,
    dlperf: 92.3,
    memBwGbps: 1792,
    powerW: 575,
    counts: [1, 2, 4],
    datacenter: false,
  },
  {
    name: "RTX A6000",
    ramMb: 49140,
    dollarsPerGpuHour: 0.45,
    computeCap: 860,
    tflops: 38.7,
    dlperf: 36.2,
    memBwGbps: 768,
    powerW: 300,
    counts: [1, 2, 4, 8],
    datacenter: true,
  },
  {
    name: "L40S",
    ramMb: 46068,
    dollarsPerGpuHour: 0.7,
    computeCap: 890,
    tflops: 91.6,
    dlperf: 74.5,
    memBwGbps: 864,
    powerW: 350,
    counts: [1, 2, 4, 8],
    datacenter: true,
  },
  {
    name: "A100 PCIE",
    ramMb: 40960,
    dollarsPerGpuHour: 0.75,
    computeCap: 800,
    tflops: 19.5,
    dlperf: 31.8,
    memBwGbps: 1555,
    powerW: 250,
    counts: [1, 2, 4, 8],
    datacenter: true,
  },
  {
    name: "A100 SXM4",
    ramMb: 81920,
    dollarsPerGpuHour: 1.05,
    computeCap: 800,
    tflops: 19.5,
    dlperf: 34.2,
    memBwGbps: 2039,
    powerW: 400,
    counts: [1, 2, 4, 8],
    datacenter: true,
  },
  {
    name: "H100 SXM",
    ramMb: 81559,
    dollarsPerGpuHour: 2.2,
    computeCap: 900,
    tflops: 66.9,
    dlperf: 110.1,
    memBwGbps: 3350,
    powerW: 700,
    counts: [1, 2, 4, 8],
    datacenter: true,
  },
];

const PLACES = [
  "Oregon, US",
  "Texas, US",
  "Virginia, US",
  "California, US",
  "Quebec, CA",
  "Ontario, CA",
  "Hesse, DE",
  "Bavaria, DE",
  "Uusimaa, FI",
  "Ile-de-France, FR",
  "North Holland, NL",
  "England, GB",
  "Stockholm, SE",
  "Tokyo, JP",
  "Seoul, KR",
  "Guangdong, CN",
  "Sichuan, CN",
  "Sao Paulo, BR",
  "New South Wales, AU",
  "Maharashtra, IN",
] as const;

const CPUS = [
  { name: "AMD EPYC 7543 32-Core Processor", cores: 64, ghz: 2.8 },
  { name: "AMD EPYC 7763 64-Core Processor", cores: 128, ghz: 2.45 },
  { name: "Intel Xeon Gold 6338", cores: 64, ghz: 2.0 },
  { name: "AMD Ryzen 9 7950X 16-Core Processor", cores: 32, ghz: 4.5 },
  { name: "Intel Core i9-13900K", cores: 32, ghz: 3.0 },
] as const;

export interface MarketOptions {
  seed: number;
  instanceOffers: number;
  volumeOffers: number;
}

export function generateMarket({ seed, instanceOffers, volumeOffers }: MarketOptions): {
  instanceAsks: InstanceAsk[];
  volumeAsks: VolumeAsk[];
  networkVolumeAsks: NetworkVolumeAsk[];
} {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const between = (low: number, high: number) => low + random() * (high - low);
  const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
  const instanceAsks: InstanceAsk[] = [];
  const volumeAsks: VolumeAsk[] = [];
  let machineId = FIRST_GENERATED_MACHINE;
  // Volume asks go on the first machines, one each, so each has instance asks beside it.
  while (instanceAsks.length < instanceOffers) {
    const gpu = pick(GPUS);
    const cpu = pick(CPUS);
    const place = pick(PLACES);
    const datacenter = gpu.datacenter ? random() < 0.85 : random() < 0.15;
    // Most hosts are reliable; a tail is not, which is what reliability filters are for.
    const reliability = round(random() < 0.8 ? between(0.97, 0.9995) : between(0.8, 0.97), 4);
    const verification =
      random() < 0.88 ? "verified" : random() < 0.5 ? "unverified" : "deverified";
    const machineGpus = Math.max(...gpu.counts.filter(() => random() < 0.7), gpu.counts[0] ?? 1);
    const listedAtSeconds = 1764547200 + Math.floor(random() * 90) * 86400;
    const machine = {
      machineId,
      hostId: 200000 + Math.floor(random() * 100000),
      reliability,
      verification,
      datacenter,
      external: random() < 0.05,
      staticIp: datacenter || random() < 0.4,
      publicIpAddr: `203.0.113.${String((machineId % 254) + 1)}`,
      directPortCount: datacenter ? 500 : Math.floor(between(10, 200)),
      inetUpMbps: round(datacenter ? between(1000, 10000) : between(50, 1000), 1),
      inetDownMbps: round(datacenter ? between(1000, 10000) : between(100, 1000), 1),
      inetUpCostPerGb: round(between(0, 0.01), 4),
      inetDownCostPerGb: round(between(0, 0.01), 4),
      cpuName: cpu.name,
      cpuArch: "amd64",
      cpuCores: cpu.cores,
      cpuGhz: cpu.ghz,
      cpuRamMb: machineGpus * pick([32000, 64000, 128000]),
      moboName: datacenter ? "H12DSG-O-CPU" : "ROG STRIX X670E-E",
      diskName: pick(["Samsung SSD 990 PRO 2TB", "Micron 7450 PRO 7.68TB", "WD Blue SN570 1TB"]),
      diskBwMbps: round(between(1500, 12000), 1),
      pciGen: gpu.computeCap >= 890 ? 4 : pick([3, 4]),
      pcieBwGbps: round(between(10, 50), 1),
      driverVersion: pick(["535.183.01", "550.54.15", "550.90.07", "560.35.03"]),
      cudaMaxGood: pick([12.2, 12.4, 12.6]),
      osVersion: pick(["20.04", "22.04"]),
      vmsEnabled: datacenter && random() < 0.5,
      hasAvx: true,
      listedAtSeconds,
      endsAtSeconds: listedAtSeconds + Math.floor(between(30, 720)) * 86400,
      clusterId: null,
    } as const;
    // A machine offers slices of its GPUs: the whole, and often halves or single GPUs.
    const slices = [machineGpus, machineGpus / 2, 1].filter(
      (count, index, all) => Number.isInteger(count) && count >= 1 && all.indexOf(count) === index,
    );
    const sliceCount = 1 + Math.floor(random() * slices.length);
    for (const numGpus of slices.slice(0, sliceCount)) {
      if (instanceAsks.length >= instanceOffers) break;
      const id = FIRST_GENERATED_INSTANCE_ASK + instanceAsks.length;
      // Prices spread ±40% around the GPU's typical price; poorer hosts sell cheaper.
      const dollarsPerHour = round(
        gpu.dollarsPerGpuHour * numGpus * between(0.6, 1.4) * (0.7 + 0.3 * reliability),
        4,
      );
      instanceAsks.push({
        id,
        gpuName: gpu.name,
        numGpus,
        gpuRamMb: gpu.ramMb,
        dollarsPerHour,
        diskGb: Math.round(between(100, 2000)),
        geolocation: place,
        ...machine,
        minBidDollarsPerHour: round(dollarsPerHour * between(0.4, 0.7), 4),
        storageCostPerGbMonth: round(between(0.05, 0.3), 3),
        creditDiscountMax: round(between(0.1, 0.4), 2),
        rentable: true,
        rented: false,
        gpuArch: "nvidia",
        computeCap: gpu.computeCap,
        totalFlops: round(gpu.tflops * numGpus, 1),
        dlperf: round(gpu.dlperf * numGpus * between(0.9, 1.05), 1),
        gpuMemBwGbps: gpu.memBwGbps,
        gpuMaxPowerW: gpu.powerW,
        gpuMaxTempC: 83,
        gpuLanes: 16,
        bwNvlinkGbps: numGpus > 1 && datacenter ? 600 : 0,
        gpuDisplayActive: false,
      });
    }
    if (volumeAsks.length < volumeOffers) {
      volumeAsks.push({
        id: FIRST_GENERATED_VOLUME_ASK + volumeAsks.length,
        diskGb: pick([100, 250, 500, 1000, 2000]),
        storageCostPerGbMonth: round(between(0.03, 0.2), 3),
        geolocation: place,
        ...machine,
      });
    }
    machineId++;
  }
  const datacenterGpus = new Set(GPUS.filter((gpu) => gpu.datacenter).map((gpu) => gpu.name));
  const networkVolumeAsks = formClusters(instanceAsks, volumeAsks, seed, datacenterGpus);
  return { instanceAsks, volumeAsks, networkVolumeAsks };
}
