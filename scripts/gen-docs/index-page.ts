/** The index page (README.md): the provider, and every resource and function. */
import { code, firstSentence, prose } from "./markdown";
import { nameOf } from "./names";
import { generatedNote } from "./page-head";
import type { PackageSpec } from "./schema";
import { sortedByName } from "./tables";

export function indexPage(spec: PackageSpec): string {
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
