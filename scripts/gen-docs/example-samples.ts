/**
 * An example's values (provider/shared/reference-examples.ts) as samples of the schema's types, so that
 * each language writes them as it writes a value of that type: a nested object as its `Args`
 * class, a number as Go's `pulumi.Int` or `pulumi.Float64`. Everything an example names is
 * checked here, so that a page never shows an input, field or output the schema does not have.
 */
import type { ExampleValue } from "../../provider/shared/reference-examples";
import { isReference, type Place, referenceSample, type Scope } from "./example-references";
import { nameOf } from "./names";
import type { Sample } from "./samples";
import type { PackageSpec, Property, TypeSpec } from "./schema";
import type { Given } from "./snippets";
import { rowsOf } from "./tables";
import { localType } from "./type-words";

const isObject = (value: ExampleValue): value is { [key: string]: ExampleValue } =>
  typeof value === "object" && !Array.isArray(value);

/** Whether a scalar value is one of a scalar type (a whole number is a number too). */
function fits(type: TypeSpec, value: ExampleValue): boolean {
  switch (type.type) {
    case "string":
    case "boolean":
      return typeof value === type.type;
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    default:
      return false;
  }
}

/** An example's value as a sample of `type`: the schema's type decides how it is written. */
export function exampleSample(
  spec: PackageSpec,
  type: TypeSpec,
  value: ExampleValue,
  place: Place,
): Sample {
  if (isReference(value)) return referenceSample(spec, type, value, place);
  const { where, scope } = place;
  const at = (suffix: string): Place => ({ where: `${where}${suffix}`, scope });
  const mismatch = () => new Error(`${where}: ${JSON.stringify(value)} is not of its type`);
  const local = localType(type);
  if (local !== undefined) {
    if (!isObject(value)) throw mismatch();
    const object = spec.types[local];
    const missing = (object?.required ?? []).filter((field) => !(field in value));
    if (missing.length > 0) throw new Error(`${where}: needs ${missing.join(", ")}`);
    const fields = Object.entries(value).map(([field, inner]): [string, Sample] => {
      const property = object?.properties[field];
      if (property === undefined) throw new Error(`${where}: ${nameOf(local)} has no ${field}`);
      return [field, exampleSample(spec, property, inner, at(`.${field}`))];
    });
    return { type, kind: "object", token: local, fields, required: object?.required ?? [] };
  }
  if (type.oneOf !== undefined) {
    // The alternative the value is of (a number for `integer or string`); the type stays the
    // union, which Go declares as interface{}.
    // An object is of the union's named object type (a query's OfferQuery, a field's
    // QueryNumber), written as that type's class in every language.
    const option =
      type.oneOf.find((candidate) =>
        isObject(value) ? localType(candidate) !== undefined : fits(candidate, value),
      ) ?? {};
    return { ...exampleSample(spec, option, value, place), type };
  }
  if (type.type !== undefined && type.type !== "array" && type.type !== "object") {
    if (!fits(type, value)) throw mismatch();
  }
  if (typeof value === "string") return { type, kind: "string", text: value };
  if (typeof value === "boolean") return { type, kind: "boolean", value };
  if (typeof value === "number") {
    // A whole number of a type the schema leaves open (Any) is an integer, for Go's pulumi.Int.
    const whole = type.type === "integer" || (type.type === undefined && Number.isInteger(value));
    return { type, kind: whole ? "integer" : "number", value };
  }
  if (Array.isArray(value)) {
    if (type.type !== undefined && type.type !== "array") throw mismatch();
    const items = value.map((item, index) =>
      exampleSample(spec, type.items ?? {}, item, at(`[${String(index)}]`)),
    );
    return { type: type.type === undefined ? { type: "array" } : type, kind: "list", items };
  }
  if (type.type !== undefined && type.type !== "object") throw mismatch();
  const entries = Object.entries(value).map(([key, item]): [string, Sample] => [
    key,
    exampleSample(spec, type.additionalProperties ?? {}, item, at(`.${key}`)),
  ]);
  return { type: type.type === undefined ? { type: "object" } : type, kind: "map", entries };
}

/** The inputs (or arguments) an example gives, in its order, each with its property's row. */
export function exampleGiven(
  spec: PackageSpec,
  owner: string,
  properties: Record<string, Property>,
  required: readonly string[],
  inputs: Record<string, ExampleValue>,
  scope: Scope,
): Given[] {
  const rows = rowsOf(properties, required);
  const missing = rows.filter((row) => row.required && !(row.name in inputs));
  if (missing.length > 0) {
    throw new Error(`${owner}'s example leaves out ${missing.map((row) => row.name).join(", ")}`);
  }
  return Object.entries(inputs).map(([name, value]) => {
    const row = rows.find((candidate) => candidate.name === name);
    if (row === undefined)
      throw new Error(`${owner}'s example gives ${name}, not one of its inputs`);
    const sample = exampleSample(spec, row.property, value, { where: `${owner}.${name}`, scope });
    return { name, sample, required: row.required };
  });
}
