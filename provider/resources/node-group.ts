/**
 * The NodeGroup resource, one part per file in ./node-group/. This module's path is what every
 * group's state names (`pulumi-gpucloud/provider/resources/node-group`): it stays.
 */
export { provider } from "./node-group/provider";
export { NodeGroup, type NodeGroupArgs } from "./node-group/resource";
export {
  nodeGroupInputsSchema,
  nodeGroupOutputsSchema,
  type GroupNode,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "./node-group/inputs";
