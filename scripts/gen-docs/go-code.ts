/** Go in snippets: values as inputs or plain arguments, calls, and the program around them. */
import { goName, type Languages, nameOf } from "./names";
import { quoted, type Sample } from "./samples";
import type { TypeSpec } from "./schema";
import { localType } from "./type-words";

const goScalars: Record<string, string> = {
  string: "String",
  integer: "Int",
  number: "Float64",
  boolean: "Bool",
};

/**
 * The Go SDK's name for inputs of a list's or map's elements: `String` (StringArray), or "".
 * A number-or-string (a port) is a number in Go (scripts/gen-sdks/languages.go, goTyped).
 */
const goElementName = (type: TypeSpec): string => {
  const [first, second, ...others] = type.oneOf ?? [];
  if (first?.type === "integer" && second?.type === "string" && others.length === 0) return "Int";
  // A list of lists of strings is a StringArrayArray.
  if (type.type === "array") {
    const inner = goElementName(type.items ?? {});
    return inner === "" ? "" : `${inner}Array`;
  }
  return (type.type === undefined ? undefined : goScalars[type.type]) ?? "";
};

/** A value of a resource's input in Go: the SDK's input types (pulumi.String, ...). */
export function goInputValue(sample: Sample, alias: string): string {
  const value = (inner: Sample) => goInputValue(inner, alias);
  switch (sample.kind) {
    case "string":
      return `pulumi.String(${quoted(sample.text)})`;
    case "integer":
    case "number":
    case "boolean":
      return `pulumi.${goScalars[sample.kind] ?? ""}(${String(sample.value)})`;
    case "list": {
      const item = sample.type.items ?? {};
      const local = localType(item);
      const list =
        local === undefined
          ? `pulumi.${goElementName(item)}Array`
          : `${alias}.${nameOf(local)}Array`;
      return `${list}{${sample.items.map(value).join(", ")}}`;
    }
    case "map": {
      const element = goElementName(sample.type.additionalProperties ?? {});
      const entries = sample.entries.map(([key, inner]) => `${quoted(key)}: ${value(inner)}`);
      return `pulumi.${element}Map{${entries.join(", ")}}`;
    }
    case "object": {
      const fields = sample.fields.map(([key, inner]) => `${goName(key)}: ${value(inner)}`);
      return `&${alias}.${nameOf(sample.token)}Args{${fields.join(", ")}}`;
    }
    case "any":
      return "pulumi.Map{}";
    case "reference":
      return `${sample.resource}.${goName(sample.output, sample.resourceType)}`;
  }
}

const goPlainScalars: Record<string, string> = {
  string: "string",
  integer: "int",
  number: "float64",
  boolean: "bool",
};

/** The Go type of a plain value (a function's argument, an apply's): not an input. */
export function goPlainType(type: TypeSpec, alias: string): string {
  const local = localType(type);
  if (local !== undefined) return `${alias}.${nameOf(local)}`;
  if (type.type === "array") return `[]${goPlainType(type.items ?? {}, alias)}`;
  if (type.type === "object") {
    return `map[string]${goPlainType(type.additionalProperties ?? {}, alias)}`;
  }
  return (type.type === undefined ? undefined : goPlainScalars[type.type]) ?? "interface{}";
}

/**
 * A value of a function's argument in Go: a plain value; an optional one by reference (a
 * pointer field), except a union or any, which is an interface{}.
 */
export function goPlainValue(sample: Sample, alias: string, optional: boolean): string {
  const value = (inner: Sample) => goPlainValue(inner, alias, false);
  switch (sample.kind) {
    case "string":
    case "integer":
    case "number":
    case "boolean": {
      const literal = sample.kind === "string" ? quoted(sample.text) : String(sample.value);
      if (!optional || sample.type.type === undefined) return literal;
      return `pulumi.${goScalars[sample.kind] ?? ""}Ref(${literal})`;
    }
    case "list":
      return `${goPlainType(sample.type, alias)}{${sample.items.map(value).join(", ")}}`;
    case "map": {
      const entries = sample.entries.map(([key, inner]) => `${quoted(key)}: ${value(inner)}`);
      return `${goPlainType(sample.type, alias)}{${entries.join(", ")}}`;
    }
    case "object": {
      // A field the type leaves optional is a pointer in Go's plain struct (*float64).
      const fields = sample.fields.map(
        ([key, inner]) =>
          `${goName(key)}: ${goPlainValue(inner, alias, !sample.required.includes(key))}`,
      );
      return `${optional ? "&" : ""}${alias}.${nameOf(sample.token)}{${fields.join(", ")}}`;
    }
    case "any":
      return "map[string]interface{}{}";
    case "reference":
      // A function called with plain values cannot wait for an output: its Output form can.
      throw new Error(`${sample.resource}.${sample.output}: a plain argument cannot refer`);
  }
}

/** `key: value` lines with the values aligned, as gofmt writes a composite literal. */
function goFields(fields: readonly [string, string][], indent: string): string[] {
  const width = Math.max(0, ...fields.map(([key]) => key.length + 1));
  return fields.map(([key, value]) => `${indent}${`${key}:`.padEnd(width)} ${value},`);
}

/** A whole Go program around the lines of its `pulumi.Run` function. */
export function goProgram(languages: Languages, body: readonly string[]): string[] {
  return [
    "package main",
    "",
    "import (",
    `\t"${languages.goImport}"`,
    '\t"github.com/pulumi/pulumi/sdk/v3/go/pulumi"',
    ")",
    "",
    "func main() {",
    "\tpulumi.Run(func(ctx *pulumi.Context) error {",
    ...body.map((line) => (line === "" ? "" : `\t\t${line}`)),
    "\t})",
    "}",
  ];
}

/** `call(ctx, "name", &Args{` and its fields, closed with `suffix`: one line when empty. */
export function goCall(
  opening: string,
  fields: readonly [string, string][],
  suffix = ")",
): string[] {
  if (fields.length === 0) return [`${opening}}${suffix}`];
  return [opening, ...goFields(fields, "\t"), `}${suffix}`];
}

export const goReturnOnError = ["if err != nil {", "\treturn err", "}"];
