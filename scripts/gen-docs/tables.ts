/** The tables of a page's properties: names in each language, type, required, secret, ... */
import { code, prose, table, yesNo } from "./markdown";
import { goName, pythonName } from "./names";
import type { Property } from "./schema";
import { typeWords } from "./type-words";

/** A property as a table row shows it. */
export interface Row {
  name: string;
  property: Property;
  required: boolean;
}

export const sortedByName = <T>(entries: [string, T][]): [string, T][] =>
  [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export function rowsOf(properties: Record<string, Property>, required: readonly string[]): Row[] {
  return sortedByName(Object.entries(properties)).map(([name, property]) => ({
    name,
    property,
    required: required.includes(name),
  }));
}

/** The three names of a property: TypeScript and YAML (the schema's), Python, Go. */
export const namesOf = (name: string, resourceType?: string): string[] => [
  code(name),
  code(pythonName(name)),
  code(goName(name, resourceType)),
];

export const nameHeaders = ["TypeScript / YAML", "Python", "Go"];

const defaultOf = (property: Property): string =>
  property.default === undefined ? "" : code(JSON.stringify(property.default));

export function requiredWords(row: Row): string {
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

export const description = (property: Property): string => prose(property.description ?? "", true);

/** Whose inputs a table lists: a resource's say whether a change replaces it. */
interface InputsOf {
  resourceType?: string;
  replaces?: boolean;
  /** The first column's heading: whose name it is (the provider has no TypeScript class). */
  nameHeader?: string;
}

/** The inputs of a resource (or arguments of a function): what a program gives. */
export function inputTable(
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
export function outputTable(rows: readonly Row[], resourceType?: string): string {
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
