import { resourceModules } from "../registry";
import type { ResourceDescriptor } from "../shared/resource-descriptor";

export type { ResourceContext } from "../shared/resource-descriptor";

/** The package's name in Pulumi: every type token starts with it. */
export const packageName = "gpucloud";

/**
 * One resource type the plugin serves: its descriptor, which its own module exports
 * (provider/resources/<name>.ts), with the same implementation the dynamic entry forwards to.
 */
export type NativeResource = ResourceDescriptor;

/**
 * Every resource type of the package with a class in the SDKs, as the registry lists them
 * (provider/registry.ts, generated from provider/resources/).
 */
export const nativeResources: readonly NativeResource[] = resourceModules
  .map(({ descriptor }) => descriptor)
  .filter((descriptor) => !descriptor.overlay);

/**
 * The stack's sweeper (renting/stack-sweeper.ts), which the Python, Go and Node.js SDKs declare with the
 * first Instance or NodeGroup of a program, as the TypeScript classes do; a YAML program
 * declares it itself, so the schema has it, as an overlay (resources/instance-sweeper.ts).
 */
export const overlayResources: readonly NativeResource[] = resourceModules
  .map(({ descriptor }) => descriptor)
  .filter((descriptor) => descriptor.overlay);

/** The resource a type token names, or undefined. */
export function resourceOf(token: string): NativeResource | undefined {
  const [pkg, module, type] = token.split(":");
  if (pkg !== packageName || module !== "index") return undefined;
  return [...nativeResources, ...overlayResources].find((candidate) => candidate.type === type);
}

export const typeToken = (type: string): string => `${packageName}:index:${type}`;
