/**
 * `npm run gen-docs [-- OUT_DIR]`: writes the reference pages, docs/reference/ (or OUT_DIR,
 * replaced as a whole), from the schema the built plugin prints (`pulumi package get-schema
 * node_modules/.bin/pulumi-resource-gpucloud`, or GPUCLOUD_PLUGIN=path): the same source the SDKs
 * are generated from (`npm run gen-sdks`), so that the pages say what the SDKs do. One page per
 * resource (`<Type>.md`) and per function (`<function>.md`), the provider's configuration
 * (provider.md) and an index (README.md). test/e2e/docs-reference.test.ts fails when the
 * committed pages differ from what this writes now.
 *
 * Everything a page says about a property comes from the schema, that is from the zod
 * definitions (provider/native/schema.ts): descriptions, types, defaults, secrets, and what a
 * change does (`willReplaceOnChanges`, and `language.docs` for what Pulumi's schema has no field
 * for). A description to change is changed there, never here.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";

const execFileAsync = promisify(execFile);

// ---- The schema, as much of it as the pages show -------------------------------------------

interface TypeSpec {
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
type Property = z.infer<typeof propertySchema>;

const propertiesSchema = z.record(z.string(), propertySchema).default({});

const objectTypeSchema = z.object({
  description: z.string().optional(),
  // `pulumi package get-schema` leaves an empty map out.
  properties: propertiesSchema,
  required: z.array(z.string()).default([]),
});
const resourceSchema = objectTypeSchema.extend({
  inputProperties: propertiesSchema,
  requiredInputs: z.array(z.string()).default([]),
});
type Resource = z.infer<typeof resourceSchema>;

const emptyObject = { properties: {}, required: [] };

const functionSchema = z.object({
  description: z.string().optional(),
  inputs: objectTypeSchema.default(emptyObject),
  outputs: objectTypeSchema.default(emptyObject),
});
type Fn = z.infer<typeof functionSchema>;

export const packageSpecSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  config: z.object({ variables: propertiesSchema }).default({ variables: {} }),
  provider: resourceSchema,
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

// ---- Names in each language ----------------------------------------------------------------

// Python's keywords (Python 2's too), as Pulumi's Python generator avoids them (codegen/python).
const pythonKeywords = new Set(
  (
    "False None True and as assert async await break class continue def del elif else except " +
    "exec finally for from global if import in is lambda nonlocal not or pass print raise " +
    "return try while with yield"
  ).split(" "),
);

const isUpper = (char: string): boolean => /\p{Lu}/u.test(char);
const isDigit = (char: string): boolean => /\p{Nd}/u.test(char);
const isPythonIdentifierStart = (char: string): boolean => /[\p{L}\p{Nl}_]/u.test(char);
const isPythonIdentifierPart = (char: string): boolean =>
  /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_]/u.test(char);

/**
 * A schema name as Pulumi's Python SDK spells it (PyName in pkg/codegen/python, ported): words
 * split at each capital, an acronym kept whole (`HTTPServer` → `http_server`, `IPs` → `ips`),
 * digits kept with the word before them, a keyword given a trailing `_`.
 */
export function pythonName(name: string): string {
  const words: string[] = [];
  let word = "";
  let state: "first" | "upper" | "acronym" | "lowerOrDigit" = "first";
  for (const raw of name) {
    const char = isPythonIdentifierPart(raw) ? raw : "_";
    const upper = isUpper(char);
    if (state === "first") {
      word = (isPythonIdentifierStart(char) ? "" : "_") + char.toLowerCase();
      state = upper ? "upper" : "lowerOrDigit";
    } else if (state === "upper") {
      word += char.toLowerCase();
      state = upper ? "acronym" : "lowerOrDigit";
    } else if (state === "acronym") {
      if (upper || isDigit(char) || char === "s") {
        word += char.toLowerCase();
        if (!upper) state = "lowerOrDigit";
      } else {
        // The acronym's last capital starts the next word.
        words.push(word.slice(0, -1));
        word = word.slice(-1) + char;
        state = "lowerOrDigit";
      }
    } else if (upper) {
      words.push(word);
      word = char.toLowerCase();
      state = "upper";
    } else {
      word += char;
    }
  }
  if (word !== "") words.push(word);
  const joined = words.join("_");
  return pythonKeywords.has(joined) ? `${joined}_` : joined;
}

const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);

/**
 * A schema name as Pulumi's Go SDK spells a struct field or function (Title in pkg/codegen/go):
 * the first letter and each after a hyphen upper-cased; a field that would clash with a method
 * of the generated resource (`ID`, `URN`, ...) given a trailing `_`.
 */
export function goName(name: string, resourceType?: string): string {
  const bare = name.startsWith("$") ? name.slice(1) : name;
  const titled = bare.split("-").map(upperFirst).join("");
  const legal = /^[\p{L}_]/u.test(titled) ? titled : `_${titled}`;
  const reserved = ["ID", "URN", "GetProvider", "ElementType"];
  if (resourceType !== undefined) {
    reserved.push(`To${resourceType}Output`, `To${resourceType}OutputWithContext`);
  }
  return reserved.includes(legal) ? `${legal}_` : legal;
}

/** The last part of a token: `gpucloud:index:Instance` → `Instance`. */
const nameOf = (token: string): string => token.split(":").pop() ?? token;

// ---- Markdown ------------------------------------------------------------------------------

/** GitHub's anchor of a heading made of a name: lower-case (names hold no punctuation). */
const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");

