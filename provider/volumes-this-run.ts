import { once } from "./once";
import { providerClient } from "./provider-runtime";

// The account's volumes before this run, and those this run created, of either kind (Volume,
// NetworkVolume, a NodeGroup's volume): one list per run, not one per create. After a lost
// create reply, only a volume in neither set can be that create's.

export const volumesBeforeThisRun = once(
  async () => new Set((await providerClient().volumes.list()).map((volume) => volume.id)),
);

export const createdThisRun = new Set<number>();
