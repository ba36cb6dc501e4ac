/**
 * The NodeGroup resource, one part per file in ./node-group/. This module's path is what every
 * group's state names (`pulumi-gpucloud/provider/resources/node-group`): it stays.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation } from "./node-group/provider";

export { implementation };
/** The dynamic door's provider, which every group's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation);
export { NodeGroup, type NodeGroupArgs } from "./node-group/resource";
export {
  nodeGroupInputsSchema,
  nodeGroupOutputsSchema,
  nodeGroupResourceInputs,
  type GroupNode,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "./node-group/inputs";