const code = (text: string): string => `\`${text}\``;

/**
 * Text from the schema, made safe for Markdown: `<` outside code spans is not taken for HTML;
 * in a table cell, `|` does not end the cell (GitHub wants `\|` even in a code span) and a
 * newline does not end the row.
 */
function prose(text: string, inCell = false): string {
  const escaped = text
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith("`") ? part : part.replace(/</g, "&lt;")))
    .join("");
  return inCell ? escaped.replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>") : escaped;
}

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}

const yesNo = (value: boolean | undefined): string => (value === true ? "yes" : "no");

/** The first sentence of a description, for the index ("e.g." does not end one). */
function firstSentence(text: string): string {
  const match = /^([\s\S]*?(?<!\be\.g|\bi\.e)\.)(?:\s|$)/.exec(text);
  return (match?.[1] ?? text).replace(/\s+/g, " ");
}

const fence = (language: string, lines: readonly string[]): string =>
  ["```" + language, ...lines, "```"].join("\n");

// ---- Types in words ------------------------------------------------------------------------

const localTypePrefix = "#/types/";

/** The token a property's type names, when it is one of the package's object types. */
function localType(spec: TypeSpec): string | undefined {
  return spec.$ref?.startsWith(localTypePrefix)
    ? spec.$ref.slice(localTypePrefix.length)
    : undefined;
}

const builtinRefs: Record<string, string> = {
  "pulumi.json#/Any": "any",
  "pulumi.json#/Json": "JSON",
  "pulumi.json#/Archive": "archive",
  "pulumi.json#/Asset": "asset",
};

const scalarWords: Record<string, [single: string, plural: string]> = {
  string: ["string", "strings"],
  number: ["number", "numbers"],
  integer: ["whole number", "whole numbers"],
  boolean: ["boolean", "booleans"],
};

/** A link to the type's section of the same page. */
const typeLink = (token: string): string => `[${nameOf(token)}](#${anchorOf(nameOf(token))})`;

/** A type in words: "whole number", "list of strings", a link to a nested type's section. */
function typeWords(spec: TypeSpec, plural = false): string {
  const local = localType(spec);
  if (local !== undefined) return typeLink(local);
  if (spec.$ref !== undefined) {
    const words = builtinRefs[spec.$ref] ?? spec.$ref;
    return plural && words === "any" ? "any values" : words;
  }
  if (spec.oneOf !== undefined)
    return spec.oneOf.map((option) => typeWords(option, plural)).join(" or ");
  const scalar = spec.type === undefined ? undefined : scalarWords[spec.type];
  if (scalar !== undefined) return plural ? scalar[1] : scalar[0];
  if (spec.type === "array") {
    return `${plural ? "lists" : "list"} of ${spec.items ? typeWords(spec.items, true) : "any values"}`;
  }
  const values = spec.additionalProperties;
  return `${plural ? "maps" : "map"} of ${values ? typeWords(values, true) : "any values"}`;
}

/** The package's object types a type refers to, directly or through lists and maps. */
function typesIn(spec: TypeSpec): string[] {
  const local = localType(spec);
  if (local !== undefined) return [local];
  return [spec.items, spec.additionalProperties, ...(spec.oneOf ?? [])]
    .filter((inner): inner is TypeSpec => inner !== undefined)
    .flatMap(typesIn);
}

// ---- Property tables -----------------------------------------------------------------------

/** A property as a table row shows it. */
interface Row {
  name: string;
  property: Property;
  required: boolean;
}

const sortedByName = <T>(entries: [string, T][]): [string, T][] =>
  [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

function rowsOf(properties: Record<string, Property>, required: readonly string[]): Row[] {
  return sortedByName(Object.entries(properties)).map(([name, property]) => ({
    name,
    property,
    required: required.includes(name),
  }));
}

/** The three names of a property: TypeScript and YAML (the schema's), Python, Go. */
const namesOf = (name: string, resourceType?: string): string[] => [
  code(name),
  code(pythonName(name)),
  code(goName(name, resourceType)),
];

const nameHeaders = ["TypeScript / YAML", "Python", "Go"];

const defaultOf = (property: Property): string =>
  property.default === undefined ? "" : code(JSON.stringify(property.default));

function requiredWords(row: Row): string {
  if (row.required) return "yes";
  return row.property.language?.docs?.requiredToCreate === true
    ? "to create (see description)"
    : "no";
}

function replacementWords(property: Property): string {
  if (property.willReplaceOnChanges === true) return "yes";
  return property.language?.docs?.replacement === "sometimes"
    ? "sometimes (see description)"
    : "no";
}

const description = (property: Property): string => prose(property.description ?? "", true);

/** Whose inputs a table lists: a resource's say whether a change replaces it. */
interface InputsOf {
  resourceType?: string;
  replaces?: boolean;
  /** The first column's heading: whose name it is (the provider has no TypeScript class). */
  nameHeader?: string;
}

/** The inputs of a resource (or arguments of a function): what a program gives. */
function inputTable(
  rows: readonly Row[],
  { resourceType, replaces = false, nameHeader = "TypeScript / YAML" }: InputsOf = {},
): string {
  return table(
    [
      nameHeader,
      ...nameHeaders.slice(1),
      "Type",
      "Required",
      "Secret",
      ...(replaces ? ["Replaces the resource"] : []),
      "Default",
      "Description",
    ],
    rows.map((row) => [
      ...namesOf(row.name, resourceType),
      typeWords(row.property),
      requiredWords(row),
      yesNo(row.property.secret),
      ...(replaces ? [replacementWords(row.property)] : []),
      defaultOf(row.property),
      description(row.property),
    ]),
  );
}

/** The outputs of a resource (or a function's result): what a program reads. */
function outputTable(rows: readonly Row[], resourceType?: string): string {
  return table(
    [...nameHeaders, "Type", "Always set", "Secret", "Description"],
    rows.map((row) => [
      ...namesOf(row.name, resourceType),
      typeWords(row.property),
      yesNo(row.required),
      yesNo(row.property.secret),
      description(row.property),
    ]),
  );
}

// ---- Nested types --------------------------------------------------------------------------

/** Where a nested type appears on a page: "input `volume`", "field `api` of ...". */
interface Use {
  token: string;
  where: string;
  asInput: boolean;
}

/** Every nested type the page's properties use, with where, in the order first met. */
function usesOf(
  spec: PackageSpec,
  roots: readonly { where: string; property: Property; asInput: boolean }[],
): Use[] {
  const uses: Use[] = [];
  const queue = [...roots];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const { where, property, asInput } = next;
    for (const token of typesIn(property)) {
      const seen = uses.some((use) => use.token === token && use.asInput === asInput);
      uses.push({ token, where, asInput });
      if (seen) continue;
      for (const [field, inner] of sortedByName(
        Object.entries(spec.types[token]?.properties ?? {}),
      )) {
        queue.push({
          where: `field ${code(field)} of ${typeLink(token)}`,
          property: inner,
          asInput,
        });
      }
    }
  }
  return uses;
}

