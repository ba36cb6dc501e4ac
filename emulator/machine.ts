import type { InstanceAsk } from "./options";

/** Per-GPU figures of the models the seeded asks name; others get a mid-range card's. */
const GPU_MODELS: Record<string, { memoryBandwidthGbps: number; tflops: number }> = {
  "RTX 4090": { memoryBandwidthGbps: 1008, tflops: 82.6 },
  "RTX 3090": { memoryBandwidthGbps: 936, tflops: 35.6 },
  "A100 SXM4": { memoryBandwidthGbps: 2039, tflops: 19.5 },
  "H100 SXM": { memoryBandwidthGbps: 3350, tflops: 66.9 },
};
const OTHER_GPU = { memoryBandwidthGbps: 600, tflops: 20 };

/**
 * The machine behind an ask. Asks carry only what renting needs, so the rest is derived from
 * the ask deterministically: the same ask always describes the same machine.
 */
export function machineOf(ask: InstanceAsk) {
  const model = GPU_MODELS[ask.gpuName] ?? OTHER_GPU;
  const datacenter = ask.gpuName.includes("SXM");
  const machineId = 40000 + (ask.id % 10000);
  const totalTflops = round(model.tflops * ask.numGpus, 2);
  return {
    machineId,
    hostId: 100 + (machineId % 97),
    datacenter,
    cpuName: datacenter ? "AMD EPYC 9554 64-Core Processor" : "AMD Ryzen 9 7950X 16-Core Processor",
    cpuCores: Math.min(16 * ask.numGpus, 128),
    cpuRamMb: 65536 * ask.numGpus,
    memoryBandwidthGbps: model.memoryBandwidthGbps,
    nvlinkGbps: datacenter && ask.numGpus > 1 ? 900 : 0,
    totalTflops,
    // The service's benchmark score tracks compute closely enough for an emulator.
    dlperf: round(totalTflops * 0.9, 2),
    reliability: 0.99 + (ask.id % 9) / 1000,
    countryCode: countryCodeOf(ask.geolocation),
  };
}

/** "Oregon, US" → "US"; null when the location does not end in a two-letter code. */
function countryCodeOf(geolocation: string): string | null {
  const last = geolocation.split(",").at(-1)?.trim() ?? "";
  return /^[A-Z]{2}$/.test(last) ? last : null;
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
