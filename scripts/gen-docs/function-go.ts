/** A function's Go snippet: the call, or its apply when it is given an output. */
import { goDeclarations } from "./declarations";
import { appliedArg, before, type Call, refersToOutputs } from "./function-call";
import { goCall, goPlainType, goPlainValue, goProgram, goReturnOnError } from "./go-code";
import { goName } from "./names";
import type { Given } from "./snippets";

export function goFunctionCall(call: Call): string[] {
  const { languages, name, args, results, shown } = call;
  const { alias } = languages;
  const fn = goName(name);
  const fields = (value: (arg: Given) => string) =>
    args.map((arg): [string, string] => [goName(arg.name), value(arg)]);
  const plainValue = (arg: Given) => goPlainValue(arg.sample, alias, !arg.required);
  const declarations = before(goDeclarations(languages, call.needs));
  if (refersToOutputs(call)) {
    if (results.length > 0) throw new Error(`${name}'s example: Go applies a call of no result`);
    const { name: parameter, sample } = appliedArg(call);
    const type = goPlainType(sample.outputType, alias);
    const output = `${sample.resource}.${goName(sample.output, sample.resourceType)}`;
    const given = fields(() => parameter).map(([field, value]) => `${field}: ${value}`);
    return goProgram(languages, [
      ...declarations,
      // The apply's value is the argument: Go's ApplyT wants a value beside the error.
      `${output}.ApplyT(func(${parameter} ${type}) (${type}, error) {`,
      `\treturn ${parameter}, ${alias}.${fn}(ctx, &${alias}.${fn}Args{${given.join(", ")}})`,
      "})",
      "return nil",
    ]);
  }
  // A function of no result returns an error alone.
  const result = results.length === 0 ? "err" : "result, err";
  const opening = `${result} ${call.needs.length === 0 ? ":=" : "="} ${alias}.${fn}(ctx, &${alias}.${fn}Args{`;
  return goProgram(languages, [
    ...declarations,
    ...goCall(opening, fields(plainValue)),
    ...goReturnOnError,
    ...(shown === undefined
      ? []
      : [`ctx.Export("${shown}", pulumi.ToOutput(result.${goName(shown)}))`]),
    "return nil",
  ]);
}