function typeSection(spec: PackageSpec, token: string, uses: readonly Use[]): string {
  const type = spec.types[token];
  if (type === undefined) throw new Error(`the schema refers to ${token} but does not define it`);
  const { alias } = languagesOf(spec);
  const name = nameOf(token);
  const mine = uses.filter((use) => use.token === token);
  const where = [...new Set(mine.map((use) => use.where))].join(", ");
  const asInput = mine.some((use) => use.asInput);
  const asOutput = mine.some((use) => !use.asInput);
  const classes = [
    ...(asInput
      ? [`as an input: Python ${code(`${alias}.${name}Args`)}, Go ${code(`${alias}.${name}Args`)}`]
      : []),
    ...(asOutput
      ? [`as an output: Python ${code(`${alias}.outputs.${name}`)}, Go ${code(`${alias}.${name}`)}`]
      : []),
  ];
  // A required field must be given in an input and is always set in an output.
  const required = asInput ? (asOutput ? "Required / always set" : "Required") : "Always set";
  return [
    `### ${name}`,
    "",
    `Type ${code(token)}, the type of ${where}. Its class ${classes.join("; ")}.`,
    ...(type.description === undefined ? [] : ["", prose(type.description)]),
    "",
    table(
      [...nameHeaders, "Type", required, "Secret", "Description"],
      rowsOf(type.properties, type.required).map((row) => [
        ...namesOf(row.name),
        typeWords(row.property),
        yesNo(row.required),
        yesNo(row.property.secret),
        description(row.property),
      ]),
    ),
  ].join("\n");
}

function typesSection(spec: PackageSpec, uses: readonly Use[]): string[] {
  const tokens = [...new Set(uses.map((use) => use.token))].sort((a, b) =>
    nameOf(a) < nameOf(b) ? -1 : 1,
  );
  if (tokens.length === 0) return [];
  return ["## Types", "", ...tokens.flatMap((token) => [typeSection(spec, token, uses), ""])];
}

// ---- Values in snippets --------------------------------------------------------------------

/** A placeholder value of a type (`type`), as each language writes it. */
type Sample = { type: TypeSpec } & (
  | { kind: "string"; text: string }
  | { kind: "integer" | "number"; value: number }
  | { kind: "boolean"; value: boolean }
  | { kind: "list"; items: Sample[] }
  | { kind: "map"; entries: [string, Sample][] }
  | { kind: "object"; token: string; fields: [string, Sample][] }
  | { kind: "any" }
);

/**
 * A placeholder for a value of this type: `"<name>"` for a string, `1` for a number, one item
 * for a list, an object with its required fields, an empty object for a query (any).
 */
function sampleOf(spec: PackageSpec, type: TypeSpec, name: string): Sample {
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
    return { type, kind: "object", token: local, fields };
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

const quoted = (text: string): string => JSON.stringify(text);

const braces = (entries: readonly string[]): string =>
  entries.length === 0 ? "{}" : `{ ${entries.join(", ")} }`;

/** A value in TypeScript; YAML's flow style reads the same. */
function tsValue(sample: Sample): string {
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
      return braces(sample.entries.map(([key, value]) => `${quoted(key)}: ${tsValue(value)}`));
    case "object":
      return braces(sample.fields.map(([key, value]) => `${key}: ${tsValue(value)}`));
    case "any":
      return "{}";
  }
}

/** A value in Python: a nested object as its `Args` class, with snake_case arguments. */
function pythonValue(sample: Sample, alias: string): string {
  const value = (inner: Sample) => pythonValue(inner, alias);
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
      return `${alias}.${nameOf(sample.token)}Args(${fields.join(", ")})`;
    }
    case "any":
      return "{}";
  }
}

const goScalars: Record<string, string> = {
  string: "String",
  integer: "Int",
  number: "Float64",
  boolean: "Bool",
};

