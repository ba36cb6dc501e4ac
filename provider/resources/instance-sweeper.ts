/**
 * The InstanceSweeper resource: the stack's identity and its guard against leftovers, which is
 * the renting engine's (provider/renting/stack-sweeper.ts). This module stays at this path:
 * every sweeper's state names it (`pulumi-gpucloud/provider/resources/instance-sweeper`), so
 * stacks written by earlier versions keep finding their provider.
 */
import { dynamicProvider } from "../provider-runtime";
import { stackPrefixOf } from "../renting/identity";
import { describeResource } from "../shared/resource-descriptor";
import {
  implementation,
  pluginImplementation,
  sweeperInputsSchema,
  sweeperOutputsSchema,
  sweeperResourceInputs,
} from "../renting/stack-sweeper";

export { implementation, pluginImplementation };
/** The dynamic door's provider, which every sweeper's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "instance-sweeper");

/**
 * The stack's sweeper, as the registry lists it: the Python, Go and Node.js SDKs declare it with the
 * first Instance or NodeGroup of a program, as the TypeScript classes do. A YAML program runs no
 * SDK code: it declares the sweeper itself, so the schema has it, as an overlay (the SDKs' own
 * code declares it, no class is generated). Its token is its provider's, which the program's
 * instances carry too; its delete, after every instance's, destroys what this stack's
 * interrupted creates left.
 */
export const descriptor = describeResource({
  type: "InstanceSweeper",
  implementation: pluginImplementation,
  inputs: sweeperInputsSchema,
  outputs: sweeperOutputsSchema,
  description:
    "The stack's guard against instances its interrupted creates left: a `pulumi up` killed " +
    "while an instance boots leaves it in no resource's state, and the sweeper's delete (at " +
    "`pulumi destroy`, after every instance's) destroys it. Python, Go and TypeScript programs " +
    "get one with their first Instance or NodeGroup. A YAML program declares one, with no " +
    "properties, and makes each Instance and NodeGroup depend on it (`options: dependsOn`). " +
    "It destroys only instances that carry this stack's token and are still labelled as being " +
    "created: never one a resource records or retains, nor another stack's.",
  overlay: true,
  // A program gives it no input: nothing to try.
  badInputs: () => [],
  recorded: () => [],
  hidden: sweeperResourceInputs.hidden,
  fill: (news, { project, stack, stackToken }) => ({
    ...news,
    ownerPrefix: news["ownerPrefix"] ?? stackPrefixOf(project, stack),
    // The SDKs send null for it (an output they want back).
    stackToken: news["stackToken"] ?? stackToken,
  }),
});
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
