/** A resource's snippets: declared with the inputs a new one needs, exporting one output. */
import { goCall, goInputValue, goProgram, goReturnOnError } from "./go-code";
import { goName, type Languages, lowerFirst, pythonName } from "./names";
import { pythonValue, tsValue } from "./samples";
import type { PackageSpec, Resource } from "./schema";
import { type Given, givenOf, pythonImports, snippetSections, tsImport } from "./snippets";
import { requiredWords, rowsOf } from "./tables";

export interface Declaration {
  languages: Languages;
  type: string;
  token: string;
  given: Given[];
  /** The output the snippet exports, if any. */
  shown: string | undefined;
}

/** The output a resource snippet exports: an id when there is one, else the first always set. */
export function shownOutput(resource: Resource): string | undefined {
  const always = Object.keys(resource.properties)
    .filter((name) => resource.required.includes(name))
    .sort();
  const own = always.filter((name) => !(name in resource.inputProperties));
  return own.find(isIdName) ?? own[0] ?? always[0];
}

export const isIdName = (name: string): boolean => name === "id" || name.endsWith("Id");

/** The inputs a resource snippet gives: the required ones, and those a new resource needs. */
export function givenInputs(spec: PackageSpec, resource: Resource): Given[] {
  return rowsOf(resource.inputProperties, resource.requiredInputs)
    .filter((row) => requiredWords(row) !== "no")
    .map((row) => givenOf(spec, row));
}

export const resourceVariable = (declaration: Declaration): string => lowerFirst(declaration.type);

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

export function resourceSnippets(declaration: Declaration): string[] {
  return snippetSections(declaration.languages, {
    ts: tsDeclaration(declaration),
    python: pythonDeclaration(declaration),
    go: goDeclaration(declaration),
    yaml: yamlDeclaration(declaration),
  });
}
