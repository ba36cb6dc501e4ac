import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { type ResourceInputs, unknownInputs } from "./unknown-inputs";

/** The value a dynamic provider sees for an input that is not known yet (during preview). */
export const unknownValue = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** True when the value, or anything inside it, is not known yet. */
export function containsUnknown(value: unknown): boolean {
  if (value === unknownValue) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (typeof value === "object" && value !== null)
    return Object.values(value).some(containsUnknown);
  return false;
}

/** The longest reason a check failure carries: one readable line, whatever the input held. */
export const maxReasonChars = 400;

/**
 * A check failure naming the field: `field` and `message` kept apart as well, so that the
 * native plugin can name the field as the program's language spells it (disk_gb in Python).
 */
export interface FieldFailure extends pulumi.dynamic.CheckFailure {
  readonly field: string;
  readonly message: string;
}

/**
 * A check failure for `field`. The field is named in the reason, once (a message that starts
 * with the field's own name, "diskGb must be at least 8", loses it), and `property` is left
 * empty: given a property, the engine prints that input's value beside the reason, and the
 * value may be a secret (dynamic providers see secrets in plaintext) or hundreds of KB.
 */
export function fieldFailure(field: string, message: string): FieldFailure {
  const own = field.split(".").at(-1) ?? field;
  const said = message.replace(/\s*\n\s*/g, " ");
  // The field's path or its own name, said again at the message's start, is said once.
  const again = [field, own].find((name) => said.startsWith(`${name} `));
  const once = again === undefined ? said : said.slice(again.length + 1);
  return { property: "", reason: oneLine(`${field}: ${once}`), field, message: once };
}

/** A reason cut to one readable line of at most maxReasonChars. */
export function oneLine(reason: string): string {
  return reason.length > maxReasonChars ? `${reason.slice(0, maxReasonChars - 1)}…` : reason;
}

/** The field a check failure names, and its message, when fieldFailure made it. */
export function failureField(failure: pulumi.dynamic.CheckFailure): FieldFailure | undefined {
  const { field, message } = failure as Partial<FieldFailure>;
  return typeof field === "string" && typeof message === "string"
    ? { ...failure, field, message }
    : undefined;
}

const article: Record<string, string> = {
  number: "a number",
  int: "a whole number",
  string: "a string",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  record: "an object",
};

/**
 * What was received, without its content: a string may be a secret (or 200 KB), so only its
 * length is said. Numbers and booleans are shown; they are what a user needs to see.
 */
export function describeReceived(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") {
    const numeric = value.trim() !== "" && Number.isFinite(Number(value));
    return numeric
      ? "a string holding a number (convert it to a number)"
      : `a string of ${value.length} characters`;
  }
  if (typeof value === "number") return Number.isFinite(value) ? `${value}` : String(value);
  if (typeof value === "boolean") return `${value}`;
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/** The size of a value, for "at most N, got M" messages. */
function actualSize(value: unknown): string | undefined {
  if (typeof value === "string") return `${value.length} characters`;
  if (Array.isArray(value)) return `${value.length} items`;
  if (typeof value === "number") return `${value}`;
  return undefined;
}

/** Zod's own messages start like this; a schema's custom message says more and is kept. */
const isDefaultMessage = (message: string): boolean =>
  /^(Invalid|Too (big|small)|Unrecognized)/.test(message);

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let here = value;
  for (const key of path) {
    if (typeof here !== "object" || here === null) return undefined;
    here = (here as Record<PropertyKey, unknown>)[key];
  }
  return here;
}

/**
 * One issue as "what was wrong and what is allowed": the type received against the type
 * expected (a wrong type is never reported as missing), the limit with the actual size, the
 * schema's own words for patterns and choices.
 */
