/** The Types section of a page: each nested type its properties use, and where. */
import { code, prose, table, yesNo } from "./markdown";
import { languagesOf, nameOf } from "./names";
import type { PackageSpec, Property } from "./schema";
import { description, nameHeaders, namesOf, type Row, rowsOf, sortedByName } from "./tables";
import { typeLink, typesIn, typeWords } from "./type-words";

/** Where a nested type appears on a page: "input `volume`", "field `api` of ...". */
interface Use {
  token: string;
  where: string;
  asInput: boolean;
}

/** Where a page's properties lead into nested types from. */
export const rootsOf = (rows: readonly Row[], role: string, asInput: boolean) =>
  rows.map((row) => ({ where: `${role} ${code(row.name)}`, property: row.property, asInput }));

/** Every nested type the page's properties use, with where, in the order first met. */
export function usesOf(
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

/**
 * `plain`: the page's inputs are a function's arguments, which the SDKs type with their plain
 * classes (Python's OfferQuery, Go's OfferQuery), not a resource's Args classes.
 */
function typeSection(
  spec: PackageSpec,
  token: string,
  uses: readonly Use[],
  plain: boolean,
): string {
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
      ? [
          plain
            ? `as an argument: Python ${code(`${alias}.${name}`)}, Go ${code(`${alias}.${name}`)}`
            : `as an input: Python ${code(`${alias}.${name}Args`)}, Go ${code(`${alias}.${name}Args`)}`,
        ]
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

export function typesSection(spec: PackageSpec, uses: readonly Use[], plain = false): string[] {
  const tokens = [...new Set(uses.map((use) => use.token))].sort((a, b) =>
    nameOf(a) < nameOf(b) ? -1 : 1,
  );
  if (tokens.length === 0) return [];
  return [
    "## Types",
    "",
    ...tokens.flatMap((token) => [typeSection(spec, token, uses, plain), ""]),
  ];
}
