import type * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";

// A TypeScript class's outputs, from the resource's outputs schema: every input as applied and
// what the service reports, as the plugin's schema (and so its SDKs and reference pages) says.

/**
 * Each field of a resource's outputs as a `pulumi.Output` of its schema's type: what a class's
 * interface of the same name extends (declaration merging, so that the class stays a plain
 * subclass of Pulumi's, as users' linters expect). The engine sets each property the class
 * registers; {@link appliedDefaults} makes the others.
 */
export type OutputsOf<Outputs> = { readonly [K in keyof Outputs]-?: pulumi.Output<Outputs[K]> };

/**
 * Every field of an outputs schema, undefined: a dynamic resource exposes as outputs only the
 * properties its constructor is given, so each is named (an input left out stays readable).
 * Each costs the SDK four promises a resource (see {@link reportedOutputs}).
 */
export function everyOutput(schema: z.ZodObject): Record<string, undefined> {
  return reportedOutputs(Object.keys(schema.shape));
}

/**
 * The outputs a class registers besides its inputs: each named, undefined, since a dynamic
 * resource exposes as outputs only the properties its constructor is given. Only what the
 * service reports: every name costs the SDK four promises (each with a formatted stack trace)
 * per resource, and most inputs are left out of most programs (see {@link appliedDefaults}).
 */
export function reportedOutputs(names: readonly string[]): Record<string, undefined> {
  return Object.fromEntries(names.map((name) => [name, undefined]));
}

/**
 * The inputs of `schema` the program left out (not keys of `args`), each as an output made when
 * first read: the value check applies for it (the field's default, else undefined), derived from
 * the resource's URN so that it carries the resource as a dependency. Registering them instead
 * cost every resource four promises a field (see {@link reportedOutputs}) for values the state
 * holds only as these defaults. `except` names inputs the class registers although left out
 * (those a refresh may change, such as an instance's `state`); `applied` overrides a default
 * where check's differs from the schema's.
 */
export function appliedDefaults(
  resource: pulumi.CustomResource,
  schema: { readonly shape: Readonly<Record<string, z.ZodType>> },
  args: object,
  options: {
    readonly except?: readonly string[];
    readonly applied?: Readonly<Record<string, unknown>>;
  } = {},
): void {
  const given = new Set([...Object.keys(args), ...(options.except ?? [])]);
  for (const [field, fieldSchema] of Object.entries(schema.shape)) {
    // A transformation may have added the input to the properties the SDK registered: the
    // engine's value then stands.
    if (given.has(field) || Object.hasOwn(resource, field)) continue;
    let made: pulumi.Output<unknown> | undefined;
    Object.defineProperty(resource, field, {
      configurable: true,
      enumerable: true,
      get: () => {
        made ??= resource.urn.apply(() =>
          options.applied !== undefined && field in options.applied
            ? options.applied[field]
            : fieldSchema.safeParse(undefined).data,
        );
        return made;
      },
    });
  }
}
