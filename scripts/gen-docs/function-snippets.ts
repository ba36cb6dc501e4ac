/** A function's snippets: called with every argument, exporting one field of its result. */
import { goCall, goPlainValue, goProgram, goReturnOnError } from "./go-code";
import { code } from "./markdown";
import { goName, type Languages, lowerFirst, pythonName, upperFirst } from "./names";
import { isIdName } from "./resource-snippets";
import { braces, pythonValue, tsValue } from "./samples";
import type { Fn } from "./schema";
import { type Given, pythonImports, snippetSections, tsImport } from "./snippets";

export interface Call {
  languages: Languages;
  token: string;
  name: string;
  args: Given[];
  /** The result's fields. */
  results: string[];
  /** The field the snippet exports, if any. */
  shown: string | undefined;
}

/** The result's one field, which the TypeScript function returns itself (`offers`). */
const onlyResultOf = (call: Call): string | undefined =>
  call.results.length === 1 ? call.results[0] : undefined;

/** The one argument, which the TypeScript function takes itself (`query`). */
const onlyArgOf = (call: Call): Given | undefined =>
  call.args.length === 1 ? call.args[0] : undefined;

/** The result field a function snippet exports: the only one, an id, or the first always set. */
export function shownResult(fn: Fn): string | undefined {
  const fields = Object.keys(fn.outputs.properties).sort();
  if (fields.length === 1) return fields[0];
  const always = fields.filter((name) => fn.outputs.required.includes(name));
  return always.find(isIdName) ?? always[0];
}

/** TypeScript and YAML's name for the result: the only field's, or the function's own. */
const callVariable = (call: Call): string =>
  onlyResultOf(call) ?? lowerFirst(call.name.replace(/^get(?=[A-Z])/, ""));

/**
 * The TypeScript package's functions (provider/functions.ts) take their one argument itself, not
 * an object holding it, and return their result's one field itself (the list of `offers`), or
 * nothing when the result is empty.
 */
function tsCall(call: Call): string[] {
  const { languages, name, args, results, shown } = call;
  const onlyArg = onlyArgOf(call);
  const argument =
    onlyArg !== undefined
      ? tsValue(onlyArg.sample)
      : args.length === 0
        ? ""
        : braces(args.map((arg) => `${arg.name}: ${tsValue(arg.sample)}`));
  const invocation = `${languages.alias}.${name}(${argument})`;
  const variable = callVariable(call);
  const onlyResult = onlyResultOf(call);
  const statements =
    results.length === 0
      ? ["export = async () => {", `  await ${invocation};`, "};"]
      : onlyResult !== undefined
        ? [`export const ${onlyResult} = ${invocation};`]
        : [
            `const ${variable} = ${invocation};`,
            ...(shown === undefined ? [] : [`export const ${shown} = ${variable}.${shown};`]),
          ];
  return [tsImport(languages), "", ...statements];
}

function tsCallNote(call: Call): string | undefined {
  const onlyArg = onlyArgOf(call);
  const onlyResult = onlyResultOf(call);
  const notes = [
    ...(onlyArg === undefined
      ? []
      : [`${code(call.name)} takes its argument ${code(onlyArg.name)} itself, not an object`]),
    ...(onlyResult !== undefined
      ? [`it returns the result's ${code(onlyResult)} itself`]
      : call.results.length === 0
        ? ["it returns a promise of nothing"]
        : []),
  ];
  return notes.length === 0 ? undefined : `${upperFirst(notes.join("; "))}.`;
}

function pythonCall(call: Call): string[] {
  const { languages, name, args, results, shown } = call;
  const { alias } = languages;
  const argument = (arg: Given) => `${pythonName(arg.name)}=${pythonValue(arg.sample, alias)}`;
  const invocation = `${alias}.${pythonName(name)}(${args.map(argument).join(", ")})`;
  return [
    ...pythonImports(languages, shown !== undefined),
    "",
    ...(results.length === 0 ? [invocation] : [`result = ${invocation}`]),
    ...(shown === undefined ? [] : [`pulumi.export("${shown}", result.${pythonName(shown)})`]),
  ];
}

function goFunctionCall(call: Call): string[] {
  const { languages, name, args, results, shown } = call;
  const { alias } = languages;
  const fields = args.map((arg): [string, string] => [
    goName(arg.name),
    goPlainValue(arg.sample, alias, !arg.required),
  ]);
  // A function of no result returns an error alone.
  const result = results.length === 0 ? "err" : "result, err";
  const opening = `${result} := ${alias}.${goName(name)}(ctx, &${alias}.${goName(name)}Args{`;
  return goProgram(languages, [
    ...goCall(opening, fields),
    ...goReturnOnError,
    ...(shown === undefined
      ? []
      : [`ctx.Export("${shown}", pulumi.ToOutput(result.${goName(shown)}))`]),
    "return nil",
  ]);
}

function yamlCall(call: Call): string[] {
  const { token, args, shown } = call;
  const variable = callVariable(call);
  const onlyResult = onlyResultOf(call);
  const value = onlyResult === undefined ? `${variable}.${shown ?? ""}` : variable;
  return [
    "variables:",
    `  ${variable}:`,
    "    fn::invoke:",
    `      function: ${token}`,
    ...(args.length === 0
      ? []
      : ["      arguments:", ...args.map((arg) => `        ${arg.name}: ${tsValue(arg.sample)}`)]),
    ...(onlyResult === undefined ? [] : [`      return: ${onlyResult}`]),
    ...(shown === undefined ? [] : ["", "outputs:", `  ${shown}: \${${value}}`]),
  ];
}

export function functionSnippets(call: Call): string[] {
  const tsNote = tsCallNote(call);
  return snippetSections(call.languages, {
    ts: tsCall(call),
    python: pythonCall(call),
    go: goFunctionCall(call),
    yaml: yamlCall(call),
    ...(tsNote === undefined ? {} : { tsNote }),
  });
}
