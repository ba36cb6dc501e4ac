import { deleteUnlessGone } from "../../client";
import { destroyEachRented } from "../../renting/destroy";
import type { Run } from "../../run/run";

// Taking a group apart, in the order the service allows: the nodes first (confirmed gone), then
// the overlay, then the network volume, which the service keeps while anything mounts it. Used
// by delete, by a create that cannot finish, by a cancelled one and by a smaller nodeCount.

export interface GroupParts {
  readonly nodeIds: readonly number[];
  readonly overlayIds: readonly number[];
  readonly networkVolumeIds: readonly number[];
}

/**
 * Removes every part of the group that exists; parts already gone count as removed. Returns
 * one line per part that is left (and why), empty when nothing is.
 */
export async function tearDown(
  run: Run,
  parts: GroupParts,
  pollIntervalSeconds: number,
): Promise<string[]> {
  const client = run.client;
  const left: string[] = [];
  const nodesLeft = await destroyEachRented(run, parts.nodeIds, pollIntervalSeconds);
  if (nodesLeft.length > 0)
    left.push(`instances ${nodesLeft.join(", ")} could not be confirmed destroyed`);
  // An overlay whose nodes may remain is kept: it is what proves them (and the group's volume)
  // leftovers of this group to a later run (renting/group-ownership.ts). A volume a node that is not gone may
  // mount cannot be deleted either: each stays, said so.
  const removal = async (what: string, keptWhile: string, call: () => Promise<unknown>) => {
    if (nodesLeft.length > 0) {
      left.push(`${what}: kept while instances ${nodesLeft.join(", ")} ${keptWhile}`);
      return;
    }
    try {
      await deleteUnlessGone(call());
    } catch (error) {
      left.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  for (const overlayId of parts.overlayIds) {
    await removal(`overlay ${overlayId}`, "may be on it", () => client.overlays.delete(overlayId));
  }
  for (const volumeId of parts.networkVolumeIds) {
    await removal(`network volume V.${volumeId}`, "may mount it", () =>
      client.volumes.delete(volumeId),
    );
  }
  return left;
}
