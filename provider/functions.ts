import * as pulumi from "@pulumi/pulumi";
import type {
  CurrentUser,
  InstanceOffer,
  InstanceOfferQuery,
  VolumeOffer,
  VolumeOfferQuery,
} from "./client";
import { clientFor, resolveConfig } from "./config";

// Functions run in the program's process: configuration comes from the stack's config
// (read raw, so a secret key is not echoed in a warning) or the environment.
function programClient() {
  return clientFor(resolveConfig({ get: (key) => pulumi.runtime.getConfig(key) }));
}

/**
 * The account behind the configured API key (calling it also verifies the key): id, email,
 * credit, balance, the id of the API key in use and whether an SSH key is registered. Never the
 * key material or an API key.
 */
export function getCurrentUser(): pulumi.Output<CurrentUser> {
  return pulumi.output(programClient().users.current());
}

/**
 * Cancels the rsync copy running into instance `dstId`. Rejects with the service's message
 * (`Invalid dst_id.` or `Remote instance does not have an open port`) when it cannot. During a
 * preview it sends nothing and resolves: a preview changes nothing.
 */
export async function cancelRsyncCopy(dstId: string | number): Promise<void> {
  if (pulumi.runtime.isDryRun()) return;
  await programClient().commands.cancelRsyncCopy(String(dstId));
}

/**
 * Instance offers matching `query`, cheapest first unless its `order` says otherwise: a typed
 * object (`{ gpuName: "RTX 4090", gpuRamGb: { gte: 24 }, dollarsPerHour: { lte: 0.6 } }`) or the
 * official client's string (`"gpu_name=RTX_4090 num_gpus>=2 dph<0.6"`). A malformed query
 * rejects naming the field or token, and sends nothing. Offers the service answers that do not
 * match the query are left out.
 */
export function getOffers(query: InstanceOfferQuery | string = {}): pulumi.Output<InstanceOffer[]> {
  return pulumi.output(programClient().searchOffers(query));
}

/** Volume offers matching `query` (e.g. `{ diskSpaceGb: { gte: 100 }, geolocation: "US" }`). */
export function getVolumeOffers(
  query: VolumeOfferQuery | string = {},
): pulumi.Output<VolumeOffer[]> {
  return pulumi.output(programClient().searchVolumeOffers(query));
}
