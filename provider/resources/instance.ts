/**
 * The Instance resource, one part per file in ./instance/. This module stays at this path:
 * every instance's state names it (`pulumi-gpucloud/provider/resources/instance`), so stacks
 * written by earlier versions keep finding their provider.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation } from "./instance/provider";
import { withOwnerAndToken } from "../renting/identity";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import {
  instanceInputsSchema,
  instanceOutputsSchema,
  instanceResourceInputs,
} from "./instance/inputs";
import { instanceBadInputs, instanceRecorded } from "./instance/test-data";

export { implementation };
/** The dynamic door's provider, which every instance's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "instance");

/** Instance, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "Instance",
  implementation,
  inputs: instanceInputsSchema,
  outputs: instanceOutputsSchema,
  description:
    "A GPU instance rented from an ask (askId, askIds) or the best offer matching offerQuery. " +
    "Create waits until it is running; an instance that reaches a dead end is destroyed and " +
    "another is tried, up to maxAttempts. A failed create leaves nothing running.",
  rentsInstances: true,
  hidden: instanceResourceInputs.hidden,
  importSecrets: ["env"],
  // As the class does: the owner, and the stack's token (renting/identity.ts).
  fill: withOwnerAndToken,
  packageTypes: ["InstanceArgs", "InstanceAttempt"],
  tests: { records: "instances", isOnAccount: hasRecord("instances", "instanceId") },
  badInputs: instanceBadInputs,
  recorded: instanceRecorded,
});
export { Instance, type InstanceArgs } from "./instance/resource";
export { diffInstance } from "./instance/diff";
export {
  asksOf,
  instanceInputsSchema,
  instanceOutputsSchema,
  instanceResourceInputs,
  type InstanceAttempt,
  type InstanceInputs,
  type InstanceOutputs,
} from "./instance/inputs";
