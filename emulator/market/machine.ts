import type { InstanceAsk } from "./asks";
import { countryCode } from "./offers";

/**
 * The machine behind an ask, as an instance row shows it: the same figures its offer shows in a
 * search, so an instance names the machine it was rented on.
 */
export function machineOf(ask: InstanceAsk) {
  const code = countryCode(ask.geolocation);
  return {
    machineId: ask.machineId,
    hostId: ask.hostId,
    datacenter: ask.datacenter,
    cpuName: ask.cpuName,
    cpuCores: ask.cpuCores,
    cpuRamMb: ask.cpuRamMb,
    memoryBandwidthGbps: ask.gpuMemBwGbps,
    nvlinkGbps: ask.bwNvlinkGbps,
    totalTflops: ask.totalFlops,
    dlperf: ask.dlperf,
    reliability: ask.reliability,
    countryCode: /^[A-Z]{2}$/.test(code) ? code : null,
  };
}

export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
