/** A function's call, as its snippets show it: its example's arguments, or placeholders. */
import { type Declared, expectReferred, neededResources } from "./declarations";
import { referredTo } from "./example-references";
import { exampleGiven } from "./example-samples";
import { code } from "./markdown";
import { type Languages, languagesOf, lowerFirst, nameOf, upperFirst } from "./names";
import { isIdName } from "./resource-snippets";
import type { Sample } from "./samples";
import type { Fn, PackageSpec } from "./schema";
import { type Given, givenOf } from "./snippets";
import { rowsOf } from "./tables";

export interface Call {
  languages: Languages;
  token: string;
  name: string;
  /** The resources its example declares first: its arguments refer to their outputs. */
  needs: Declared[];
  args: Given[];
  /** The function's parameters, given or not: with one, TypeScript takes it itself. */
  parameters: string[];
  /** The result's fields. */
  results: string[];
  /** The field the snippet exports, if any. */
  shown: string | undefined;
  /** Whether the arguments are an example's (values that work) rather than placeholders. */
  fromExample: boolean;
}

/** The result field a function snippet exports: the only one, an id, or the first always set. */
export function shownResult(fn: Fn): string | undefined {
  const fields = Object.keys(fn.outputs.properties).sort();
  if (fields.length === 1) return fields[0];
  const always = fields.filter((name) => fn.outputs.required.includes(name));
  return always.find(isIdName) ?? always[0];
}

/** A function's call: its example when it has one, else every argument as a placeholder. */
export function functionCall(spec: PackageSpec, token: string, fn: Fn): Call {
  const name = nameOf(token);
  const example = fn.language?.docs?.example;
  const { needs, scope } = neededResources(spec, example);
  const { properties, required } = fn.inputs;
  const args =
    example === undefined
      ? rowsOf(properties, required).map((row) => givenOf(spec, row))
      : exampleGiven(spec, name, properties, required, example.inputs, scope);
  expectReferred(needs, args);
  return {
    languages: languagesOf(spec),
    token,
    name,
    needs,
    args,
    parameters: Object.keys(properties),
    results: rowsOf(fn.outputs.properties, fn.outputs.required).map((row) => row.name),
    shown: shownResult(fn),
    fromExample: example !== undefined,
  };
}

/** Whether the call is given outputs of the resources it refers to: it is made in an apply. */
export const refersToOutputs = (call: Call): boolean =>
  referredTo(call.args.map((arg) => arg.sample)).size > 0;

/** What precedes the call: the needed resources, and a blank line after them. */
export const before = (lines: readonly string[]): string[] =>
  lines.length === 0 ? [] : [...lines, ""];

type Reference = Extract<Sample, { kind: "reference" }>;

/** The one argument of a call given an output: that output, whole (`instance.instanceId`). */
export function appliedArg(call: Call): Given & { sample: Reference } {
  const arg = onlyArgOf(call);
  if (arg?.sample.kind !== "reference") {
    throw new Error(`${call.name}'s example: a call given an output takes it as its one argument`);
  }
  return { ...arg, sample: arg.sample };
}

/** The result's one field, which the TypeScript function returns itself (`offers`). */
export const onlyResultOf = (call: Call): string | undefined =>
  call.results.length === 1 ? call.results[0] : undefined;

/**
 * The one argument, which the TypeScript function takes itself (`query`): only a function of
 * one parameter does (getInvoices' example gives `since` alone, in an object).
 */
export const onlyArgOf = (call: Call): Given | undefined =>
  call.args.length === 1 && call.parameters.length === 1 ? call.args[0] : undefined;

/** TypeScript and YAML's name for the result: the only field's, or the function's own. */
export const callVariable = (call: Call): string => {
  const name = onlyResultOf(call) ?? lowerFirst(call.name.replace(/^get(?=[A-Z])/, ""));
  // getCharges' `charges`: the exported field keeps its name, the call's variable takes another.
  return onlyResultOf(call) === undefined && name === call.shown ? `${name}Result` : name;
};

/** What the TypeScript snippet does differently, said above it. */
export function tsCallNote(call: Call): string | undefined {
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
    ...(refersToOutputs(call)
      ? ["it takes plain values, so an output's value is passed in its `apply`"]
      : []),
  ];
  return notes.length === 0 ? undefined : `${upperFirst(notes.join("; "))}.`;
}
