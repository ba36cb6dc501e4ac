/** The provider's page: the stack's settings, and a provider resource of a program's own. */
import { code, fence, prose, table, yesNo } from "./markdown";
import { goName, type Languages, languagesOf, pythonName } from "./names";
import { backToIndex, generatedNote } from "./page-head";
import { explicitProviderSnippets } from "./provider-snippets";
import type { PackageSpec } from "./schema";
import { description, inputTable, type Row, rowsOf } from "./tables";
import { typeWords } from "./type-words";

export function settingsSection(spec: PackageSpec, languages: Languages): string[] {
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

export function providerPage(spec: PackageSpec): string {
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
