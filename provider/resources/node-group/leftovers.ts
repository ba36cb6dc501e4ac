import {
  hasGroupPrefix,
  isLeftoverNode,
  isLeftoverOverlay,
  isProvenLeftoverVolume,
} from "../../renting/group-ownership";
import { leftoversQuery } from "../../renting/identity";
import type { Run } from "../../run/run";
import type { NodeGroupInputs } from "./inputs";
import { tearDown } from "./teardown";

/**
 * Before a group is created, removes what this group's interrupted creates left (a killed
 * `pulumi up`): nodes still labelled as being created by this stack, the overlays that hold
 * only such nodes, and the network volumes of an overlay that holds at least one
 * (renting/group-ownership.ts says why that is the proof a volume needs). Nothing else is
 * touched: not another stack's parts, not a group that was handed over and then kept. Costs
 * three list requests.
 */
export async function settleGroupLeftovers(
  run: Run,
  inputs: NodeGroupInputs,
  progress: (message: string) => void,
): Promise<void> {
  const client = run.client;
  if (inputs.owner === undefined || inputs.stackToken === undefined) return;
  const stackToken = inputs.stackToken;
  const nodes = (await client.instances.list(leftoversQuery(stackToken))).filter((instance) =>
    isLeftoverNode(instance, inputs),
  );
  const nodeIds = new Set(nodes.map((node) => node.id));
  const overlays = (await client.overlays.list()).filter((overlay) =>
    isLeftoverOverlay(overlay, inputs, nodeIds),
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
  if (nodes.length + overlays.length + volumes.length === 0) return;
  progress(
    `removing what an interrupted run of this group left: ` +
      [
        nodes.length > 0 ? `instances ${[...nodeIds].join(", ")}` : "",
        overlays.length > 0 ? `overlays ${overlays.map((o) => o.name).join(", ")}` : "",
        volumes.length > 0 ? `network volumes ${volumes.map((v) => `V.${v.id}`).join(", ")}` : "",
      ]
        .filter((part) => part !== "")
        .join("; "),
  );
  const left = await tearDown(
    run,
    {
      nodeIds: [...nodeIds],
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
