/**
 * The WorkerGroup resource, one part per file in ./worker-group/. This module stays at this
 * path: every worker group's state names it (`pulumi-gpucloud/provider/resources/worker-group`),
 * so stacks written by earlier versions keep finding their provider.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation } from "./worker-group/provider";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import { workerGroupInputsSchema, workerGroupOutputsSchema } from "./worker-group/inputs";

export { implementation };
/** The dynamic door's provider, which every worker group's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation);

/** WorkerGroup, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "WorkerGroup",
  implementation,
  inputs: workerGroupInputsSchema,
  outputs: workerGroupOutputsSchema,
  description:
    "A worker group of a serverless endpoint: workers launched from a template on offers " +
    "matching a query.",
  packageTypes: ["WorkerGroupArgs"],
  tests: { records: "workerGroups", isOnAccount: hasRecord("workerGroups", "workerGroupId") },
});
export { WorkerGroup, type WorkerGroupArgs } from "./worker-group/resource";
export { diffWorkerGroup, replacingFields, searchQueryOf } from "./worker-group/diff";
export {
  workerGroupInputsSchema,
  workerGroupOutputsSchema,
  type WorkerGroupInputs,
  type WorkerGroupOutputs,
} from "./worker-group/inputs";
