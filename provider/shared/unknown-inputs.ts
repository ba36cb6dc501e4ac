import type { z } from "zod";
import { closestName } from "../client";

// Inputs a resource does not have. Zod's objects drop keys they do not declare, so a misspelled
// input (`maxLifeTime` for `maxLifetime`) would be silently ignored: a GPU left without its
// lifetime runs until someone notices. Every key a program gives is held against the schema,
// nested objects of known fields included (`readiness.htpp`), and one that is not there fails
// check naming the closest real field. Offer queries name their own fields (client/offer-query.ts)
// and records (`env`) are keyed by the program: neither is looked into here.

/** The resource a check is for: its type, and the inputs its class sets (never suggested). */
export interface ResourceInputs {
  /** The type's name, as the class and the schema name it (`Instance`). */
  readonly type: string;
  /** Inputs that the class or the plugin sets, not the program (`owner`, `stackToken`). */
  readonly hidden?: readonly string[];
}

/**
 * Keys the dynamic door's host adds to every resource's inputs: the provider's reference (see
 * provider/shim.ts). The plugin's engine adds none.
 */
const doorKeys: ReadonlySet<string> = new Set(["__provider"]);

/** An input (or a field of one) that the resource does not have, and what to say of it. */
export interface UnknownInput {
  readonly field: string;
  readonly message: string;
}

type Schema = z.core.$ZodType;

/** What wraps a schema without changing the keys its value may hold. */
const wrappers: ReadonlySet<string> = new Set([
  "optional",
  "nullable",
  "default",
  "prefault",
  "readonly",
  "catch",
]);

/** The schema a value is held against, its wrappers (optional, default, a transform) taken off. */
function unwrapped(schema: Schema): Schema {
  let here = schema;
  for (let depth = 0; depth < 10; depth++) {
    const def = here._zod.def as { type: string; innerType?: Schema; in?: Schema };
    if (wrappers.has(def.type) && def.innerType !== undefined) here = def.innerType;
    else if (def.type === "pipe" && def.in !== undefined) here = def.in;
    else break;
  }
  return here;
}

function unknownKey(key: string, where: string | undefined, what: string, known: string[]) {
  const meant = closestName(key, known);
  const field = where === undefined ? key : `${where}.${key}`;
  const kind = where === undefined ? "inputs" : "fields";
  const message =
    `not ${where === undefined ? `an input of ${what}` : `a field of ${where}`}; ` +
    (meant !== undefined
      ? `did you mean ${meant}?`
      : known.length === 0
        ? `it takes no ${kind}`
        : `the ${kind} are ${known.join(", ")}`);
  return { field, message };
}

/** The unknown keys in `value`, held against `schema`, at `where` (a field's path). */
function unknownIn(schema: Schema, value: unknown, where: string): UnknownInput[] {
  if (typeof value !== "object" || value === null) return [];
  const inner = unwrapped(schema);
  const def = inner._zod.def as {
    type: string;
    shape?: Record<string, Schema>;
    catchall?: Schema;
    element?: Schema;
  };
  if (def.type === "array" && def.element !== undefined && Array.isArray(value)) {
    const element = def.element;
    return value.flatMap((item, index) => unknownIn(element, item, `${where}.${index}`));
  }
  if (def.type !== "object" || def.shape === undefined || Array.isArray(value)) return [];
  const shape = def.shape;
  const found: UnknownInput[] = [];
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const declared = shape[key];
    if (declared !== undefined) found.push(...unknownIn(declared, field, `${where}.${key}`));
    // A strict object's zod reports its own keys; a loose one takes any.
    else if (def.catchall === undefined) {
      found.push(unknownKey(key, where, where, Object.keys(shape)));
    }
  }
  return found;
}

/**
 * Every key of `news` (and of its nested objects of known fields) that `schema` does not
 * declare, whatever its value (an unknown value's key is as wrong as a known one's).
 */
export function unknownInputs(
  schema: z.ZodObject,
  news: Record<string, unknown>,
  resource: ResourceInputs,
): UnknownInput[] {
  const shape = schema.shape as Record<string, Schema>;
  const hidden = new Set(resource.hidden ?? []);
  const inputs = Object.keys(shape).filter((name) => !hidden.has(name));
  return Object.entries(news).flatMap(([key, value]) => {
    if (doorKeys.has(key)) return [];
    const declared = shape[key];
    if (declared === undefined) return [unknownKey(key, undefined, resource.type, inputs)];
    return unknownIn(declared, value, key);
  });
}
