/**
 * The WorkerGroup resource, one part per file in ./worker-group/. This module stays at this
 * path: every worker group's state names it (`pulumi-gpucloud/provider/resources/worker-group`),
 * so stacks written by earlier versions keep finding their provider.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation } from "./worker-group/provider";

export { implementation };
/** The dynamic door's provider, which every worker group's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation);
export { WorkerGroup, type WorkerGroupArgs } from "./worker-group/resource";
export { diffWorkerGroup, replacingFields, searchQueryOf } from "./worker-group/diff";
export {
  workerGroupInputsSchema,
  workerGroupOutputsSchema,
  type WorkerGroupInputs,
  type WorkerGroupOutputs,
} from "./worker-group/inputs";
