import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";

// A TypeScript class's outputs, from the resource's outputs schema: every input as applied and
// what the service reports, as the plugin's schema (and so its SDKs and reference pages) says.

/**
 * Each field of a resource's outputs as a `pulumi.Output` of its schema's type: what a class's
 * interface of the same name extends (declaration merging, so that the class stays a plain
 * subclass of Pulumi's, as users' linters expect). The engine sets each property.
 */
export type OutputsOf<Outputs> = { readonly [K in keyof Outputs]-?: pulumi.Output<Outputs[K]> };

/**
 * Every field of an outputs schema, undefined: a dynamic resource exposes as outputs only the
 * properties its constructor is given, so each is named (an input left out stays readable).
 */
export function everyOutput(schema: z.ZodObject): Record<string, undefined> {
  return Object.fromEntries(Object.keys(schema.shape).map((field) => [field, undefined]));
}
