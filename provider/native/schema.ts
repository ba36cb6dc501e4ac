import { z } from "zod";
import { providerConfigSchema } from "../config";
import { nativeFunctions } from "./functions";
import { nativeResources, packageName, typeToken } from "./resources";

/**
 * The package's Pulumi schema, generated from the zod definitions the resources check their
 * inputs with (`z.toJSONSchema`), so that nothing is written twice. A field whose zod
 * definition carries `.meta({ secret: true })` is marked `secret`; its `.describe(...)` (or
 * `.meta({ description })`) is its description, in every SDK and the reference docs. Put it
 * after any `.transform(...)`: the output side of a transform keeps only the metadata of the
 * pipe itself. An object whose zod definition carries `.meta({ pulumiType: "Name" })` is the
 * schema type `gpucloud:index:Name` (with that definition's description); other objects are
 * named from their path (`InstanceVolume`). A field that may be null is never required.
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
  /** The schema type's name, when the zod definition gives one (`.meta({ pulumiType })`). */
  pulumiType?: string;
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
      if (alternatives.length === 1 && only !== undefined) {
        // A nullable object: its name may be given on the outside (`.nullable().meta(...)`).
        return this.type(
          { pulumiType: json.pulumiType, description: json.description, ...only },
          name,
        );
      }
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
          return { $ref: `#/types/${this.named(json, json.pulumiType ?? name)}` };
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

  /** The tokens a zod definition named (`pulumiType`), not a path. */
  private readonly explicit = new Set<string>();

  /**
   * The token of the object type `name`, defined on first use. A name a zod definition gives
   * belongs to that definition alone: another object of that name (a `pulumiType` given twice,
   * or a path that comes out the same) is an error, not a type silently shared. An object a
   * path names is the one first met (its inputs' and outputs' sides are the same object).
   */
  private named(json: JsonSchema, name: string): string {
    const token = typeToken(name);
    const spec = this.object(json, name);
    const given = json.pulumiType !== undefined;
    if (given && json.description !== undefined) spec.description = json.description;
    const existing = this.types[token];
    if (existing === undefined) {
      this.types[token] = spec;
      if (given) this.explicit.add(token);
    } else if (
      (given || this.explicit.has(token)) &&
      JSON.stringify(existing) !== JSON.stringify(spec)
    ) {
      throw new Error(`two different object types are named ${token} in the schema`);
    }
    return token;
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
    const required = requiredOf(json);
    return {
      type: "object",
      properties: this.properties(json, name),
      ...(required.length > 0 ? { required } : {}),
    };
  }
}

/** True when the JSON Schema allows null (zod's `.nullable()`). */
const allowsNull = (json: JsonSchema): boolean =>
  (Array.isArray(json.type) ? json.type.includes("null") : json.type === "null") ||
  (json.anyOf ?? json.oneOf ?? []).some(allowsNull);

/** The fields an object always has a value for: required and never null. */
function requiredOf(json: JsonSchema, hidden: readonly string[] = []): string[] {
  return (json.required ?? []).filter((field) => {
    const property = json.properties?.[field];
    return property !== undefined && !allowsNull(property) && !hidden.includes(field);
  });
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
  const requiredInputs = requiredOf(inputs, [...resource.hidden, ...resource.optional]);
  const required = requiredOf(outputs, resource.hidden);
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

/** The Python package's README (PyPI's page, `pip show`). */
function pythonReadme(version: string): string {
  return [
    "# pulumi_gpucloud",
    "",
    "Pulumi resources for a GPU cloud: instances rented from its marketplace, volumes, account",
    "secrets, webhooks, SSH and API keys, templates and serverless endpoints.",
    "",
    "The resources are served by the `gpucloud` resource plugin, a standalone executable:",
    "",
    "```sh",
    `pulumi plugin install resource gpucloud ${version} --file pulumi-resource-gpucloud-v${version}-linux-amd64.tar.gz`,
    "```",
    "",
    "Configure `gpucloud:baseUrl` and `gpucloud:apiKey` (`pulumi config set --secret`), or the",
    "environment variables GPUCLOUD_BASE_URL and GPUCLOUD_API_KEY.",
    "",
  ].join("\n");
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
      // The version in each SDK's pulumi-plugin.json: a program asks the engine for this
      // plugin's own release, the one `pulumi plugin install resource gpucloud` put in place.
      go: {
        importBasePath: "github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go/gpucloud",
        respectSchemaVersion: true,
      },
      python: {
        packageName: "pulumi_gpucloud",
        respectSchemaVersion: true,
        pyproject: { enabled: true },
        // Typed classes (InstanceArgs) and the same shapes as dicts (InstanceArgsDict).
        inputTypes: "classes-and-dicts",
        requires: { pulumi: ">=3.231.0,<4.0.0" },
        readme: pythonReadme(version),
      },
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
