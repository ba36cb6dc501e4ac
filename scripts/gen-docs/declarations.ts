/**
 * The resources a snippet declares, in each language: an example's needed resources and the one
 * its page is about (or, on a function's page, the resources its call refers to).
 */
import type { Example } from "../../provider/shared/reference-examples";
import { referredTo } from "./example-references";
import { exampleGiven } from "./example-samples";
import { goCall, goInputValue, goReturnOnError } from "./go-code";
import { code } from "./markdown";
import { goName, type Languages, pythonName } from "./names";
import { pythonValue, tsValue, yamlValue } from "./samples";
import type { PackageSpec } from "./schema";
import type { Given } from "./snippets";

/** A resource a snippet declares. */
export interface Declared {
  /** `Endpoint`. */
  type: string;
  /** `gpucloud:index:Endpoint`. */
  token: string;
  /** Its variable's name in TypeScript, Go and YAML (Python's is its snake_case), and its name. */
  variable: string;
  given: Given[];
  /** Whether a later line uses the variable: Go declares an unused one as `_`. */
  used: boolean;
}

/** An example's needed resources, each referred to by what comes after it; and their scope. */
export function neededResources(
  spec: PackageSpec,
  example: Example | undefined,
): { needs: Declared[]; scope: ReadonlyMap<string, string> } {
  const scope = new Map<string, string>();
  const needs = (example?.needs ?? []).map((need): Declared => {
    const token = `${spec.name}:index:${need.type}`;
    const resource = spec.resources[token];
    if (resource === undefined) throw new Error(`an example needs ${need.type}: no such resource`);
    const owner = `${need.type} ${need.name}`;
    const { inputProperties, requiredInputs } = resource;
    const given = exampleGiven(spec, owner, inputProperties, requiredInputs, need.inputs, scope);
    if (scope.has(need.name)) throw new Error(`an example declares ${need.name} twice`);
    scope.set(need.name, need.type);
    return { type: need.type, token, variable: need.name, given, used: true };
  });
  return { needs, scope };
}

/**
 * Fails when a needed resource is referred to by nothing declared or called after it: declared
 * for nothing, it is not part of a minimal example (and Go refuses an unused variable).
 */
export function expectReferred(needs: readonly Declared[], after: readonly Given[]): void {
  needs.forEach((need, index) => {
    const later = [...needs.slice(index + 1).flatMap((other) => other.given), ...after];
    if (!referredTo(later.map((input) => input.sample)).has(need.variable)) {
      throw new Error(`an example declares ${need.variable} and never refers to it`);
    }
  });
}

/** What a page says of the resources its example declares first: "" when there are none. */
export function needsSentence(needs: readonly Declared[]): string {
  const named = needs.map((need) => `${need.type} ${code(need.variable)}`);
  return named.length === 0 ? "" : ` It declares first what it refers to: ${named.join(" and ")}.`;
}

export function tsDeclarations(languages: Languages, declared: readonly Declared[]): string[] {
  return declared.flatMap(({ type, variable, given }, index) => {
    const opening = `const ${variable} = new ${languages.alias}.${type}("${variable}", {`;
    const lines =
      given.length === 0
        ? [`${opening}});`]
        : [opening, ...given.map((input) => `  ${input.name}: ${tsValue(input.sample)},`), "});"];
    return index === 0 ? lines : ["", ...lines];
  });
}

export function pythonDeclarations(languages: Languages, declared: readonly Declared[]): string[] {
  const { alias } = languages;
  const argument = (input: Given) =>
    `    ${pythonName(input.name)}=${pythonValue(input.sample, alias)},`;
  return declared.flatMap(({ type, variable, given }, index) => {
    const assigned = `${pythonName(variable)} = ${alias}.${type}(`;
    const lines =
      given.length === 0
        ? [`${assigned}"${variable}")`]
        : [assigned, `    "${variable}",`, ...given.map(argument), ")"];
    return index === 0 ? lines : ["", ...lines];
  });
}

/** Go: each declaration and its error check; `err` is declared by the first (`:=`). */
export function goDeclarations(languages: Languages, declared: readonly Declared[]): string[] {
  const { alias } = languages;
  return declared.flatMap(({ type, variable, given, used }, index) => {
    const fields = given.map((input): [string, string] => [
      goName(input.name, type),
      goInputValue(input.sample, alias),
    ]);
    // `_, err :=` declares nothing new once err exists: it is then assigned.
    const assignment = used ? `${variable}, err :=` : index === 0 ? "_, err :=" : "_, err =";
    const opening = `${assignment} ${alias}.New${type}(ctx, "${variable}", &${alias}.${type}Args{`;
    return [...(index === 0 ? [] : [""]), ...goCall(opening, fields), ...goReturnOnError];
  });
}

/** YAML: the `resources:` section. */
export function yamlResources(declared: readonly Declared[], guarded = false): string[] {
  const main = declared.at(-1);
  const sweeper = guarded && main !== undefined ? sweeperOf(main.token) : [];
  return [
    "resources:",
    ...sweeper,
    ...declared.flatMap(({ token, variable, given }) => [
      `  ${variable}:`,
      `    type: ${token}`,
      ...(given.length === 0
        ? []
        : [
            "    properties:",
            ...given.map((input) => `      ${input.name}: ${yamlValue(input.sample)}`),
          ]),
      ...(sweeper.length > 0 && token === main?.token
        ? ["    options:", "      dependsOn:", "        - ${sweeper}"]
        : []),
    ]),
  ];
}

/**
 * The stack's sweeper, which a YAML program declares itself (the SDKs of the other languages
 * declare it): `pulumi destroy` then removes what an `up` killed while the resource booted left.
 */
function sweeperOf(token: string): string[] {
  const packageName = token.split(":")[0] ?? "";
  return [
    "  # The stack's guard against what a killed `up` leaves (docs/guides/never-lost.md).",
    "  sweeper:",
    `    type: ${packageName}:index:InstanceSweeper`,
  ];
}
