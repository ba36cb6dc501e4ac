/**
 * The WorkerGroup resource, one part per file in ./worker-group/. This module stays at this
 * path: every worker group's state names it (`pulumi-gpucloud/provider/resources/worker-group`),
 * so stacks written by earlier versions keep finding their provider.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation } from "./worker-group/provider";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import { workerGroupInputsSchema, workerGroupOutputsSchema } from "./worker-group/inputs";
import { searchQueryOf } from "./worker-group/diff";

export { implementation };
/** The dynamic door's provider, which every worker group's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "worker-group");

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
  badInputs: () => [
    {
      what: "both templates, an ordered query, negative workers, args as a list",
      args: {
        endpointId: 1,
        templateHashId: "0123456789abcdef0123456789abcdef",
        templateId: 7,
        offerQuery: { gpuName: "RTX 4090", order: [["dollarsPerHour", "asc"]] },
        testWorkers: -1,
        launchArgs: ["--env", "TOKEN=never-echoed-value"],
      },
      cases: [
        {
          field: "templateHashId",
          says: /templateHashId: give templateHashId or templateId, not both/,
        },
        {
          field: "offerQuery",
          says: /offerQuery\.order: a worker group's query only filters offers/,
        },
        { field: "testWorkers", says: /testWorkers: is a number of workers/ },
        { field: "launchArgs", says: /launchArgs: expected a string, received a list of 2/ },
      ],
      secrets: ["never-echoed-value"],
    },
  ],
  recorded: () => [
    {
      // At the service's defaults (the zod definition's).
      olds: {
        ...workerGroupInputsSchema.parse({ endpointId: 1 }),
        workerGroupId: 2,
        searchQuery: searchQueryOf(undefined),
      },
    },
  ],
});
export { WorkerGroup, type WorkerGroupArgs } from "./worker-group/resource";
export { diffWorkerGroup, replacingFields, searchQueryOf } from "./worker-group/diff";
export {
  workerGroupInputsSchema,
  workerGroupOutputsSchema,
  type WorkerGroupInputs,
  type WorkerGroupOutputs,
} from "./worker-group/inputs";
