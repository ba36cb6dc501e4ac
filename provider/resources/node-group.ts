/**
 * The NodeGroup resource, one part per file in ./node-group/. This module's path is what every
 * group's state names (`pulumi-gpucloud/provider/resources/node-group`): it stays.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation } from "./node-group/provider";
import { withOwnerAndToken } from "../renting/identity";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import {
  nodeGroupInputsSchema,
  nodeGroupOutputsSchema,
  nodeGroupResourceInputs,
} from "./node-group/inputs";
import { nodeGroupBadInputs, nodeGroupRecorded } from "./node-group/test-data";

export { implementation };
/** The dynamic door's provider, which every group's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "node-group");

/** NodeGroup, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "NodeGroup",
  implementation,
  inputs: nodeGroupInputsSchema,
  outputs: nodeGroupOutputsSchema,
  description:
    "nodeCount GPU instances in one physical cluster, on one overlay network (a private LAN on " +
    "all ports, for NCCL), with an optional network volume every node mounts: multi-node " +
    "training as one resource. Each node has NODE_RANK, WORLD_SIZE and MASTER_ADDR (rank 0's " +
    "overlay address) in its environment. Create chooses the cheapest cluster that holds the " +
    "group and waits until every node runs, or takes the whole group apart.",
  rentsInstances: true,
  hidden: nodeGroupResourceInputs.hidden,
  importSecrets: ["env"],
  // As the class does: the owner, and the stack's token (renting/identity.ts).
  fill: withOwnerAndToken,
  packageTypes: ["NodeGroupArgs"],
  tests: {
    records: "instances",
    // Every node of the group is an instance of the account.
    isOnAccount: (outputs, account) => {
      const nodes = Array.isArray(outputs["nodes"]) ? (outputs["nodes"] as unknown[]) : [];
      return (
        nodes.length > 0 &&
        nodes.every((node) =>
          hasRecord("instances", "instanceId")(node as Record<string, unknown>, account),
        )
      );
    },
  },
  badInputs: nodeGroupBadInputs,
  recorded: nodeGroupRecorded,
});

export { NodeGroup, type NodeGroupArgs } from "./node-group/resource";
export {
  nodeGroupInputsSchema,
  nodeGroupOutputsSchema,
  nodeGroupResourceInputs,
  type GroupNode,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "./node-group/inputs";
