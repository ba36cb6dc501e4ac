/**
 * The InstanceSweeper resource: the stack's identity and its guard against leftovers, which is
 * the renting engine's (provider/renting/stack-sweeper.ts). This module stays at this path:
 * every sweeper's state names it (`pulumi-gpucloud/provider/resources/instance-sweeper`), so
 * stacks written by earlier versions keep finding their provider.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation, pluginImplementation } from "../renting/stack-sweeper";

export { implementation, pluginImplementation };
/** The dynamic door's provider, which every sweeper's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation);
export {
  InstanceSweeper,
  stackSweeper,
  sweeperInputsSchema,
  sweeperOutputsSchema,
  sweeperResourceInputs,
  withSweeper,
  type SweeperInputs,
  type SweeperOutputs,
} from "../renting/stack-sweeper";
