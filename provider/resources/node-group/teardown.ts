import { deleteUnlessGone, type GpuCloudClient } from "../../client";
import { CancelledError, isCancelled } from "../../cancellation";
import { destroyAfterCancel, destroyAndConfirm } from "../instance/lifecycle";

// Taking a group apart, in the order the service allows: the nodes first (confirmed gone), then
// the overlay, then the network volume, which the service keeps while anything mounts it. Used
// by delete, by a create that cannot finish, by a cancelled one and by a smaller nodeCount.

export interface GroupParts {
  readonly nodeIds: readonly number[];
  readonly overlayIds: readonly number[];
  readonly networkVolumeIds: readonly number[];
}

/**
 * Destroys each node and confirms it gone: until the engine cancels the operation with the
 * node's own polling, from then on within the cleanup bound. Returns the nodes that could not
 * be confirmed gone.
 */
export async function destroyNodes(
  client: GpuCloudClient,
  nodeIds: readonly number[],
  pollIntervalSeconds: number,
): Promise<number[]> {
  const outcomes = await Promise.all(
    nodeIds.map(async (id) => {
      if (!isCancelled()) {
        try {
          return await destroyAndConfirm(client, id, pollIntervalSeconds);
        } catch (error) {
          if (!(error instanceof CancelledError)) return false;
        }
      }
      return destroyAfterCancel(client, id);
    }),
  );
  return nodeIds.filter((_, index) => outcomes[index] !== true);
}

/**
 * Removes every part of the group that exists; parts already gone count as removed. Returns
 * one line per part that is left (and why), empty when nothing is.
 */
export async function tearDown(
  client: GpuCloudClient,
  parts: GroupParts,
  pollIntervalSeconds: number,
): Promise<string[]> {
  const left: string[] = [];
  const nodesLeft = await destroyNodes(client, parts.nodeIds, pollIntervalSeconds);
  if (nodesLeft.length > 0)
    left.push(`instances ${nodesLeft.join(", ")} could not be confirmed destroyed`);
  const removal = async (what: string, call: () => Promise<unknown>) => {
    try {
      await deleteUnlessGone(call());
    } catch (error) {
      left.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  // An overlay whose nodes may remain is kept: it is what proves them (and the group's volume)
  // leftovers of this group to a later run (naming.ts).
  for (const overlayId of parts.overlayIds) {
    if (nodesLeft.length > 0) {
      left.push(`overlay ${overlayId}: kept while instances ${nodesLeft.join(", ")} may be on it`);
    } else {
      await removal(`overlay ${overlayId}`, () => client.overlays.delete(overlayId));
    }
  }
  // A volume still mounted by a node that is not gone cannot be deleted: it stays, said so.
  for (const volumeId of parts.networkVolumeIds) {
    if (nodesLeft.length > 0) {
      left.push(
        `network volume V.${volumeId}: kept while instances ${nodesLeft.join(", ")} may mount it`,
      );
    } else {
      await removal(`network volume V.${volumeId}`, () => client.volumes.delete(volumeId));
    }
  }
  return left;
}
