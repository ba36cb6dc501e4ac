/** The explicit provider's snippets: a provider of a program's own, and a resource using it. */
import { goCall, goInputValue, goProgram, goReturnOnError } from "./go-code";
import { goName, type Languages, languagesOf, nameOf, pythonName } from "./names";
import { type Declaration, givenInputs, resourceVariable } from "./resource-snippets";
import { pythonValue, tsValue } from "./samples";
import type { PackageSpec } from "./schema";
import { type Given, givenOf, pythonImports, type Snippets } from "./snippets";
import { rowsOf, sortedByName } from "./tables";

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

/** What the explicit provider's snippets show: its settings, and a resource that uses it. */
interface ExplicitProvider {
  languages: Languages;
  /** The package's name, as in the provider's type `pulumi:providers:<name>`. */
  packageName: string;
  settings: Given[];
  example: Declaration | undefined;
}

function pythonProvider({ languages, settings, example }: ExplicitProvider): string[] {
  const { alias } = languages;
  const argument = (input: Given) =>
    `    ${pythonName(input.name)}=${pythonValue(input.sample, alias)},`;
  return [
    ...pythonImports(languages, true),
    "",
    `other = ${alias}.Provider(`,
    '    "other",',
    ...settings.map(argument),
    ")",
    ...(example === undefined
      ? []
      : [
          `${alias}.${example.type}(`,
          `    "${resourceVariable(example)}",`,
          ...example.given.map(argument),
          "    opts=pulumi.ResourceOptions(provider=other),",
          ")",
        ]),
  ];
}

/** The Go lines after the provider's: the example declared with it, or `other` left unused. */
function goExample(example: Declaration | undefined, alias: string): string[] {
  if (example === undefined) return ["_ = other", "return nil"];
  return [
    ...goCall(
      `_, err = ${alias}.New${example.type}(ctx, "${resourceVariable(example)}", &${alias}.${example.type}Args{`,
      example.given.map((input) => [
        goName(input.name, example.type),
        goInputValue(input.sample, alias),
      ]),
      ", pulumi.Provider(other))",
    ),
    "return err",
  ];
}

function goProvider({ languages, settings, example }: ExplicitProvider): string[] {
  const { alias } = languages;
  return goProgram(languages, [
    ...goCall(
      `other, err := ${alias}.NewProvider(ctx, "other", &${alias}.ProviderArgs{`,
      settings.map((input) => [goName(input.name, "Provider"), goInputValue(input.sample, alias)]),
    ),
    ...goReturnOnError,
    ...goExample(example, alias),
  ]);
}

function yamlProvider({ packageName, settings, example }: ExplicitProvider): string[] {
  const properties = (given: readonly Given[]) =>
    given.map((input) => `      ${input.name}: ${tsValue(input.sample)}`);
  return [
    "resources:",
    "  other:",
    `    type: pulumi:providers:${packageName}`,
    "    properties:",
    ...properties(settings),
    ...(example === undefined
      ? []
      : [
          `  ${resourceVariable(example)}:`,
          `    type: ${example.token}`,
          "    properties:",
          ...properties(example.given),
          "    options:",
          "      provider: ${other}",
        ]),
  ];
}

export function explicitProviderSnippets(
  spec: PackageSpec,
  languages: Languages,
): Omit<Snippets, "ts" | "tsNote"> {
  const provider: ExplicitProvider = {
    languages,
    packageName: spec.name,
    settings: rowsOf(spec.provider.inputProperties, spec.provider.requiredInputs).map((row) =>
      givenOf(spec, row),
    ),
    example: exampleResource(spec),
  };
  return {
    python: pythonProvider(provider),
    go: goProvider(provider),
    yaml: yamlProvider(provider),
  };
}
