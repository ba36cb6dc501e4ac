/** A resource's page: how to declare it, its inputs and outputs, its nested types. */
import { needsSentence } from "./declarations";
import { code } from "./markdown";
import { nameOf } from "./names";
import { rootsOf, typesSection, usesOf } from "./nested-types";
import { pageHead } from "./page-head";
import { type Declaration, resourceDeclaration, resourceSnippets } from "./resource-snippets";
import type { PackageSpec, Resource } from "./schema";
import { inputTable, outputTable, type Row, rowsOf } from "./tables";

const replacementLegend =
  "*Replaces the resource*: **yes**, every change of the input replaces the resource; " +
  "**sometimes**, some changes do (the description says which); **no**, a change is made in " +
  "place.";

/** What the Outputs section says before its table: the inputs are outputs too. */
function outputsPreamble(inputs: readonly Row[], resource: Resource, own: readonly Row[]): string {
  const notOutputs = inputs.filter((row) => !(row.name in resource.properties));
  const inputsToo =
    notOutputs.length === 0
      ? "Every input is also an output"
      : `Every input but ${notOutputs.map((row) => code(row.name)).join(", ")} is also an output`;
  const rest = own.length === 0 ? "The resource has no other outputs." : "Its own outputs:";
  return `${inputsToo}, holding the value as applied. ${rest}`;
}

/** What the Declaring it section says before its snippets. */
function declaringIntro({ fromExample, needs, main }: Declaration): string {
  if (fromExample) {
    const first = needsSentence(needs);
    return (
      "A minimal example, with values that work against the emulator's default market " +
      `(\`gpucloud-emulator\`).${first} The other inputs are in [Inputs](#inputs).`
    );
  }
  return main.given.length === 0
    ? "Every input is optional in the schema: the snippets declare the resource alone; its " +
        "description says which inputs it needs together."
    : "With the inputs a new resource needs; a value in angle brackets is one to fill in. The " +
        "others are in [Inputs](#inputs).";
}

/**
 * How an overlay is declared: by the SDKs themselves (no class is generated for it), and by a
 * YAML program, which runs no SDK code.
 */
function overlayDeclaring(token: string): string[] {
  return [
    "Python, Go and TypeScript programs declare none: the SDK declares the stack's one with " +
      "the first Instance or NodeGroup (there is no class for it). A YAML program declares " +
      "one, with no properties, and makes each Instance and NodeGroup depend on it " +
      "([never-lost.md](../guides/never-lost.md)):",
    "",
    "```yaml",
    "resources:",
    "  sweeper:",
    `    type: ${token}`,
    "  trainer:",
    `    type: ${token.replace(/:[^:]+$/, ":Instance")}`,
    "    properties: { askId: 31001, image: pytorch/pytorch, diskGb: 20 }",
    "    options:",
    "      dependsOn:",
    "        - ${sweeper}",
    "```",
  ];
}

/** The snippets that declare the resource in every language, with what they say first. */
function declaringSnippets(spec: PackageSpec, token: string, resource: Resource): string[] {
  const declaration = resourceDeclaration(spec, token, resource);
  return [declaringIntro(declaration), "", ...resourceSnippets(declaration)];
}

export function resourcePage(spec: PackageSpec, token: string, resource: Resource): string {
  const type = nameOf(token);
  const inputs = rowsOf(resource.inputProperties, resource.requiredInputs);
  const outputs = rowsOf(resource.properties, resource.required);
  const own = outputs.filter((row) => !(row.name in resource.inputProperties));
  const uses = usesOf(spec, [
    ...rootsOf(inputs, "input", true),
    ...rootsOf(outputs, "output", false),
  ]);
  const declaring =
    resource.isOverlay === true
      ? overlayDeclaring(token)
      : declaringSnippets(spec, token, resource);
  return [
    ...pageHead(type, "Resource", token, resource.description),
    "## Declaring it",
    "",
    ...declaring,
    "",
    "## Inputs",
    "",
    replacementLegend,
    "",
    inputs.length === 0 ? "None." : inputTable(inputs, { resourceType: type, replaces: true }),
    "",
    "## Outputs",
    "",
    outputsPreamble(inputs, resource, own),
    ...(own.length === 0 ? [] : ["", outputTable(own, type)]),
    "",
    ...typesSection(spec, uses),
  ].join("\n");
}
