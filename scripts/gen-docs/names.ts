/** Names in each language: a schema name in Python and Go, and the package's own names. */
import type { PackageSpec } from "./schema";

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

export const upperFirst = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
export const lowerFirst = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);

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
export const nameOf = (token: string): string => token.split(":").pop() ?? token;

/** What every snippet of the package starts from: the package's name in each language. */
export interface Languages {
  /** The name programs import the package as, in every language (`gpucloud`). */
  alias: string;
  /** The npm package of the dynamic classes, which the TypeScript snippets use (no plugin). */
  nodejsPackage: string;
  /** The npm package of the plugin's TypeScript SDK (sdk/nodejs). */
  nodejsSdkPackage: string;
  pythonPackage: string;
  goImport: string;
}

/** This repository's npm package (package.json's name): the dynamic classes, no plugin. */
export const dynamicPackage = "pulumi-gpucloud";

/** The package's names in each language, from the schema's `language` section. */
export function languagesOf(spec: PackageSpec): Languages {
  const goImport = spec.language.go.importBasePath;
  // Go programs use the package by its own name, the import path's last element.
  const alias = goImport.split("/").pop() ?? spec.name;
  return {
    alias,
    nodejsPackage: dynamicPackage,
    nodejsSdkPackage: spec.language.nodejs.packageName,
    pythonPackage: spec.language.python.packageName,
    goImport,
  };
}
