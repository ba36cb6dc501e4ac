import type * as pulumi from "@pulumi/pulumi";
import { type GpuCloudClient, isNetworkVolume } from "../../client";
import { asksOf, type InstanceInputs } from "../../renting/instance-inputs";
import { type ClusterOf, disagreement } from "../../renting/placement";
import type { Run } from "../../run/run";
import { containsUnknown, fieldFailure } from "../../shared/validation";

// An Instance's placement, checked at preview: on an overlay, or mounting a network volume, it
// must be rented on a machine of the physical cluster they are on (renting/placement.ts says
// why, and finds that cluster at create).

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
  if (volumeId !== undefined) found(await networkVolumePlacement(run, volumeId));
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
  run: Run,
  volumeId: number,
): Promise<{ failures: pulumi.dynamic.CheckFailure[]; cluster?: ClusterOf }> {
  const volume = await run.reads.volume(volumeId);
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