/** The Go SDK's name for inputs of a list's or map's elements: `String` (StringArray), or "". */
const goElementName = (type: TypeSpec): string =>
  (type.type === undefined ? undefined : goScalars[type.type]) ?? "";

/** A value of a resource's input in Go: the SDK's input types (pulumi.String, ...). */
function goInputValue(sample: Sample, alias: string): string {
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
  }
}

const goPlainScalars: Record<string, string> = {
  string: "string",
  integer: "int",
  number: "float64",
  boolean: "bool",
};

/** The Go type of a function's argument: plain values, not inputs. */
function goPlainType(type: TypeSpec, alias: string): string {
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
function goPlainValue(sample: Sample, alias: string, optional: boolean): string {
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
      const fields = sample.fields.map(([key, inner]) => `${goName(key)}: ${value(inner)}`);
      return `${optional ? "&" : ""}${alias}.${nameOf(sample.token)}{${fields.join(", ")}}`;
    }
    case "any":
      return "map[string]interface{}{}";
  }
}

/** `key: value` lines with the values aligned, as gofmt writes a composite literal. */
function goFields(fields: readonly [string, string][], indent: string): string[] {
  const width = Math.max(0, ...fields.map(([key]) => key.length + 1));
  return fields.map(([key, value]) => `${indent}${`${key}:`.padEnd(width)} ${value},`);
}

// ---- Snippets ------------------------------------------------------------------------------

/** What every snippet of the package starts from: the package's name in each language. */
interface Languages {
  /** The name programs import the package as, in every language (`gpucloud`). */
  alias: string;
  nodejsPackage: string;
  pythonPackage: string;
  goImport: string;
}

function languagesOf(spec: PackageSpec): Languages {
  const goImport = spec.language.go.importBasePath;
  // Go programs use the package by its own name, the import path's last element.
  const alias = goImport.split("/").pop() ?? spec.name;
  return {
    alias,
    nodejsPackage: spec.language.nodejs.packageName,
    pythonPackage: spec.language.python.packageName,
    goImport,
  };
}

/** A value a snippet passes, and the property (or argument) it is given as. */
interface Given {
  name: string;
  sample: Sample;
  required: boolean;
}

const givenOf = (spec: PackageSpec, row: Row): Given => ({
  name: row.name,
  sample: sampleOf(spec, row.property, row.name),
  required: row.required,
});

/** A snippet in each language, and what TypeScript does differently, said above its snippet. */
interface Snippets {
  ts: string[];
  python: string[];
  go: string[];
  yaml: string[];
  tsNote?: string;
}

function snippetSections(languages: Languages, snippets: Snippets): string[] {
  const tsNote = snippets.tsNote === undefined ? "" : ` ${snippets.tsNote}`;
  return [
    "### TypeScript",
    "",
    `The ${code(languages.nodejsPackage)} package.${tsNote}`,
    "",
    fence("ts", snippets.ts),
    "",
    "### Python",
    "",
    `The ${code(languages.pythonPackage)} package (sdk/python).`,
    "",
    fence("python", snippets.python),
    "",
    "### Go",
    "",
    `The ${code(languages.goImport)} package (sdk/go).`,
    "",
    fence("go", snippets.go),
    "",
    "### YAML",
    "",
    fence("yaml", snippets.yaml),
  ];
}

const tsImport = (languages: Languages): string =>
  `import * as ${languages.alias} from "${languages.nodejsPackage}";`;

/** The imports of a Python program: `pulumi` itself only when it exports (or sets options). */
const pythonImports = (languages: Languages, usesPulumi: boolean): string[] => [
  ...(usesPulumi ? ["import pulumi"] : []),
  `import ${languages.pythonPackage} as ${languages.alias}`,
];

