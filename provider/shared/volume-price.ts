import { z } from "zod";
import type { Volume as VolumeWire } from "../client";
import { atServicePrecision } from "./price-precision";

// What a volume costs, as its outputs record it (Volume, NetworkVolume): what the service
// reports in the account's volume list, `storage_total_cost`, $/hour for the volume's size.

/** The output field; absent in stacks written before it, until the next create or refresh. */
export const volumeDollarsPerHourField = z
  .number()
  .nullable()
  .describe(
    "What the volume costs, in dollars per hour, as the service reports it " +
      "(`storage_total_cost`: its size at its offer's storage price; billed while it exists); " +
      "kept current by refresh. Null when the service reports no price.",
  )
  .optional();

/** The volume's price as the service reports it, or null when it reports none. */
export function volumeDollarsPerHour(volume: VolumeWire | undefined): number | null {
  return atServicePrecision(volume?.storage_total_cost ?? null);
}
