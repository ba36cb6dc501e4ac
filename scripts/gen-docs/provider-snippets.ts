/** The explicit provider's snippets: a provider of a program's own, and a resource using it. */
import { goCall, goInputValue, goProgram, goReturnOnError } from "./go-code";
import type { Declared } from "./declarations";
import { goName, type Languages, pythonName } from "./names";
import { resourceDeclaration } from "./resource-snippets";
import { pythonValue, yamlValue } from "./samples";
import type { PackageSpec } from "./schema";
import { type Given, givenOf, pythonImports, type Snippets } from "./snippets";
import { rowsOf, sortedByName } from "./tables";

/**
 * The resource the explicit provider's example declares: the first whose snippet (its example,
 * or its needed inputs) declares it alone with plain strings or numbers, so that the example is
 * about the provider.
 */
function exampleResource(spec: PackageSpec): Declared | undefined {
  for (const [token, resource] of sortedByName(Object.entries(spec.resources))) {
    const { needs, main } = resourceDeclaration(spec, token, resource);
    const plain = main.given.every((input) =>
      ["string", "integer", "number"].includes(input.sample.kind),
    );
    if (needs.length === 0 && main.given.length > 0 && plain) return main;
  }
  return undefined;
}

/** What the explicit provider's snippets show: its settings, and a resource that uses it. */
interface ExplicitProvider {
  languages: Languages;
  /** The package's name, as in the provider's type `pulumi:providers:<name>`. */
  packageName: string;
  settings: Given[];
  example: Declared | undefined;
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
          `    "${example.variable}",`,
          ...example.given.map(argument),
          "    opts=pulumi.ResourceOptions(provider=other),",
          ")",
        ]),
  ];
}

/** The Go lines after the provider's: the example declared with it, or `other` left unused. */
function goExample(example: Declared | undefined, alias: string): string[] {
  if (example === undefined) return ["_ = other", "return nil"];
  return [
    ...goCall(
      `_, err = ${alias}.New${example.type}(ctx, "${example.variable}", &${alias}.${example.type}Args{`,
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
    given.map((input) => `      ${input.name}: ${yamlValue(input.sample)}`);
  return [
    "resources:",
    "  other:",
    `    type: pulumi:providers:${packageName}`,
    "    properties:",
    ...properties(settings),
    ...(example === undefined
      ? []
      : [
          `  ${example.variable}:`,
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
