/** A function's page: how to call it, its arguments and result, its nested types. */
import { type Call, functionSnippets, shownResult } from "./function-snippets";
import { languagesOf, nameOf } from "./names";
import { rootsOf, typesSection, usesOf } from "./nested-types";
import { pageHead } from "./page-head";
import type { Fn, PackageSpec } from "./schema";
import { givenOf } from "./snippets";
import { inputTable, outputTable, rowsOf } from "./tables";

export function functionPage(spec: PackageSpec, token: string, fn: Fn): string {
  const args = rowsOf(fn.inputs.properties, fn.inputs.required);
  const results = rowsOf(fn.outputs.properties, fn.outputs.required);
  const uses = usesOf(spec, [
    ...rootsOf(args, "argument", true),
    ...rootsOf(results, "result", false),
  ]);
  const call: Call = {
    languages: languagesOf(spec),
    token,
    name: nameOf(token),
    args: args.map((row) => givenOf(spec, row)),
    results: results.map((row) => row.name),
    shown: shownResult(fn),
  };
  return [
    ...pageHead(call.name, "Function", token, fn.description),
    "## Calling it",
    "",
    args.length === 0
      ? "It takes no arguments."
      : "With every argument; a value in angle brackets is one to fill in.",
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
    ...typesSection(spec, uses),
  ].join("\n");
}
