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

export function resourcePage(spec: PackageSpec, token: string, resource: Resource): string {
  const type = nameOf(token);
  const inputs = rowsOf(resource.inputProperties, resource.requiredInputs);
  const outputs = rowsOf(resource.properties, resource.required);
  const own = outputs.filter((row) => !(row.name in resource.inputProperties));
  const uses = usesOf(spec, [
    ...rootsOf(inputs, "input", true),
    ...rootsOf(outputs, "output", false),
  ]);
  const declaration = resourceDeclaration(spec, token, resource);
  return [
    ...pageHead(type, "Resource", token, resource.description),
    "## Declaring it",
    "",
    declaringIntro(declaration),
    "",
    ...resourceSnippets(declaration),
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
