import { z } from "zod";
import { providerConfigSchema } from "../config";
import { nativeFunctions } from "./functions";
import { nativeResources, packageName, typeToken } from "./resources";

/**
 * The package's Pulumi schema, generated from the zod definitions the resources check their
 * inputs with (`z.toJSONSchema`), so that nothing is written twice. A field whose zod
 * definition carries `.meta({ secret: true })` is marked `secret`.
 */

/** A Pulumi schema type reference (the subset this package needs). */
export interface TypeSpec {
  type?: "string" | "number" | "integer" | "boolean" | "array" | "object";
  items?: TypeSpec;
  additionalProperties?: TypeSpec;
  $ref?: string;
  oneOf?: TypeSpec[];
}

export interface PropertySpec extends TypeSpec {
  description?: string;
  secret?: boolean;
  default?: string | number | boolean;
}

export interface ObjectTypeSpec {
  type: "object";
  description?: string;
  properties: Record<string, PropertySpec>;
  required?: string[];
}

export interface ResourceSpec extends ObjectTypeSpec {
  inputProperties: Record<string, PropertySpec>;
  requiredInputs?: string[];
}

export interface FunctionSpec {
  description?: string;
  inputs: ObjectTypeSpec;
  outputs: ObjectTypeSpec;
}

export interface PackageSpec {
  name: string;
  displayName: string;
  version: string;
  description: string;
  license: string;
  config: { variables: Record<string, PropertySpec>; defaults?: string[] };
  provider: ResourceSpec;
  resources: Record<string, ResourceSpec>;
  functions: Record<string, FunctionSpec>;
  types: Record<string, ObjectTypeSpec>;
  language: Record<string, unknown>;
}

/** JSON Schema, as `z.toJSONSchema` writes it. */
interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  secret?: boolean;
}

const any: TypeSpec = { $ref: "pulumi.json#/Any" };

const pascal = (name: string): string => name.charAt(0).toUpperCase() + name.slice(1);

/** True when the JSON Schema says nothing (zod's output of a transform, `z.unknown()`). */
const isEmpty = (json: JsonSchema): boolean =>
  json.type === undefined &&
  json.anyOf === undefined &&
  json.oneOf === undefined &&
  json.enum === undefined &&
  json.const === undefined &&
  json.properties === undefined;

class Translator {
  readonly types: Record<string, ObjectTypeSpec> = {};

  /** A Pulumi type for a JSON Schema; objects with properties become named types. */
  type(json: JsonSchema, name: string): TypeSpec {
    const alternatives = (json.anyOf ?? json.oneOf)?.filter((option) => option.type !== "null");
    if (alternatives !== undefined) {
      const [only] = alternatives;
      if (alternatives.length === 1 && only !== undefined) return this.type(only, name);
      const options = alternatives.map((option, index) => this.type(option, `${name}${index}`));
      // Pulumi's SDKs type a union of a string and an object loosely: one Any, as YAML reads it.
      return options.every((option) => option.type !== undefined && option.type !== "object")
        ? { oneOf: options }
        : any;
    }
    const types = (Array.isArray(json.type) ? json.type : [json.type]).filter(
      (type) => type !== "null" && type !== undefined,
    );
    const [type] = types;
    if (types.length > 1 || type === undefined) {
      if (json.enum !== undefined || json.const !== undefined) {
        const values = json.enum ?? [json.const];
        if (values.every((value) => typeof value === "string")) return { type: "string" };
      }
      return any;
    }
    switch (type) {
      case "string":
      case "number":
      case "integer":
      case "boolean":
        return { type };
      case "array":
        return { type: "array", items: json.items ? this.type(json.items, `${name}Item`) : any };
      case "object": {
        if (json.properties !== undefined && Object.keys(json.properties).length > 0) {
          const token = typeToken(name);
          this.types[token] ??= this.object(json, name);
          return { $ref: `#/types/${token}` };
        }
        const values =
          typeof json.additionalProperties === "object" && !isEmpty(json.additionalProperties)
            ? this.type(json.additionalProperties, `${name}Value`)
            : any;
        return { type: "object", additionalProperties: values };
      }
      default:
        return any;
    }
  }

