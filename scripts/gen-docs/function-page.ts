/** A function's page: how to call it, its arguments and result, its nested types. */
import { needsSentence } from "./declarations";
import { type Call, functionCall } from "./function-call";
import { functionSnippets } from "./function-snippets";
import { rootsOf, typesSection, usesOf } from "./nested-types";
import { pageHead } from "./page-head";
import type { Fn, PackageSpec } from "./schema";
import { inputTable, outputTable, rowsOf } from "./tables";

/** What the Calling it section says before its snippets. */
function callingIntro({ fromExample, needs, args }: Call): string {
  if (args.length === 0) return "It takes no arguments.";
  if (!fromExample) return "With every argument; a value in angle brackets is one to fill in.";
  const first = needsSentence(needs);
  return `A call that works against the emulator's default market (\`gpucloud-emulator\`).${first}`;
}

export function functionPage(spec: PackageSpec, token: string, fn: Fn): string {
  const args = rowsOf(fn.inputs.properties, fn.inputs.required);
  const results = rowsOf(fn.outputs.properties, fn.outputs.required);
  const uses = usesOf(spec, [
    ...rootsOf(args, "argument", true),
    ...rootsOf(results, "result", false),
  ]);
  const call = functionCall(spec, token, fn);
  return [
    ...pageHead(call.name, "Function", token, fn.description),
    "## Calling it",
    "",
    callingIntro(call),
    "",
    ...functionSnippets(call),
    "",
    "## Arguments",
    "",
    args.length === 0 ? "None." : inputTable(args),
    "",
    "## Result",
    "",
    results.length === 0 ? "Empty: the call only acts." : outputTable(results),
    "",
    ...typesSection(spec, uses, true),
  ].join("\n");
}
