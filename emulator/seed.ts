import type { InstanceAsk, VolumeAsk } from "./options";

export const SEEDED_VOLUME_ASKS: VolumeAsk[] = [
  { id: 21001, diskGb: 100, storageCostPerGbMonth: 0.1, geolocation: "Oregon, US" },
  { id: 21002, diskGb: 500, storageCostPerGbMonth: 0.08, geolocation: "Quebec, CA" },
  { id: 21003, diskGb: 2000, storageCostPerGbMonth: 0.05, geolocation: "Hesse, DE" },
];

export const SEEDED_INSTANCE_ASKS: InstanceAsk[] = [
  {
    id: 31001,
    gpuName: "RTX 4090",
    numGpus: 1,
    gpuRamMb: 24564,
    dollarsPerHour: 0.35,
    diskGb: 200,
    geolocation: "Oregon, US",
  },
  {
    id: 31002,
    gpuName: "RTX 3090",
    numGpus: 2,
    gpuRamMb: 24576,
    dollarsPerHour: 0.42,
    diskGb: 500,
    geolocation: "Quebec, CA",
  },
  {
    id: 31003,
    gpuName: "A100 SXM4",
    numGpus: 1,
    gpuRamMb: 81920,
    dollarsPerHour: 1.1,
    diskGb: 1000,
    geolocation: "Hesse, DE",
  },
  {
    id: 31004,
    gpuName: "H100 SXM",
    numGpus: 8,
    gpuRamMb: 81559,
    dollarsPerHour: 19.5,
    diskGb: 2000,
    geolocation: "Uusimaa, FI",
  },
];

/** ssh_key is empty so that tests of VM instances must register one first, as on the real service. */
export const DEFAULT_USER = { id: 1, email: "dev@example.com", creditDollars: 100, sshKey: "" };

export const FIRST_IDS = { webhook: 1, volume: 5001, instance: 1000001 };
