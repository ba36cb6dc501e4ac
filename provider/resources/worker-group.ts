/**
 * The WorkerGroup resource, one part per file in ./worker-group/. This module stays at this
 * path: every worker group's state names it (`pulumi-gpucloud/provider/resources/worker-group`),
 * so stacks written by earlier versions keep finding their provider.
 */
export { provider } from "./worker-group/provider";
export { WorkerGroup, type WorkerGroupArgs } from "./worker-group/resource";
export { diffWorkerGroup, replacingFields, searchQueryOf } from "./worker-group/diff";
export {
  workerGroupInputsSchema,
  workerGroupOutputsSchema,
  type WorkerGroupInputs,
  type WorkerGroupOutputs,
} from "./worker-group/inputs";
