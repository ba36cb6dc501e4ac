/** Types in words ("list of strings"), with links to the sections of nested types. */
import { anchorOf } from "./markdown";
import { nameOf } from "./names";
import type { TypeSpec } from "./schema";

const localTypePrefix = "#/types/";

/** The token a property's type names, when it is one of the package's object types. */
export function localType(spec: TypeSpec): string | undefined {
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
export const typeLink = (token: string): string =>
  `[${nameOf(token)}](#${anchorOf(nameOf(token))})`;

/** A type in words: "whole number", "list of strings", a link to a nested type's section. */
export function typeWords(spec: TypeSpec, plural = false): string {
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
export function typesIn(spec: TypeSpec): string[] {
  const local = localType(spec);
  if (local !== undefined) return [local];
  return [spec.items, spec.additionalProperties, ...(spec.oneOf ?? [])]
    .filter((inner): inner is TypeSpec => inner !== undefined)
    .flatMap(typesIn);
}
