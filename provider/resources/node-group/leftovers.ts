import type { Instance as InstanceWire } from "../../client";
import {
  hasGroupPrefix,
  isLeftoverNode,
  isLeftoverOverlay,
  isProvenLeftoverVolume,
} from "../../renting/group-ownership";
import { inDestroyOrder, nodesWitnessedBy, unprovenNodeNote } from "../../renting/group-witness";
import { leftoversQuery, ownerOfInstance } from "../../renting/identity";
import type { Run } from "../../run/run";
import type { NodeGroupInputs } from "./inputs";
import { tearDown } from "./teardown";

/** This group's leftover nodes, in the order they may be destroyed (teardown.ts). */
export interface LeftoverNodes {
  /** Nodes an interrupted create or resize left, destroyed first. */
  readonly nodeIds: number[];
  /** The witnesses of unfinished creates, destroyed once every other node is gone. */
  readonly witnessIds: number[];
}

/**
 * The nodes this group's interrupted creates and resizes left: those still labelled as being
 * created by this stack, and the nodes a witness among them proves its create's
 * (renting/group-witness.ts), unless this run rented or records them. A node whose witness is
 * gone is only reported. Costs the filtered list, and a list of the account after an
 * interrupted create.
 */
export async function leftoverNodesOf(
  run: Run,
  inputs: NodeGroupInputs,
  progress: (message: string) => void,
): Promise<LeftoverNodes> {
  const { stackToken } = inputs;
  if (inputs.owner === undefined || stackToken === undefined)
    return { nodeIds: [], witnessIds: [] };
  const labelled = (await run.client.instances.list(leftoversQuery(stackToken))).filter(
    (instance) => isLeftoverNode(instance, inputs),
  );
  const notThisRuns = (instance: InstanceWire) =>
    !run.renting.isRentedThisRun(instance.id) &&
    !run.renting.isRecorded(ownerOfInstance(instance) ?? "", instance.id);
  const { siblings, unproven } = await nodesWitnessedBy(
    run.client,
    labelled,
    stackToken,
    notThisRuns,
  );
  for (const node of unproven) progress(unprovenNodeNote(node));
  const { first, witnesses } = inDestroyOrder([...labelled, ...siblings], stackToken);
  return {
    nodeIds: first.map((instance) => instance.id),
    witnessIds: witnesses.map((instance) => instance.id),
  };
}

/**
 * Before a group is created, removes what this group's interrupted creates left (a killed
 * `pulumi up`): the nodes above (the witnesses last), the overlays that hold only such nodes,
 * and the network volumes of an overlay that holds at least one (renting/group-ownership.ts
 * says why that is the proof a volume needs). Nothing else is touched: not another stack's
 * parts, not a group that was handed over and then kept. Costs three list requests (and the
 * account's list after an interrupted create).
 */
export async function settleGroupLeftovers(
  run: Run,
  inputs: NodeGroupInputs,
  progress: (message: string) => void,
): Promise<void> {
  const client = run.client;
  if (inputs.owner === undefined || inputs.stackToken === undefined) return;
  const { nodeIds, witnessIds } = await leftoverNodesOf(run, inputs, progress);
  const leftoverIds = new Set([...nodeIds, ...witnessIds]);
  const overlays = (await client.overlays.list()).filter((overlay) =>
    isLeftoverOverlay(overlay, inputs, leftoverIds),
  );
  const unfinished = new Set(
    overlays.filter((overlay) => (overlay.instances ?? []).length > 0).map((o) => o.name),
  );
  const named = (await client.volumes.list()).filter((volume) => hasGroupPrefix(volume, inputs));
  const volumes = named.filter((volume) => isProvenLeftoverVolume(volume, unfinished));
  for (const kept of named.filter((volume) => !volumes.includes(volume))) {
    progress(
      `keeping network volume V.${kept.id} (${kept.label ?? ""}): named as this group's, but ` +
        `nothing proves an interrupted run left it; delete it by hand if no one keeps it`,
    );
  }
  if (leftoverIds.size + overlays.length + volumes.length === 0) return;
  progress(
    `removing what an interrupted run of this group left: ` +
      [
        leftoverIds.size > 0 ? `instances ${[...leftoverIds].join(", ")}` : "",
        overlays.length > 0 ? `overlays ${overlays.map((o) => o.name).join(", ")}` : "",
        volumes.length > 0 ? `network volumes ${volumes.map((v) => `V.${v.id}`).join(", ")}` : "",
      ]
        .filter((part) => part !== "")
        .join("; "),
  );
  const left = await tearDown(
    run,
    {
      nodeIds,
      witnessIds,
      overlayIds: overlays.map((overlay) => overlay.overlay_id),
      networkVolumeIds: volumes.map((volume) => volume.id),
    },
    inputs.pollIntervalSeconds,
  );
  if (left.length > 0) {
    throw new Error(
      `what an interrupted run of this group left could not all be removed (${left.join("; ")}); ` +
        `nothing new was rented. Run \`pulumi up\` again.`,
    );
  }
}
