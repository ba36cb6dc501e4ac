/**
 * An instance ask whose bills come out in round figures, for the tests of what is billed (the
 * emulator's and the client's): listed at $0.50/h with 8 GB of disk, so its GPU (dph_base) is
 * 0.50 − 0.18 × 8 / 720 = $0.498/h, and 40 GB of its disk 0.18 × 40 / 720 = $0.01/h; traffic at
 * $0.007/GB down and $0.011/GB up.
 */
export const BILLED_ASK = {
  id: 41001,
  gpuName: "RTX 4090",
  numGpus: 1,
  gpuRamMb: 24564,
  dollarsPerHour: 0.5,
  minBidDollarsPerHour: 0.2,
  storageCostPerGbMonth: 0.18,
  inetUpCostPerGb: 0.011,
  inetDownCostPerGb: 0.007,
  diskGb: 500,
  geolocation: "Oregon, US",
};
export const BILLED_GPU_DOLLARS_PER_HOUR = 0.498;
/** The disk the tests rent: 40 GB. */
export const BILLED_DISK_GB = 40;
export const BILLED_DISK_DOLLARS_PER_HOUR = 0.01;

export const DAY_SECONDS = 86_400;
export const HOUR_SECONDS = 3_600;

/** A bill's rounding: dollars to 3 decimals, as the charges' description says. */
export const round3 = (amount: number) => Math.round(amount * 1000) / 1000;
