import { rebuildContainerFrom } from "../../renting/container-rebuild";
import { untilStatus } from "../../renting/power";
import type { GroupBuild } from "./build";
import { nodeInputsOf, recordedNode } from "./ranks";
import type { GroupNode } from "./inputs";
import { awaitNodesReady } from "./readiness";

// What every node runs (image, env, onstart, args), changed on the nodes' machines: each node's
// container is rebuilt with what a node of the new inputs would launch, its rank, WORLD_SIZE,
// MASTER_ADDR, overlay and volume entries included. The group keeps its instances, machines,
// cluster, overlay addresses and price; what the containers wrote outside the network volume
// is lost, as a rebuild creates each container anew.

/** The preview's line for a group whose containers are rebuilt in place. */
export function groupRebuildNote(nodeCount: number, changed: readonly string[]): string {
  return (
    `the group's ${nodeCount} nodes are updated in place (${changed.join(", ")} changed): ` +
    "each node's container is rebuilt on its machine (same instances, machines and price, the " +
    "network volume still mounted); their local disks are lost, as the service creates each " +
    "container anew"
  );
}

/**
 * Rebuilds the containers of `nodes` (all sent, then awaited together, readiness included) and
 * returns them as they run now. A failure leaves the group's state as it was: the next `up`
 * rebuilds every node again, which gives the same containers.
 */
export async function rebuildNodes(
  build: GroupBuild,
  nodes: readonly GroupNode[],
  masterAddr: string,
): Promise<GroupNode[]> {
  const { run } = build;
  for (const node of nodes) {
    const inputs = nodeInputsOf(build, node.rank, masterAddr);
    await rebuildContainerFrom(run, node.instanceId, inputs, build.expiry, build.name);
  }
  await Promise.all(
    nodes.map(async (node) => {
      await untilStatus(run, node.instanceId, "running", build.inputs);
      build.nodes.set(node.rank, await recordedNode(build, node.rank, node.instanceId, node.askId));
    }),
  );
  await awaitNodesReady(
    build,
    nodes.map((node) => node.rank),
  );
  return nodes.map((node) => build.nodes.get(node.rank) ?? node);
}