  property(json: JsonSchema, name: string): PropertySpec {
    const property: PropertySpec = { ...this.type(json, name) };
    if (json.description !== undefined) property.description = json.description;
    if (json.secret === true) property.secret = true;
    const value = json.default;
    if (
      property.type !== undefined &&
      (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    ) {
      property.default = value;
    }
    return property;
  }

  properties(
    json: JsonSchema,
    owner: string,
    hidden: readonly string[] = [],
    fallback?: JsonSchema,
  ): Record<string, PropertySpec> {
    const properties: Record<string, PropertySpec> = {};
    for (const [field, inner] of Object.entries(json.properties ?? {})) {
      if (hidden.includes(field)) continue;
      // A transform has no JSON form on its output side: its input side says what it holds.
      const backup = fallback?.properties?.[field];
      const chosen = isEmpty(inner) && backup !== undefined ? { ...backup, ...inner } : inner;
      properties[field] = this.property(
        { ...chosen, secret: inner.secret ?? backup?.secret },
        `${owner}${pascal(field)}`,
      );
    }
    return properties;
  }

  object(json: JsonSchema, name: string): ObjectTypeSpec {
    const required = (json.required ?? []).filter((field) => json.properties?.[field]);
    return {
      type: "object",
      properties: this.properties(json, name),
      ...(required.length > 0 ? { required } : {}),
    };
  }
}

function jsonOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
}

/** The schema of one resource type: inputs from the zod inputs, outputs from the outputs. */
function resourceSpec(
  translator: Translator,
  resource: (typeof nativeResources)[number],
): ResourceSpec {
  const inputs = jsonOf(resource.inputs, "input");
  const outputs = jsonOf(resource.outputs, "output");
  const outputsAsInputs = jsonOf(resource.outputs, "input");
  const visible = (field: string): boolean => !resource.hidden.includes(field);
  const requiredInputs = (inputs.required ?? []).filter(
    (field) => visible(field) && !resource.optional.includes(field),
  );
  const required = (outputs.required ?? []).filter(visible);
  return {
    type: "object",
    description: resource.description,
    properties: translator.properties(outputs, resource.type, resource.hidden, outputsAsInputs),
    ...(required.length > 0 ? { required } : {}),
    inputProperties: translator.properties(inputs, resource.type, resource.hidden),
    ...(requiredInputs.length > 0 ? { requiredInputs } : {}),
  };
}

/** The provider's configuration: `apiKey` (a secret) and `baseUrl`, with their fallbacks. */
function configSpec(translator: Translator): Record<string, PropertySpec> {
  const properties = translator.properties(jsonOf(providerConfigSchema, "input"), "Provider");
  const describe: Record<string, string> = {
    apiKey: "The API key (a secret). Falls back to the GPUCLOUD_API_KEY environment variable.",
    baseUrl:
      "The service's address, without /api/v0 (the local emulator prints its own). Falls back " +
      "to the GPUCLOUD_BASE_URL environment variable.",
  };
  for (const [field, property] of Object.entries(properties)) {
    const description = describe[field];
    if (description !== undefined) property.description = description;
  }
  return properties;
}

/** The whole schema. */
export function packageSchema(version: string): PackageSpec {
  const translator = new Translator();
  const resources: Record<string, ResourceSpec> = {};
  for (const resource of nativeResources) {
    resources[typeToken(resource.type)] = resourceSpec(translator, resource);
  }
  const functions: Record<string, FunctionSpec> = {};
  for (const fn of nativeFunctions) {
    const name = pascal(fn.name);
    functions[typeToken(fn.name)] = {
      description: fn.description,
      inputs: translator.object(jsonOf(fn.inputs, "input"), `${name}Args`),
      outputs: translator.object(jsonOf(fn.outputs, "output"), `${name}Result`),
    };
  }
  const config = configSpec(translator);
  return {
    name: packageName,
    displayName: "GPU cloud",
    version,
    description:
      "Manage a GPU cloud's volumes, secrets, webhooks, GPU instances, SSH keys, API keys and " +
      "serverless endpoints as code.",
    license: "Apache-2.0",
    config: { variables: config },
    provider: {
      type: "object",
      description: "The gpucloud provider: the service's address and the API key to call it with.",
      properties: config,
      inputProperties: config,
    },
    resources,
    functions,
    types: translator.types,
    language: {
      nodejs: { packageName: "pulumi-gpucloud" },
      go: { importBasePath: "github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go/gpucloud" },
    },
  };
}

/** The names of the top-level output properties the schema marks secret, per type token. */
export function secretOutputs(spec: PackageSpec, token: string): string[] {
  const resource = spec.resources[token];
  if (resource === undefined) return [];
  return [
    ...new Set(
      [...Object.entries(resource.properties), ...Object.entries(resource.inputProperties)]
        .filter(([, property]) => property.secret === true)
        .map(([field]) => field),
    ),
  ];
}
