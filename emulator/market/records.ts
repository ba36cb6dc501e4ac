import { z } from "zod";
import { areaRecords } from "../shared/area-records";
import { InstanceAskSchema, NetworkVolumeAskSchema, VolumeAskSchema } from "./asks";
import { generateMarket } from "./market-gen";
import {
  SEEDED_INSTANCE_ASKS,
  SEEDED_NETWORK_VOLUME_ASKS,
  SEEDED_VOLUME_ASKS,
} from "./seeded-asks";

/**
 * The market's asks in the state: the seeded ones and the generated market. They are the world
 * around the account, so a reset keeps them. The default lets state files from before network
 * volumes load.
 */
export const records = areaRecords({
  shape: {
    volumeAsks: z.array(VolumeAskSchema),
    instanceAsks: z.array(InstanceAskSchema),
    networkVolumeAsks: z.array(NetworkVolumeAskSchema).default([]),
  },
  firstIds: {},
  initial: (settings) => {
    const market = settings.market
      ? generateMarket(settings.market)
      : { instanceAsks: [], volumeAsks: [], networkVolumeAsks: [] };
    return {
      volumeAsks: [...structuredClone(SEEDED_VOLUME_ASKS), ...market.volumeAsks],
      instanceAsks: [...structuredClone(SEEDED_INSTANCE_ASKS), ...market.instanceAsks],
      networkVolumeAsks: [
        ...structuredClone(SEEDED_NETWORK_VOLUME_ASKS),
        ...market.networkVolumeAsks,
      ],
    };
  },
  clear: () => {},
});
