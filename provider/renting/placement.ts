import { addressIn } from "../shared/addresses";
import { type GpuCloudClient, isNetworkVolume } from "../client";
import type { InstanceInputs } from "./instance-inputs";

// An instance on an overlay, or mounting a network volume, must be rented on a machine of the
// physical cluster they are on: its create joins the overlay (`-n NAME`) and mounts the volume
// (`-v V.<id>:<path>`) in its env, as the official client does, and the service refuses both
// from any other machine. The Instance's check looks at the same before anything is rented
// (resources/instance/placement.ts).

/** Something of the instance's placement, and the cluster it is on. */
export interface ClusterOf {
  readonly what: string;
  readonly field: "overlay" | "networkVolume";
  readonly clusterId: number;
}

/**
 * At create: the cluster the instance's overlay and network volume are on (undefined when it
 * has neither), or why it cannot be rented anywhere (one missing, or the two on two clusters).
 */
export async function requiredCluster(
  client: GpuCloudClient,
  inputs: Pick<InstanceInputs, "overlay" | "networkVolume">,
): Promise<{ clusterId: number | undefined } | { problem: string }> {
  const clusters: ClusterOf[] = [];
  if (inputs.overlay !== undefined) {
    const overlay = await client.overlays.named(inputs.overlay);
    if (overlay === undefined) {
      return { problem: `overlay: no overlay named ${inputs.overlay} on the account` };
    }
    clusters.push({
      what: `overlay ${inputs.overlay}`,
      field: "overlay",
      clusterId: overlay.cluster_id,
    });
  }
  if (inputs.networkVolume !== undefined) {
    const { volumeId } = inputs.networkVolume;
    const volume = (await client.volumes.list()).find((listed) => listed.id === volumeId);
    if (volume === undefined || !isNetworkVolume(volume)) {
      return {
        problem: `networkVolume.volumeId: no network volume ${volumeId} (V.${volumeId}) on the account`,
      };
    }
    clusters.push({
      what: `network volume V.${volumeId}`,
      field: "networkVolume",
      clusterId: volume.cluster_id,
    });
  }
  const conflict = disagreement(clusters);
  if (conflict !== undefined) return { problem: `${conflict.field}: ${conflict.message}` };
  return { clusterId: clusters[0]?.clusterId };
}

/** The second of two placements on another cluster than the first, as a field's failure. */
export function disagreement(
  clusters: readonly ClusterOf[],
): { field: string; message: string } | undefined {
  const [first, second] = clusters;
  if (first === undefined || second === undefined || first.clusterId === second.clusterId) {
    return undefined;
  }
  return {
    field: second.field,
    message:
      `${second.what} is on cluster ${second.clusterId}, but ${first.what} is on cluster ` +
      `${first.clusterId}: an instance reaches both only from one cluster`,
  };
}

/** The overlay's subnet, for the instance's `localIp`; undefined when it cannot be read. */
export async function overlaySubnetOf(
  client: GpuCloudClient,
  name: string | undefined,
): Promise<string | undefined> {
  if (name === undefined) return undefined;
  // A failed look must not fail a create or a refresh: localIp then falls back to the first
  // address, which is the overlay's on the service as on the emulator.
  const overlay = await client.overlays.named(name).catch(() => undefined);
  return overlay?.internal_subnet ?? undefined;
}

/**
 * The instance's private address: inside its overlay's subnet when it is on one, else its first
 * local address; null while it does not run (the service shows no addresses then).
 */
export function localIpOf(
  localAddresses: string | null | undefined,
  overlaySubnet: string | null | undefined,
): string | null {
  const [first] = (localAddresses ?? "").split(/\s+/).filter((address) => address !== "");
  return addressIn(localAddresses, overlaySubnet) ?? first ?? null;
}
