import { z } from "zod";

/**
 * The examples of the reference pages (docs/reference, written by scripts/gen-docs from the
 * package schema): for each resource type, and each function that takes arguments, a minimal
 * program that works against the emulator's default market, written once, on the zod definition
 * of its inputs (`withExample`), and rendered by the generator in TypeScript, Python, Go and YAML.
 *
 * An example is a small language that all four can say: the inputs as JSON values, and
 * references to an output of another resource the example declares first (`needs`), e.g. a
 * WorkerGroup's `endpointId: ref("endpoint", "endpointId")` beside an Endpoint named `endpoint`.
 * provider/native/schema.ts puts it in the package schema as the resource's (or function's)
 * `language.docs.example`, which the SDK generators ignore, and test/e2e/reference-examples.test.ts
 * deploys the pages' TypeScript and Python renderings of every example against an emulator.
 */

/** A variable's name in every language: lower camel case (Python's is its snake_case form). */
const variableName = z
  .string()
  .regex(/^[a-z][A-Za-z0-9]*$/, "a variable's name is lower camel case, e.g. endpoint");

/** An output of a resource the example declares, e.g. `{ ref: { resource: "endpoint", ... } }`. */
export const exampleReferenceSchema = z.strictObject({
  ref: z.strictObject({
    /** The declared resource's `name`. */
    resource: variableName,
    /** One of its type's outputs, by its schema name. */
    output: z.string().min(1),
  }),
});
export type ExampleReference = z.infer<typeof exampleReferenceSchema>;

export type ExampleValue =
  ExampleReference | string | number | boolean | ExampleValue[] | { [key: string]: ExampleValue };

// A reference first: an object holding `ref` alone is one, never a map with a key "ref".
export const exampleValueSchema: z.ZodType<ExampleValue> = z.lazy(() =>
  z.union([
    exampleReferenceSchema,
    z.string(),
    z.number(),
    z.boolean(),
    z.array(exampleValueSchema),
    z.record(z.string(), exampleValueSchema),
  ]),
);

const inputsSchema = z.record(z.string(), exampleValueSchema);

/** A resource an example declares before the one (or the call) it shows. */
export const exampleResourceSchema = z.strictObject({
  /** A resource type of the package, e.g. `Endpoint`. */
  type: z.string().regex(/^[A-Z][A-Za-z0-9]*$/),
  /** Its variable's name, and its name in the program (the resource's logical name). */
  name: variableName,
  inputs: inputsSchema,
});
export type ExampleResource = z.infer<typeof exampleResourceSchema>;

export const exampleSchema = z.strictObject({
  /** The resources the example declares first, each referred to by its name. */
  needs: z.array(exampleResourceSchema).optional(),
  /** The resource's inputs, or the function's arguments. */
  inputs: inputsSchema,
});
export type Example = z.infer<typeof exampleSchema>;

/**
 * What an input of type `T` takes in an example: a value of its type, or a reference. The
 * examples are checked against their inputs' zod types when the provider compiles.
 */
export type ExampleOf<T> =
  | ExampleReference
  | (unknown extends T
      ? ExampleValue
      : T extends string | number | boolean
        ? T
        : T extends readonly (infer Item)[]
          ? ExampleOf<Item>[]
          : T extends object
            ? { [Key in keyof T]: ExampleOf<T[Key]> }
            : never);

/**
 * The inputs an example gives: some of `Inputs`, since a minimal example leaves out what has a
 * default (which inputs a resource cannot do without, the example's run proves).
 */
export type ExampleInputs<Inputs> = { [Key in keyof Inputs]?: ExampleOf<Inputs[Key]> };

/** An example as written beside a zod definition of inputs `Inputs`. */
export interface AuthoredExample<Inputs> {
  needs?: ExampleResource[];
  inputs: ExampleInputs<Inputs>;
}

/** A reference to output `output` of the declared resource `resource` (of outputs `Outputs`). */
// Given explicitly (`ref<EndpointOutputs>`), the type argument checks the output's name.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function ref<Outputs = Record<string, unknown>>(
  resource: string,
  output: keyof Outputs & string,
): ExampleReference {
  return { ref: { resource, output } };
}

/** A resource an example needs, with inputs checked against its type's inputs `Inputs`. */
export function declared<Inputs>(
  type: string,
  name: string,
  inputs: ExampleInputs<Inputs>,
): ExampleResource {
  return exampleResourceSchema.parse({ type, name, inputs });
}

/**
 * Gives the zod definition of a resource's or function's inputs its example (its metadata in
 * zod's global registry, where `exampleOf` and the schema generator read it); returns the
 * definition itself, unchanged for every other use.
 */
export function withExample<Schema extends z.ZodObject>(
  schema: Schema,
  example: AuthoredExample<z.input<Schema>>,
): Schema {
  // Registered on the definition itself (not a copy, as `.meta()` makes), which stays the one
  // every resource module checks its inputs with.
  const definition: z.ZodType = schema;
  const meta = z.globalRegistry.get(definition);
  z.globalRegistry.add(definition, { ...meta, example: exampleSchema.parse(example) });
  return schema;
}

/** The example given to a zod definition of inputs, if any. */
export function exampleOf(schema: z.ZodType): Example | undefined {
  return exampleSchema.optional().parse(z.globalRegistry.get(schema)?.["example"]);
}
