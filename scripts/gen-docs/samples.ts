/** Values in snippets: a placeholder or an example's value of a type, in TS, YAML and Python. */
import { nameOf, pythonName } from "./names";
import type { PackageSpec, TypeSpec } from "./schema";
import { rowsOf } from "./tables";
import { localType } from "./type-words";

/** A value of a type (`type`), a placeholder or an example's, as each language writes it. */
export type Sample = { type: TypeSpec } & (
  | { kind: "string"; text: string }
  | { kind: "integer" | "number"; value: number }
  | { kind: "boolean"; value: boolean }
  | { kind: "list"; items: Sample[] }
  | { kind: "map"; entries: [string, Sample][] }
  // `required`: the object type's required fields (Go's plain structs point to the others).
  | { kind: "object"; token: string; fields: [string, Sample][]; required: readonly string[] }
  | { kind: "any" }
  // An output (of type `outputType`) of a resource the snippet declares: variable `resource`.
  | {
      kind: "reference";
      resource: string;
      resourceType: string;
      output: string;
      outputType: TypeSpec;
    }
);

/**
 * A placeholder for a value of this type: `"<name>"` for a string, `1` for a number, one item
 * for a list, an object with its required fields, an empty object for a query (any).
 */
export function sampleOf(spec: PackageSpec, type: TypeSpec, name: string): Sample {
  const local = localType(type);
  if (local !== undefined) {
    const object = spec.types[local];
    const required = rowsOf(object?.properties ?? {}, object?.required ?? []).filter(
      (row) => row.required,
    );
    const fields = required.map((row): [string, Sample] => [
      row.name,
      sampleOf(spec, row.property, row.name),
    ]);
    return { type, kind: "object", token: local, fields, required: object?.required ?? [] };
  }
  // One of several types: a value of the first (the type stays the union, for Go's interface{}).
  const [first] = type.oneOf ?? [];
  if (first !== undefined) return { ...sampleOf(spec, first, name), type };
  switch (type.type) {
    case "string":
      return { type, kind: "string", text: `<${name}>` };
    case "integer":
    case "number":
      return { type, kind: type.type, value: 1 };
    case "boolean":
      return { type, kind: "boolean", value: true };
    case "array":
      return { type, kind: "list", items: [sampleOf(spec, type.items ?? {}, name)] };
    case "object": {
      const value = sampleOf(spec, type.additionalProperties ?? {}, "value");
      return { type, kind: "map", entries: value.kind === "any" ? [] : [["<key>", value]] };
    }
    default:
      return { type, kind: "any" };
  }
}

export const quoted = (text: string): string => JSON.stringify(text);

export const braces = (entries: readonly string[]): string =>
  entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;

/** A map's key in TypeScript and YAML: bare when it can be (`gpuName`), else quoted. */
const keyOf = (key: string): string => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : quoted(key));

/** A value in TypeScript. */
export function tsValue(sample: Sample): string {
  switch (sample.kind) {
    case "string":
      return quoted(sample.text);
    case "integer":
    case "number":
    case "boolean":
      return String(sample.value);
    case "list":
      return `[${sample.items.map(tsValue).join(", ")}]`;
    case "map":
      return braces(sample.entries.map(([key, value]) => `${keyOf(key)}: ${tsValue(value)}`));
    case "object":
      return braces(sample.fields.map(([key, value]) => `${key}: ${tsValue(value)}`));
    case "any":
      return "{}";
    case "reference":
      return `${sample.resource}.${sample.output}`;
  }
}

/**
 * A value in YAML: TypeScript's literals in flow style, and a reference as Pulumi YAML's
 * `${resource.output}`, quoted inside a list or map (where `{` would open a flow mapping).
 */
export function yamlValue(sample: Sample, nested = false): string {
  const value = (inner: Sample) => yamlValue(inner, true);
  switch (sample.kind) {
    case "reference": {
      const interpolation = `\${${sample.resource}.${sample.output}}`;
      return nested ? quoted(interpolation) : interpolation;
    }
    case "list":
      return `[${sample.items.map(value).join(", ")}]`;
    case "map":
      return braces(sample.entries.map(([key, inner]) => `${keyOf(key)}: ${value(inner)}`));
    case "object":
      return braces(sample.fields.map(([key, inner]) => `${key}: ${value(inner)}`));
    default:
      return tsValue(sample);
  }
}

/**
 * A value in Python: a nested object as its `Args` class, with snake_case arguments; `plain`
 * for a function's argument, which the SDK types with the plain class (`OfferQuery`).
 */
export function pythonValue(sample: Sample, alias: string, plain = false): string {
  const value = (inner: Sample) => pythonValue(inner, alias, plain);
  switch (sample.kind) {
    case "string":
      return quoted(sample.text);
    case "integer":
    case "number":
      return String(sample.value);
    case "boolean":
      return sample.value ? "True" : "False";
    case "list":
      return `[${sample.items.map(value).join(", ")}]`;
    case "map":
      return `{${sample.entries.map(([key, inner]) => `${quoted(key)}: ${value(inner)}`).join(", ")}}`;
    case "object": {
      const fields = sample.fields.map(([key, inner]) => `${pythonName(key)}=${value(inner)}`);
      return `${alias}.${nameOf(sample.token)}${plain ? "" : "Args"}(${fields.join(", ")})`;
    }
    case "any":
      return "{}";
    case "reference":
      return `${pythonName(sample.resource)}.${pythonName(sample.output)}`;
  }
}
