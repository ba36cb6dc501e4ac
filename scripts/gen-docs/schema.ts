/** The schema `pulumi package get-schema` prints, as much of it as the pages show. */
import { z } from "zod";
import { exampleSchema } from "../../provider/shared/reference-examples";

export interface TypeSpec {
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
  oneOf?: TypeSpec[];
}

const typeSpecSchema: z.ZodType<TypeSpec> = z.lazy(() =>
  z.object({
    type: z.enum(["string", "number", "integer", "boolean", "array", "object"]).optional(),
    items: typeSpecSchema.optional(),
    additionalProperties: typeSpecSchema.optional(),
    $ref: z.string().optional(),
    oneOf: z.array(typeSpecSchema).optional(),
  }),
);

const propertySchema = z.intersection(
  typeSpecSchema,
  z.object({
    description: z.string().optional(),
    secret: z.boolean().optional(),
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
    willReplaceOnChanges: z.boolean().optional(),
    // What Pulumi's schema has no field for (provider/native/schema.ts, changeMarks).
    language: z
      .object({
        docs: z
          .object({
            replacement: z.literal("sometimes").optional(),
            requiredToCreate: z.boolean().optional(),
          })
          .optional(),
      })
      .optional(),
  }),
);
export type Property = z.infer<typeof propertySchema>;

const propertiesSchema = z.record(z.string(), propertySchema).default({});

const objectTypeSchema = z.object({
  description: z.string().optional(),
  // `pulumi package get-schema` leaves an empty map out.
  properties: propertiesSchema,
  required: z.array(z.string()).default([]),
});
/**
 * A resource's or function's example (provider/native/schema.ts, exampleDocs), if it has one,
 * and whether a YAML program makes the resource depend on the stack's InstanceSweeper.
 */
const exampleDocsSchema = z
  .object({
    docs: z
      .object({
        example: exampleSchema.optional(),
        dependsOnSweeper: z.literal(true).optional(),
      })
      .optional(),
  })
  .optional();

const resourceSchema = objectTypeSchema.extend({
  inputProperties: propertiesSchema,
  requiredInputs: z.array(z.string()).default([]),
  language: exampleDocsSchema,
  isOverlay: z.boolean().optional(),
});
export type Resource = z.infer<typeof resourceSchema>;

const emptyObject = { properties: {}, required: [] };

const functionSchema = z.object({
  description: z.string().optional(),
  inputs: objectTypeSchema.default(emptyObject),
  outputs: objectTypeSchema.default(emptyObject),
  language: exampleDocsSchema,
});
export type Fn = z.infer<typeof functionSchema>;

export const packageSpecSchema = z.object({
  name: z.string(),
  displayName: z.string(),
  description: z.string().optional(),
  version: z.string(),
  repository: z.string(),
  pluginDownloadURL: z.string(),
  config: z.object({ variables: propertiesSchema }).default({ variables: {} }),
  provider: resourceSchema,
  // An overlay (the stack's InstanceSweeper) is declared by the SDKs' own code, no class is
  // generated for it: its page says so, and how a YAML program declares it.
  resources: z.record(z.string(), resourceSchema).default({}),
  functions: z.record(z.string(), functionSchema).default({}),
  types: z.record(z.string(), objectTypeSchema).default({}),
  language: z.object({
    nodejs: z.object({ packageName: z.string() }),
    python: z.object({ packageName: z.string() }),
    go: z.object({ importBasePath: z.string() }),
  }),
});
export type PackageSpec = z.infer<typeof packageSpecSchema>;
