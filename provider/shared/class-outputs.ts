import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";

// A TypeScript class's outputs, from the resource's outputs schema: every input as applied and
// what the service reports, as the plugin's schema (and so its SDKs and reference pages) says.

/** Each field of a resource's outputs as a `pulumi.Output` of its schema's type. */
export type OutputsOf<Outputs> = { readonly [K in keyof Outputs]-?: pulumi.Output<Outputs[K]> };

/**
 * The dynamic resource base class, typed with `Outputs` as its properties: a class extending
 * it declares (and documents) only what it wants to say more of. Pulumi sets each property when
 * the resource registers; the class names every one (everyOutput) so that each is set.
 */
export function dynamicResourceWith<Outputs>(): new (
  ...args: ConstructorParameters<typeof pulumi.dynamic.Resource>
) => pulumi.dynamic.Resource & OutputsOf<Outputs> {
  // Only the type changes: the properties are the engine's to set.
  return pulumi.dynamic.Resource as unknown as new (
    ...args: ConstructorParameters<typeof pulumi.dynamic.Resource>
  ) => pulumi.dynamic.Resource & OutputsOf<Outputs>;
}

/**
 * Every field of an outputs schema, undefined: a dynamic resource exposes as outputs only the
 * properties its constructor is given, so each is named (an input left out stays readable).
 */
export function everyOutput(schema: z.ZodObject): Record<string, undefined> {
  return Object.fromEntries(Object.keys(schema.shape).map((field) => [field, undefined]));
}
