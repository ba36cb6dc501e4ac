import { deleteUnlessGone } from "../../client";
import { destroyEachRented } from "../../renting/destroy";
import type { Run } from "../../run/run";

// Taking a group apart, in the order the service allows and the ownership rule needs: the nodes
// first (confirmed gone), then a create's witness (renting/group-witness.ts: while it carries the
// being-created label it is what proves the other nodes leftovers, so it goes only once they
// are gone), then the overlay, then the network volume, which the service keeps while anything
// mounts it. Used by delete, by a create that cannot finish, by a cancelled one, by the removal
// of an interrupted create's leftovers and by a smaller nodeCount.

export interface GroupParts {
  readonly nodeIds: readonly number[];
  /** A create's witness (rank 0 still being created): destroyed once every node is gone. */
  readonly witnessIds?: readonly number[] | undefined;
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
  const witnessIds = parts.witnessIds ?? [];
  // A witness whose nodes may remain is kept: without it nothing would prove them leftovers.
  const witnessesLeft =
    nodesLeft.length > 0
      ? [...witnessIds]
      : await destroyEachRented(run, witnessIds, pollIntervalSeconds);
  if (witnessesLeft.length > 0) {
    left.push(
      nodesLeft.length > 0
        ? `instances ${witnessesLeft.join(", ")}: kept while instances ${nodesLeft.join(", ")} ` +
            `remain, as the proof that they are leftovers of an unfinished create`
        : `instances ${witnessesLeft.join(", ")} could not be confirmed destroyed`,
    );
  }
  const mayRemain = [...nodesLeft, ...witnessesLeft];
  // An overlay whose nodes may remain is kept: it is what proves them (and the group's volume)
  // leftovers of this group to a later run (renting/group-ownership.ts). A volume a node that is not gone may
  // mount cannot be deleted either: each stays, said so.
  const removal = async (what: string, keptWhile: string, call: () => Promise<unknown>) => {
    if (mayRemain.length > 0) {
      left.push(`${what}: kept while instances ${mayRemain.join(", ")} ${keptWhile}`);
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
