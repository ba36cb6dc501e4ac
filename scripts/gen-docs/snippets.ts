/** What the snippets share: the values they give, their sections, their imports. */
import { code, fence } from "./markdown";
import type { Languages } from "./names";
import { type Sample, sampleOf } from "./samples";
import type { PackageSpec } from "./schema";
import type { Row } from "./tables";

/** A value a snippet passes, and the property (or argument) it is given as. */
export interface Given {
  name: string;
  sample: Sample;
  required: boolean;
}

export const givenOf = (spec: PackageSpec, row: Row): Given => ({
  name: row.name,
  sample: sampleOf(spec, row.property, row.name),
  required: row.required,
});

/** A snippet in each language, and what TypeScript does differently, said above its snippet. */
export interface Snippets {
  ts: string[];
  python: string[];
  go: string[];
  yaml: string[];
  tsNote?: string;
}

export function snippetSections(languages: Languages, snippets: Snippets): string[] {
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

export const tsImport = (languages: Languages): string =>
  `import * as ${languages.alias} from "${languages.nodejsPackage}";`;

/** The imports of a Python program: `pulumi` itself only when it exports (or sets options). */
export const pythonImports = (languages: Languages, usesPulumi: boolean): string[] => [
  ...(usesPulumi ? ["import pulumi"] : []),
  `import ${languages.pythonPackage} as ${languages.alias}`,
];
