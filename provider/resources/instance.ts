/**
 * The Instance resource, one part per file in ./instance/. This module stays at this path:
 * every instance's state names it (`pulumi-gpucloud/provider/resources/instance`), so stacks
 * written by earlier versions keep finding their provider.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation } from "./instance/provider";

export { implementation };
/** The dynamic door's provider, which every instance's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation);
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