export function describeIssue(issue: z.core.$ZodIssue, received: unknown): string {
  const custom = isDefaultMessage(issue.message) ? undefined : issue.message;
  switch (issue.code) {
    case "invalid_type": {
      const expected = article[issue.expected] ?? issue.expected;
      const hint = custom ? ` (${custom})` : "";
      // The engine passes an unset secret input as null: both are "not given".
      return received === undefined || received === null
        ? `required: ${custom ?? expected}`
        : `expected ${expected}, received ${describeReceived(received)}${hint}`;
    }
    case "too_big":
    case "too_small": {
      const bound = issue.code === "too_big" ? issue.maximum : issue.minimum;
      const relation =
        issue.code === "too_big"
          ? issue.inclusive === false
            ? "less than"
            : "at most"
          : issue.inclusive === false
            ? "more than"
            : "at least";
      const rule =
        `must be ${relation} ${String(bound)}` +
        (issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "");
      // A schema-wide custom message may not state the bound: then the bound is added.
      const limit =
        custom === undefined
          ? rule
          : /\d|\bat (least|most)\b|empty|positive|negative/.test(custom)
            ? custom
            : `${custom}: ${rule}`;
      // "got 0 characters" beside "must not be empty" says nothing; a number or a length over
      // a maximum does.
      const size =
        issue.code === "too_big" || typeof received === "number" ? actualSize(received) : undefined;
      return size === undefined ? limit : `${limit}; got ${size}`;
    }
    case "invalid_key": {
      const inner = issue.issues[0]?.message ?? "not an allowed name";
      return `the name ${JSON.stringify(String(issue.path.at(-1) ?? "").slice(0, 40))} is not allowed: ${inner}`;
    }
    case "invalid_format":
    case "invalid_value":
      // A string was the right type: its size says enough ("convert it" to a number would not).
      return typeof received === "string"
        ? `${issue.message} (received a string of ${received.length} ` +
            `character${received.length === 1 ? "" : "s"})`
        : issue.message;
    case "invalid_union":
      return `${issue.message} (received ${describeReceived(received)})`;
    default:
      return issue.message;
  }
}

/** The fields of a resource's recorded outputs that its input schema declares: its inputs. */
export function inputFieldsOf<Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
  props: object,
): z.infer<z.ZodObject<Shape>> {
  const recorded = props as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(schema.shape)
      .filter((field) => field in recorded)
      .map((field) => [field, recorded[field]]),
  ) as z.infer<z.ZodObject<Shape>>;
}

/**
 * Checks inputs field by field against a resource's schema. A field not known yet at preview
 * is left for the real run; every other problem becomes a check failure naming the field and
 * the fix, so a bad program fails at preview and sends nothing to the service: every failing
 * field at once (a nested input's too), and every input the resource does not have (a typo
 * would otherwise be ignored).
 */
export function checkInputs<Shape extends z.ZodRawShape>(
  schema: z.ZodObject<Shape>,
  news: Record<string, unknown>,
  resource: ResourceInputs,
): { inputs: z.infer<z.ZodObject<Shape>>; failures: pulumi.dynamic.CheckFailure[] } {
  const inputs = new Map(Object.entries(news));
  const failures: pulumi.dynamic.CheckFailure[] = unknownInputs(schema, news, resource).map(
    ({ field, message }) => fieldFailure(field, message),
  );
  for (const [name, field] of Object.entries(schema.shape)) {
    if (containsUnknown(news[name])) continue;
    const parsed = z.safeParse(field, news[name]);
    if (parsed.success) {
      if (parsed.data === undefined) inputs.delete(name);
      else inputs.set(name, parsed.data);
      continue;
    }
    if (parsed.error.issues.length === 0) failures.push(fieldFailure(name, "invalid"));
    // One line per failing field: a field's first issue (a string too short and off its pattern
    // is one problem to fix), every field's.
    const named = new Set<string>();
    for (const issue of parsed.error.issues) {
      // A record's bad key is named in the message, not in the path.
      const path = issue.code === "invalid_key" ? issue.path.slice(0, -1) : issue.path;
      const where = [name, ...path.map(String)].join(".");
      if (named.has(where)) continue;
      named.add(where);
      failures.push(fieldFailure(where, describeIssue(issue, valueAt(news[name], issue.path))));
    }
  }
  // Unknown fields stay as the engine sent them; the schema holds for everything known.
  return { inputs: Object.fromEntries(inputs) as z.infer<z.ZodObject<Shape>>, failures };
}
