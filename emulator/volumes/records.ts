import { z } from "zod";
import { areaRecords } from "../shared/area-records";
import { NetworkVolumeSchema, VolumeSchema } from "./volume-state";

/**
 * The account's local and network volumes in the state; the default lets state files from
 * before network volumes load.
 */
export const records = areaRecords({
  shape: {
    volumes: z.array(VolumeSchema),
    networkVolumes: z.array(NetworkVolumeSchema).default([]),
  },
  firstIds: { volume: 5001 },
  initial: () => ({ volumes: [], networkVolumes: [] }),
  clear: (volumes) => {
    volumes.volumes = [];
    volumes.networkVolumes = [];
  },
});
