import type { GpuCloudClient, Instance, Overlay, Volume } from "../../client";
import type { Run } from "../../run/run";
import { leftoversQuery } from "../instance/identity";
import type { NodeGroupInputs } from "./inputs";
import {
  groupOwnerOfNode,
  hasGroupPrefix,
  isLeftoverNode,
  isLeftoverOverlay,
  isProvenLeftoverVolume,
  namePrefixOf,
} from "./naming";
import { tearDown } from "./teardown";

/**
 * Before a group is created, removes what this group's interrupted creates left (a killed
 * `pulumi up`): nodes still labelled as being created by this stack, the overlays that hold
 * only such nodes, and the network volumes of an overlay that holds at least one (naming.ts
 * says why that is the proof a volume needs). Nothing else is touched: not another stack's
 * parts, not a group that was handed over and then kept. Costs three list requests.
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

/**
 * What interrupted group creates made around the given leftover instances (a stack's, found by
 * the InstanceSweeper): each overlay of a node's group (its name carries the group's prefix)
 * whose every member is one of them (at least one), and the network volumes named as those
 * overlays. Instances of no group prove nothing about an overlay they joined (a standalone
 * Overlay the program keeps). Read before the instances are destroyed: a destroyed node leaves
 * its overlay, and an empty overlay proves nothing.
 */
export async function partsAround(
  client: GpuCloudClient,
  leftovers: readonly Instance[],
  stackToken: string,
): Promise<{ overlays: Overlay[]; volumes: Volume[] }> {
  const ids = new Set(leftovers.map((instance) => instance.id));
  const prefixes = new Set(
    leftovers
      .map((instance) => groupOwnerOfNode(instance))
      .filter((owner) => owner !== undefined)
      .map((owner) => namePrefixOf({ owner, stackToken }))
      .filter((prefix) => prefix !== undefined),
  );
  if (prefixes.size === 0) return { overlays: [], volumes: [] };
  const overlays = (await client.overlays.list()).filter(
    (overlay) =>
      [...prefixes].some((prefix) => overlay.name.startsWith(prefix)) &&
      (overlay.instances ?? []).length > 0 &&
      (overlay.instances ?? []).every((id) => ids.has(id)),
  );
  if (overlays.length === 0) return { overlays, volumes: [] };
  const names = new Set(overlays.map((overlay) => overlay.name));
  const volumes = (await client.volumes.list()).filter((volume) =>
    isProvenLeftoverVolume(volume, names),
  );
  return { overlays, volumes };
}
