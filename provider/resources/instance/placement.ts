import type * as pulumi from "@pulumi/pulumi";
import { addressIn } from "../../addresses";
import { type GpuCloudClient, isNetworkVolume } from "../../client";
import type { Run } from "../../run/run";
import { containsUnknown, fieldFailure } from "../../validation";
import { asksOf, type InstanceInputs } from "./inputs";

// An instance on an overlay, or mounting a network volume, must be rented on a machine of the
// physical cluster they are on: its create joins the overlay (`-n NAME`) and mounts the volume
// (`-v V.<id>:<path>`) in its env, as the official client does, and the service refuses both
// from any other machine.

/** Something of the instance's placement, and the cluster it is on. */
interface ClusterOf {
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

function disagreement(
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

/**
 * At check (preview included), for an instance about to be rented: the overlay exists (on the
 * account, or declared by this program's Overlay, whose create comes later), the network volume
 * is one on the account, both are on one cluster, an explicit ask is on a machine of that
 * cluster, and a VM joins no overlay. What is not known yet (an overlay's cluster, a volume
 * created in the same run) is left for the create, which the service refuses in any case.
 */
export async function placementFailures(
  run: Run,
  inputs: InstanceInputs,
  news: Record<string, unknown>,
): Promise<pulumi.dynamic.CheckFailure[]> {
  const client = run.client;
  const failures: pulumi.dynamic.CheckFailure[] = [];
  const clusters: ClusterOf[] = [];
  const found = (step: { failures: pulumi.dynamic.CheckFailure[]; cluster?: ClusterOf }) => {
    failures.push(...step.failures);
    if (step.cluster !== undefined) clusters.push(step.cluster);
  };
  const overlayName = containsUnknown(news["overlay"]) ? undefined : inputs.overlay;
  if (overlayName !== undefined) found(await overlayPlacement(run, inputs, overlayName));
  const volumeId = containsUnknown(news["networkVolume"])
    ? undefined
    : inputs.networkVolume?.volumeId;
  if (volumeId !== undefined) found(await networkVolumePlacement(client, volumeId));
  const conflict = disagreement(clusters);
  if (conflict !== undefined) failures.push(fieldFailure(conflict.field, conflict.message));
  const [wanted] = clusters;
  const asks = asksOf(inputs);
  if (
    failures.length > 0 ||
    wanted === undefined ||
    asks.length === 0 ||
    containsUnknown(news["askId"]) ||
    containsUnknown(news["askIds"])
  ) {
    return failures;
  }
  const elsewhere = await askOffCluster(client, inputs, asks, wanted);
  return elsewhere === undefined ? failures : [...failures, elsewhere];
}

/** The overlay's cluster (when known), or why the instance cannot join it. */
async function overlayPlacement(
  run: Run,
  inputs: InstanceInputs,
  overlayName: string,
): Promise<{ failures: pulumi.dynamic.CheckFailure[]; cluster?: ClusterOf }> {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  if (inputs.runtype === "vm") {
    failures.push(
      fieldFailure(
        "overlay",
        "a VM cannot join an overlay: overlay networks are for container instances " +
          "(runtype ssh, jupyter or args)",
      ),
    );
  }
  // Declared by an Overlay of this program, checked earlier in the run: maybe not created yet.
  const declared = run.made.declaredOverlays.get(overlayName);
  const clusterId =
    declared === undefined
      ? (await run.client.overlays.named(overlayName))?.cluster_id
      : declared.clusterId;
  if (declared === undefined && clusterId === undefined) {
    failures.push(
      fieldFailure(
        "overlay",
        `no overlay named ${overlayName} on the account: declare it with a gpucloud Overlay ` +
          "and give its name output (overlay: net.name), so that the instance is created " +
          "after it",
      ),
    );
  }
  return clusterId === undefined
    ? { failures }
    : { failures, cluster: { what: `overlay ${overlayName}`, field: "overlay", clusterId } };
}

/** The network volume's cluster, or why the instance cannot mount it. */
async function networkVolumePlacement(
  client: GpuCloudClient,
  volumeId: number,
): Promise<{ failures: pulumi.dynamic.CheckFailure[]; cluster?: ClusterOf }> {
  const volume = (await client.volumes.list()).find((listed) => listed.id === volumeId);
  if (volume === undefined) {
    return {
      failures: [
        fieldFailure(
          "networkVolume.volumeId",
          `no volume ${volumeId} (V.${volumeId}) on the account: give a NetworkVolume's volumeId`,
        ),
      ],
    };
  }
  if (!isNetworkVolume(volume)) {
    return {
      failures: [
        fieldFailure(
          "networkVolume",
          `V.${volumeId} is a local volume, on machine ${volume.machine_id ?? "?"}: link it with ` +
            "volume, or give a NetworkVolume's volumeId here",
        ),
      ],
    };
  }
  return {
    failures: [],
    cluster: {
      what: `network volume V.${volumeId}`,
      field: "networkVolume",
      clusterId: volume.cluster_id,
    },
  };
}

/** A failure for an explicit ask on a machine outside the wanted cluster, if there is one. */
async function askOffCluster(
  client: GpuCloudClient,
  inputs: InstanceInputs,
  asks: readonly number[],
  wanted: ClusterOf,
): Promise<pulumi.dynamic.CheckFailure | undefined> {
  // Rented asks are searched too: the one an instance holds is still on its machine. A failed
  // search says nothing: the create's refusal will.
  const offers = await client.instances
    .searchOffers({ id: { in: asks }, rented: {}, rentable: {}, verified: {} })
    .catch(() => []);
  const elsewhere = offers.find((offer) => (offer.cluster_id ?? null) !== wanted.clusterId);
  if (elsewhere === undefined) return undefined;
  const where =
    elsewhere.cluster_id === null || elsewhere.cluster_id === undefined
      ? "in no cluster"
      : `in cluster ${elsewhere.cluster_id}`;
  return fieldFailure(
    inputs.askIds === undefined ? "askId" : "askIds",
    `ask ${elsewhere.id} is on machine ${elsewhere.machine_id ?? "?"}, ${where}, but ` +
      `${wanted.what} is on cluster ${wanted.clusterId}: rent on a machine of cluster ` +
      `${wanted.clusterId} (with offerQuery, the search is pinned to it)`,
  );
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
