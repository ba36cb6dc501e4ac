/** A resource's snippets: its example, or placeholders of its inputs; one output exported. */
import {
  type Declared,
  expectReferred,
  goDeclarations,
  neededResources,
  pythonDeclarations,
  tsDeclarations,
  yamlResources,
} from "./declarations";
import { exampleGiven } from "./example-samples";
import { goProgram } from "./go-code";
import { goName, type Languages, languagesOf, lowerFirst, nameOf, pythonName } from "./names";
import type { PackageSpec, Resource } from "./schema";
import { type Given, givenOf, pythonImports, snippetSections, tsImport } from "./snippets";
import { requiredWords, rowsOf } from "./tables";

export interface Declaration {
  languages: Languages;
  /** The resources its example needs, declared before it. */
  needs: Declared[];
  /** The resource the page is about. */
  main: Declared;
  /** The output the snippet exports, if any. */
  shown: string | undefined;
  /** Whether the inputs are an example's (values that work) rather than placeholders. */
  fromExample: boolean;
  /** Whether the YAML declares the stack's sweeper, on which the resource depends. */
  guarded: boolean;
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

/** Placeholders for the inputs a new resource needs: the required ones, and to-create ones. */
export function givenInputs(spec: PackageSpec, resource: Resource): Given[] {
  return rowsOf(resource.inputProperties, resource.requiredInputs)
    .filter((row) => requiredWords(row) !== "no")
    .map((row) => givenOf(spec, row));
}

/** What a resource's snippets declare: its example when it has one, else placeholders. */
export function resourceDeclaration(
  spec: PackageSpec,
  token: string,
  resource: Resource,
): Declaration {
  const type = nameOf(token);
  const example = resource.language?.docs?.example;
  const { needs, scope } = neededResources(spec, example);
  const { inputProperties, requiredInputs } = resource;
  const given =
    example === undefined
      ? givenInputs(spec, resource)
      : exampleGiven(spec, type, inputProperties, requiredInputs, example.inputs, scope);
  expectReferred(needs, given);
  const variable = lowerFirst(type);
  if (scope.has(variable)) throw new Error(`${type}'s example declares ${variable} twice`);
  const shown = shownOutput(resource);
  const main = { type, token, variable, given, used: shown !== undefined };
  return {
    languages: languagesOf(spec),
    needs,
    main,
    shown,
    fromExample: example !== undefined,
    guarded: resource.language?.docs?.dependsOnSweeper === true,
  };
}

export function resourceSnippets({
  languages,
  needs,
  main,
  shown,
  guarded,
}: Declaration): string[] {
  const declared = [...needs, main];
  const { variable } = main;
  return snippetSections(languages, {
    ts: [
      tsImport(languages),
      "",
      ...tsDeclarations(languages, declared),
      ...(shown === undefined ? [] : ["", `export const ${shown} = ${variable}.${shown};`]),
    ],
    python: [
      ...pythonImports(languages, shown !== undefined),
      "",
      ...pythonDeclarations(languages, declared),
      ...(shown === undefined
        ? []
        : ["", `pulumi.export("${shown}", ${pythonName(variable)}.${pythonName(shown)})`]),
    ],
    go: goProgram(languages, [
      ...goDeclarations(languages, declared),
      ...(shown === undefined
        ? []
        : [`ctx.Export("${shown}", ${variable}.${goName(shown, main.type)})`]),
      "return nil",
    ]),
    yaml: [
      ...yamlResources(declared, guarded),
      ...(shown === undefined ? [] : ["", "outputs:", `  ${shown}: \${${variable}.${shown}}`]),
    ],
  });
}