/** A whole Go program around the lines of its `pulumi.Run` function. */
function goProgram(languages: Languages, body: readonly string[]): string[] {
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
function goCall(opening: string, fields: readonly [string, string][], suffix = ")"): string[] {
  if (fields.length === 0) return [`${opening}}${suffix}`];
  return [opening, ...goFields(fields, "\t"), `}${suffix}`];
}

const goReturnOnError = ["if err != nil {", "\treturn err", "}"];

// A resource, declared with the inputs a new one needs, exporting one of its outputs.

interface Declaration {
  languages: Languages;
  type: string;
  token: string;
  given: Given[];
  /** The output the snippet exports, if any. */
  shown: string | undefined;
}

/** The output a resource snippet exports: an id when there is one, else the first always set. */
function shownOutput(resource: Resource): string | undefined {
  const always = Object.keys(resource.properties)
    .filter((name) => resource.required.includes(name))
    .sort();
  const own = always.filter((name) => !(name in resource.inputProperties));
  return own.find(isIdName) ?? own[0] ?? always[0];
}

const isIdName = (name: string): boolean => name === "id" || name.endsWith("Id");

/** The inputs a resource snippet gives: the required ones, and those a new resource needs. */
function givenInputs(spec: PackageSpec, resource: Resource): Given[] {
  return rowsOf(resource.inputProperties, resource.requiredInputs)
    .filter((row) => requiredWords(row) !== "no")
    .map((row) => givenOf(spec, row));
}

const resourceVariable = (declaration: Declaration): string => lowerFirst(declaration.type);

function tsDeclaration(declaration: Declaration): string[] {
  const { languages, type, given, shown } = declaration;
  const variable = resourceVariable(declaration);
  const opening = `const ${variable} = new ${languages.alias}.${type}("${variable}", {`;
  return [
    tsImport(languages),
    "",
    ...(given.length === 0
      ? [`${opening}});`]
      : [opening, ...given.map((input) => `  ${input.name}: ${tsValue(input.sample)},`), "});"]),
    ...(shown === undefined ? [] : ["", `export const ${shown} = ${variable}.${shown};`]),
  ];
}

function pythonDeclaration(declaration: Declaration): string[] {
  const { languages, type, given, shown } = declaration;
  const { alias } = languages;
  const variable = pythonName(type);
  const logicalName = `"${resourceVariable(declaration)}"`;
  const argument = (input: Given) =>
    `    ${pythonName(input.name)}=${pythonValue(input.sample, alias)},`;
  return [
    ...pythonImports(languages, shown !== undefined),
    "",
    ...(given.length === 0
      ? [`${variable} = ${alias}.${type}(${logicalName})`]
      : [`${variable} = ${alias}.${type}(`, `    ${logicalName},`, ...given.map(argument), ")"]),
    ...(shown === undefined
      ? []
      : ["", `pulumi.export("${shown}", ${variable}.${pythonName(shown)})`]),
  ];
}

function goDeclaration(declaration: Declaration): string[] {
  const { languages, type, given, shown } = declaration;
  const { alias } = languages;
  const variable = resourceVariable(declaration);
  const fields = given.map((input): [string, string] => [
    goName(input.name, type),
    goInputValue(input.sample, alias),
  ]);
  const result = shown === undefined ? "_" : variable;
  const opening = `${result}, err := ${alias}.New${type}(ctx, "${variable}", &${alias}.${type}Args{`;
  return goProgram(languages, [
    ...goCall(opening, fields),
    ...goReturnOnError,
    ...(shown === undefined ? [] : [`ctx.Export("${shown}", ${variable}.${goName(shown, type)})`]),
    "return nil",
  ]);
}

function yamlDeclaration(declaration: Declaration): string[] {
  const { token, given, shown } = declaration;
  const variable = resourceVariable(declaration);
  return [
    "resources:",
    `  ${variable}:`,
    `    type: ${token}`,
    ...(given.length === 0
      ? []
      : [
          "    properties:",
          ...given.map((input) => `      ${input.name}: ${tsValue(input.sample)}`),
        ]),
    ...(shown === undefined ? [] : ["", "outputs:", `  ${shown}: \${${variable}.${shown}}`]),
  ];
}

function resourceSnippets(declaration: Declaration): string[] {
  return snippetSections(declaration.languages, {
    ts: tsDeclaration(declaration),
    python: pythonDeclaration(declaration),
    go: goDeclaration(declaration),
    yaml: yamlDeclaration(declaration),
  });
}

// A function, called with every argument, exporting one field of its result.

interface Call {
  languages: Languages;
  token: string;
  name: string;
  args: Given[];
  /** The result's fields. */
  results: string[];
  /** The field the snippet exports, if any. */
  shown: string | undefined;
}

/** The result's one field, which the TypeScript function returns itself (`offers`). */
const onlyResultOf = (call: Call): string | undefined =>
  call.results.length === 1 ? call.results[0] : undefined;

/** The one argument, which the TypeScript function takes itself (`query`). */
const onlyArgOf = (call: Call): Given | undefined =>
  call.args.length === 1 ? call.args[0] : undefined;

/** The result field a function snippet exports: the only one, an id, or the first always set. */
function shownResult(fn: Fn): string | undefined {
  const fields = Object.keys(fn.outputs.properties).sort();
  if (fields.length === 1) return fields[0];
  const always = fields.filter((name) => fn.outputs.required.includes(name));
  return always.find(isIdName) ?? always[0];
}

/** TypeScript and YAML's name for the result: the only field's, or the function's own. */
const callVariable = (call: Call): string =>
  onlyResultOf(call) ?? lowerFirst(call.name.replace(/^get(?=[A-Z])/, ""));

/**
 * The TypeScript package's functions (provider/functions.ts) take their one argument itself, not
 * an object holding it, and return their result's one field itself (the list of `offers`), or
 * nothing when the result is empty.
 */
function tsCall(call: Call): string[] {
  const { languages, name, args, results, shown } = call;
  const onlyArg = onlyArgOf(call);
  const argument =
    onlyArg !== undefined
      ? tsValue(onlyArg.sample)
      : args.length === 0
        ? ""
        : braces(args.map((arg) => `${arg.name}: ${tsValue(arg.sample)}`));
  const invocation = `${languages.alias}.${name}(${argument})`;
  const variable = callVariable(call);
  const onlyResult = onlyResultOf(call);
  const statements =
    results.length === 0
      ? ["export = async () => {", `  await ${invocation};`, "};"]
      : onlyResult !== undefined
        ? [`export const ${onlyResult} = ${invocation};`]
        : [
            `const ${variable} = ${invocation};`,
            ...(shown === undefined ? [] : [`export const ${shown} = ${variable}.${shown};`]),
          ];
  return [tsImport(languages), "", ...statements];
}

function tsCallNote(call: Call): string | undefined {
  const onlyArg = onlyArgOf(call);
  const onlyResult = onlyResultOf(call);
  const notes = [
    ...(onlyArg === undefined
      ? []
      : [`${code(call.name)} takes its argument ${code(onlyArg.name)} itself, not an object`]),
    ...(onlyResult !== undefined
      ? [`it returns the result's ${code(onlyResult)} itself`]
      : call.results.length === 0
        ? ["it returns a promise of nothing"]
        : []),
  ];
  return notes.length === 0 ? undefined : `${upperFirst(notes.join("; "))}.`;
}

function pythonCall(call: Call): string[] {
  const { languages, name, args, results, shown } = call;
  const { alias } = languages;
  const argument = (arg: Given) => `${pythonName(arg.name)}=${pythonValue(arg.sample, alias)}`;
  const invocation = `${alias}.${pythonName(name)}(${args.map(argument).join(", ")})`;
  return [
    ...pythonImports(languages, shown !== undefined),
    "",
    ...(results.length === 0 ? [invocation] : [`result = ${invocation}`]),
    ...(shown === undefined ? [] : [`pulumi.export("${shown}", result.${pythonName(shown)})`]),
  ];
}

function goFunctionCall(call: Call): string[] {
  const { languages, name, args, results, shown } = call;
  const { alias } = languages;
  const fields = args.map((arg): [string, string] => [
    goName(arg.name),
    goPlainValue(arg.sample, alias, !arg.required),
  ]);
  const result = results.length === 0 ? "_" : "result";
  const opening = `${result}, err := ${alias}.${goName(name)}(ctx, &${alias}.${goName(name)}Args{`;
  return goProgram(languages, [
    ...goCall(opening, fields),
    ...goReturnOnError,
    ...(shown === undefined
      ? []
      : [`ctx.Export("${shown}", pulumi.ToOutput(result.${goName(shown)}))`]),
    "return nil",
  ]);
}

function yamlCall(call: Call): string[] {
  const { token, args, shown } = call;
  const variable = callVariable(call);
  const onlyResult = onlyResultOf(call);
  const value = onlyResult === undefined ? `${variable}.${shown ?? ""}` : variable;
  return [
    "variables:",
    `  ${variable}:`,
    "    fn::invoke:",
    `      function: ${token}`,
    ...(args.length === 0
      ? []
      : ["      arguments:", ...args.map((arg) => `        ${arg.name}: ${tsValue(arg.sample)}`)]),
    ...(onlyResult === undefined ? [] : [`      return: ${onlyResult}`]),
    ...(shown === undefined ? [] : ["", "outputs:", `  ${shown}: \${${value}}`]),
  ];
}

function functionSnippets(call: Call): string[] {
  const tsNote = tsCallNote(call);
  return snippetSections(call.languages, {
    ts: tsCall(call),
    python: pythonCall(call),
    go: goFunctionCall(call),
    yaml: yamlCall(call),
    ...(tsNote === undefined ? {} : { tsNote }),
  });
}

// ---- Pages ---------------------------------------------------------------------------------

const generatedNote =
  "<!-- Generated by `npm run gen-docs` (scripts/gen-docs.ts) from the plugin's schema: edit " +
  "the zod definitions the schema comes from (provider/native/schema.ts), not this file. -->";

const backToIndex = "[All resources and functions](README.md)";

/** Where a page's properties lead into nested types from. */
const rootsOf = (rows: readonly Row[], role: string, asInput: boolean) =>
  rows.map((row) => ({ where: `${role} ${code(row.name)}`, property: row.property, asInput }));

function pageHead(title: string, kind: string, token: string, text: string | undefined): string[] {
  return [
    generatedNote,
    "",
    `# ${title}`,
    "",
    `${kind} ${code(token)} · ${backToIndex} · [Provider configuration](provider.md)`,
    "",
    prose(text ?? ""),
    "",
  ];
}

const replacementLegend =
  "*Replaces the resource*: **yes**, every change of the input replaces the resource; " +
  "**sometimes**, some changes do (the description says which); **no**, a change is made in " +
  "place.";

/** What the Outputs section says before its table: the inputs are outputs too. */
function outputsPreamble(inputs: readonly Row[], resource: Resource, own: readonly Row[]): string {
  const notOutputs = inputs.filter((row) => !(row.name in resource.properties));
  const inputsToo =
    notOutputs.length === 0
      ? "Every input is also an output"
      : `Every input but ${notOutputs.map((row) => code(row.name)).join(", ")} is also an output`;
  const rest = own.length === 0 ? "The resource has no other outputs." : "Its own outputs:";
  return `${inputsToo}, holding the value as applied. ${rest}`;
}

function resourcePage(spec: PackageSpec, token: string, resource: Resource): string {
  const type = nameOf(token);
  const given = givenInputs(spec, resource);
  const inputs = rowsOf(resource.inputProperties, resource.requiredInputs);
  const outputs = rowsOf(resource.properties, resource.required);
  const own = outputs.filter((row) => !(row.name in resource.inputProperties));
  const uses = usesOf(spec, [
    ...rootsOf(inputs, "input", true),
    ...rootsOf(outputs, "output", false),
  ]);
  const declaration: Declaration = {
    languages: languagesOf(spec),
    type,
    token,
    given,
    shown: shownOutput(resource),
  };
  return [
    ...pageHead(type, "Resource", token, resource.description),
    "## Declaring it",
    "",
    given.length === 0
      ? "Every input is optional in the schema: the snippets declare the resource alone; its " +
        "description says which inputs it needs together."
      : "With the inputs a new resource needs; a value in angle brackets is one to fill in. The " +
        "others are in [Inputs](#inputs).",
    "",
    ...resourceSnippets(declaration),
    "",
    "## Inputs",
    "",
    replacementLegend,
    "",
    inputs.length === 0 ? "None." : inputTable(inputs, { resourceType: type, replaces: true }),
    "",
    "## Outputs",
    "",
    outputsPreamble(inputs, resource, own),
    ...(own.length === 0 ? [] : ["", outputTable(own, type)]),
    "",
    ...typesSection(spec, uses),
  ].join("\n");
}

function functionPage(spec: PackageSpec, token: string, fn: Fn): string {
  const args = rowsOf(fn.inputs.properties, fn.inputs.required);
  const results = rowsOf(fn.outputs.properties, fn.outputs.required);
  const uses = usesOf(spec, [
    ...rootsOf(args, "argument", true),
    ...rootsOf(results, "result", false),
  ]);
  const call: Call = {
    languages: languagesOf(spec),
    token,
    name: nameOf(token),
    args: args.map((row) => givenOf(spec, row)),
    results: results.map((row) => row.name),
    shown: shownResult(fn),
  };
  return [
    ...pageHead(call.name, "Function", token, fn.description),
    "## Calling it",
    "",
    args.length === 0
      ? "It takes no arguments."
      : "With every argument; a value in angle brackets is one to fill in.",
    "",
    ...functionSnippets(call),
    "",
    "## Arguments",
    "",
    args.length === 0 ? "None." : inputTable(args),
    "",
    "## Result",
    "",
    results.length === 0 ? "Empty: the call only acts." : outputTable(results),
    "",
    ...typesSection(spec, uses),
  ].join("\n");
}

// The provider: the stack's settings, and a provider resource of a program's own.

function settingsSection(spec: PackageSpec, languages: Languages): string[] {
  const variables = rowsOf(spec.config.variables, []);
  const setting = (row: Row) => `${spec.name}:${row.name}`;
  const configSet = (row: Row) =>
    `pulumi config set ${row.property.secret === true ? "--secret " : ""}${setting(row)} <${row.name}>`;
  return [
    "## Stack configuration",
    "",
    "Every program reads these settings of its stack:",
    "",
    fence("sh", variables.map(configSet)),
    "",
    table(
      ["Setting", "Python", "Go", "Type", "Secret", "Description"],
      variables.map((row) => [
        code(setting(row)),
        code(`${languages.alias}.config.${pythonName(row.name)}`),
        code(`config.Get${goName(row.name)}(ctx)`),
        typeWords(row.property),
        yesNo(row.property.secret),
        description(row.property),
      ]),
    ),
    "",
    `Python reads them from ${code(`${languages.pythonPackage}.config`)}, Go from the package ` +
      `${code(`${languages.goImport}/config`)}.`,
  ];
}

/**
 * The resource the explicit provider's example declares: the first whose needed inputs are all
 * plain strings or numbers, so that the example is about the provider.
 */
function exampleResource(spec: PackageSpec): Declaration | undefined {
  const languages = languagesOf(spec);
  for (const [token, resource] of sortedByName(Object.entries(spec.resources))) {
    const given = givenInputs(spec, resource);
    const plain = given.every((input) =>
      ["string", "integer", "number"].includes(input.sample.kind),
    );
    if (given.length > 0 && plain) {
      return { languages, type: nameOf(token), token, given, shown: undefined };
    }
  }
  return undefined;
}

function explicitProviderSnippets(
  spec: PackageSpec,
  languages: Languages,
): Omit<Snippets, "ts" | "tsNote"> {
  const { alias } = languages;
  const settings = rowsOf(spec.provider.inputProperties, spec.provider.requiredInputs).map((row) =>
    givenOf(spec, row),
  );
  const example = exampleResource(spec);
  const exampleVariable = example === undefined ? "" : resourceVariable(example);
  const pythonExample =
    example === undefined
      ? []
      : [
          `${alias}.${example.type}(`,
          `    "${exampleVariable}",`,
          ...example.given.map(
            (input) => `    ${pythonName(input.name)}=${pythonValue(input.sample, alias)},`,
          ),
          "    opts=pulumi.ResourceOptions(provider=other),",
          ")",
        ];
  const goExample =
    example === undefined
      ? ["_ = other", "return nil"]
      : [
          ...goCall(
            `_, err = ${alias}.New${example.type}(ctx, "${exampleVariable}", &${alias}.${example.type}Args{`,
            example.given.map((input) => [
              goName(input.name, example.type),
              goInputValue(input.sample, alias),
            ]),
            ", pulumi.Provider(other))",
          ),
          "return err",
        ];
  const yamlExample =
    example === undefined
      ? []
      : [
          `  ${exampleVariable}:`,
          `    type: ${example.token}`,
          "    properties:",
          ...example.given.map((input) => `      ${input.name}: ${tsValue(input.sample)}`),
          "    options:",
          "      provider: ${other}",
        ];
  return {
    python: [
      ...pythonImports(languages, true),
      "",
      `other = ${alias}.Provider(`,
      '    "other",',
      ...settings.map(
        (input) => `    ${pythonName(input.name)}=${pythonValue(input.sample, alias)},`,
      ),
      ")",
      ...pythonExample,
    ],
    go: goProgram(languages, [
      ...goCall(
        `other, err := ${alias}.NewProvider(ctx, "other", &${alias}.ProviderArgs{`,
        settings.map((input) => [
          goName(input.name, "Provider"),
          goInputValue(input.sample, alias),
        ]),
      ),
      ...goReturnOnError,
      ...goExample,
    ]),
    yaml: [
      "resources:",
      "  other:",
      `    type: pulumi:providers:${spec.name}`,
      "    properties:",
      ...settings.map((input) => `      ${input.name}: ${tsValue(input.sample)}`),
      ...yamlExample,
    ],
  };
}

function providerPage(spec: PackageSpec): string {
  const languages = languagesOf(spec);
  const snippets = explicitProviderSnippets(spec, languages);
  const inputs = rowsOf(spec.provider.inputProperties, spec.provider.requiredInputs);
  return [
    generatedNote,
    "",
    "# Provider configuration",
    "",
    `Provider ${code(`pulumi:providers:${spec.name}`)} · ${backToIndex}`,
    "",
    prose(spec.provider.description ?? ""),
    "",
    ...settingsSection(spec, languages),
    "",
    "## An explicit provider",
    "",
    "A provider resource of a program's own, for a program that works with two services (or " +
      "accounts). The TypeScript package has no provider class: its resources read the stack's " +
      "settings.",
    "",
    "### Python",
    "",
    fence("python", snippets.python),
    "",
    "### Go",
    "",
    fence("go", snippets.go),
    "",
    "### YAML",
    "",
    fence("yaml", snippets.yaml),
    "",
    "### Inputs",
    "",
    inputTable(inputs, { resourceType: "Provider", nameHeader: "YAML" }),
    "",
  ].join("\n");
}

function indexPage(spec: PackageSpec): string {
  const entry = (token: string, text: string | undefined) =>
    `- [${nameOf(token)}](${nameOf(token)}.md)` +
    (text === undefined ? "" : `: ${prose(firstSentence(text))}`);
  const settings = Object.keys(spec.config.variables)
    .sort()
    .map((name) => code(`${spec.name}:${name}`));
  return [
    generatedNote,
    "",
    "# Reference",
    "",
    `Every resource and function of the ${code(spec.name)} package, as its schema describes ` +
      "them: inputs and outputs with their names in TypeScript and YAML, Python and Go, their " +
      "types, and whether they are required, secret or replace the resource when changed.",
    "",
    "## Provider",
    "",
    `- [Provider configuration](provider.md): ${settings.join(", ")}.`,
    "",
    "## Resources",
    "",
    ...sortedByName(Object.entries(spec.resources)).map(([token, resource]) =>
      entry(token, resource.description),
    ),
    "",
    "## Functions",
    "",
    ...sortedByName(Object.entries(spec.functions)).map(([token, fn]) =>
      entry(token, fn.description),
    ),
    "",
  ].join("\n");
}

/** Every page of the reference, by file name, from the schema `pulumi package get-schema` prints. */
export function referencePages(schema: unknown): Map<string, string> {
  const spec = packageSpecSchema.parse(schema);
  const pages: [string, string][] = [
    ["README.md", indexPage(spec)],
    ["provider.md", providerPage(spec)],
    ...Object.entries(spec.resources).map(([token, resource]): [string, string] => [
      `${nameOf(token)}.md`,
      resourcePage(spec, token, resource),
    ]),
    ...Object.entries(spec.functions).map(([token, fn]): [string, string] => [
      `${nameOf(token)}.md`,
      functionPage(spec, token, fn),
    ]),
  ];
  const files = pages.map(([file]) => file.toLowerCase());
  const clash = files.find((file, index) => files.indexOf(file) !== index);
  // Two pages whose names differ only in case would overwrite each other on macOS and Windows.
  if (clash !== undefined) throw new Error(`two reference pages are named ${clash}`);
  return new Map(sortedByName(pages));
}

// ---- Writing the pages ---------------------------------------------------------------------

/** The repository: above scripts/, or above dist/tools/scripts/ once compiled. */
export const repoRoot = path.resolve(
  __dirname,
  "..",
  ...(path.basename(path.dirname(__dirname)) === "tools" ? ["..", ".."] : []),
);

/** The schema the plugin prints, as `npm run gen-sdks` reads it. */
export async function pluginSchema(plugin: string): Promise<unknown> {
  const { stdout } = await execFileAsync("pulumi", ["package", "get-schema", plugin], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as unknown;
}

/** The plugin `npm run build` installs, or GPUCLOUD_PLUGIN. */
export const defaultPlugin = (): string =>
  process.env["GPUCLOUD_PLUGIN"] ??
  path.join(repoRoot, "node_modules", ".bin", "pulumi-resource-gpucloud");

/**
 * Writes the pages into `outDir`, replacing it as a whole: written aside first, so that a
 * failed run leaves the committed pages as they were.
 */
export async function writeReference(pages: Map<string, string>, outDir: string): Promise<void> {
  const parent = path.dirname(outDir);
  await mkdir(parent, { recursive: true });
  const aside = await mkdtemp(path.join(parent, ".gen-docs-"));
  try {
    for (const [file, text] of pages) await writeFile(path.join(aside, file), text);
    await rm(outDir, { recursive: true, force: true });
    await rename(aside, outDir);
  } finally {
    await rm(aside, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const outDir = path.resolve(process.argv[2] ?? path.join(repoRoot, "docs", "reference"));
  const pages = referencePages(await pluginSchema(defaultPlugin()));
  await writeReference(pages, outDir);
  process.stdout.write(`[gen-docs] wrote ${pages.size} pages to ${outDir}\n`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `[gen-docs] failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
