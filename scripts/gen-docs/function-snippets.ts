/**
 * A function's snippets: the resources its example refers to, then the call, exporting one
 * field of its result. The functions take plain values: a call given an output's value makes it
 * in the output's `apply`, once the value is known (every language but YAML, which waits itself).
 */
import { pythonDeclarations, tsDeclarations, yamlResources } from "./declarations";
import {
  appliedArg,
  before,
  type Call,
  callVariable,
  onlyArgOf,
  onlyResultOf,
  refersToOutputs,
  tsCallNote,
} from "./function-call";
import { goFunctionCall } from "./function-go";
import { pythonName } from "./names";
import { braces, pythonValue, tsValue, yamlValue } from "./samples";
import { type Given, pythonImports, snippetSections, tsImport } from "./snippets";

/**
 * The TypeScript package's functions (provider/functions.ts) take their one argument itself, not
 * an object holding it, and return their result's one field itself (the list of `offers`), or
 * nothing when the result is empty.
 */
function tsCall(call: Call): string[] {
  const { languages, name, args, results, shown } = call;
  const onlyArg = onlyArgOf(call);
  const invocation = (argument: string) => `${languages.alias}.${name}(${argument})`;
  const variable = callVariable(call);
  const onlyResult = onlyResultOf(call);
  const argument =
    onlyArg !== undefined
      ? tsValue(onlyArg.sample)
      : args.length === 0
        ? ""
        : braces(args.map((arg) => `${arg.name}: ${tsValue(arg.sample)}`));
  const applied = refersToOutputs(call) ? appliedArg(call) : undefined;
  const statements = applied
    ? [
        // Exported, so that the program waits for it.
        `export const ${onlyResult ?? variable} = ${tsValue(applied.sample)}.apply((${applied.name}) =>`,
        `  ${invocation(applied.name)},`,
        ");",
      ]
    : results.length === 0
      ? ["export = async () => {", `  await ${invocation(argument)};`, "};"]
      : onlyResult !== undefined
        ? [`export const ${onlyResult} = ${invocation(argument)};`]
        : [
            `const ${variable} = ${invocation(argument)};`,
            ...(shown === undefined ? [] : [`export const ${shown} = ${variable}.${shown};`]),
          ];
  return [tsImport(languages), "", ...before(tsDeclarations(languages, call.needs)), ...statements];
}

function pythonCall(call: Call): string[] {
  const { languages, name, args, results, shown } = call;
  const { alias } = languages;
  const argument = (arg: Given) =>
    `${pythonName(arg.name)}=${pythonValue(arg.sample, alias, true)}`;
  const plain = (text: string) => `${alias}.${pythonName(name)}(${text})`;
  const applied = refersToOutputs(call) ? appliedArg(call) : undefined;
  const parameter = applied === undefined ? "" : pythonName(applied.name);
  const invocation =
    applied === undefined
      ? plain(args.map(argument).join(", "))
      : `${pythonValue(applied.sample, alias)}.apply(lambda ${parameter}: ${plain(`${parameter}=${parameter}`)})`;
  return [
    ...pythonImports(languages, shown !== undefined),
    "",
    ...before(pythonDeclarations(languages, call.needs)),
    ...(results.length === 0 ? [invocation] : [`result = ${invocation}`]),
    ...(shown === undefined ? [] : [`pulumi.export("${shown}", result.${pythonName(shown)})`]),
  ];
}

function yamlCall(call: Call): string[] {
  const { token, args, shown } = call;
  const variable = callVariable(call);
  const onlyResult = onlyResultOf(call);
  const value = onlyResult === undefined ? `${variable}.${shown ?? ""}` : variable;
  return [
    ...before(call.needs.length === 0 ? [] : yamlResources(call.needs)),
    "variables:",
    `  ${variable}:`,
    "    fn::invoke:",
    `      function: ${token}`,
    ...(args.length === 0
      ? []
      : [
          "      arguments:",
          ...args.map((arg) => `        ${arg.name}: ${yamlValue(arg.sample)}`),
        ]),
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
