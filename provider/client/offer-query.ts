import type { InstanceOffer, VolumeOffer } from "./offer-schemas";
import {
  type Condition,
  type FieldSpec,
  fits,
  type InstanceOfferQuery,
  instanceMarket,
  kindWords,
  type Market,
  type NormalizedQuery,
  OfferQueryError,
  type Operator,
  operatorsOf,
  type Scalar,
  scaled,
  shown,
  volumeMarket,
  type VolumeOfferQuery,
} from "./offer-query-language";
import { parseQueryString } from "./offer-query-string";
import { mismatch } from "./offer-verification";

// Compiling a query (an object or the official client's string): checked field by field with
// readable messages, turned into the body the service takes, and paired with the check every
// answered offer must pass (offer-verification.ts).

// ---- Validation with readable messages -----------------------------------------------------

/** The field's condition as an operator object, or a message naming what is wrong. */
function conditionOf(name: string, spec: FieldSpec<string>, raw: unknown): Condition {
  const allowed = operatorsOf[spec.kind];
  if (typeof raw !== "object" || raw === null) {
    if (!fits(spec.kind, raw, spec.nullable)) {
      throw new OfferQueryError(
        `${name}: got ${shown(raw)}; expected ${kindWords[spec.kind]} or an operator object ` +
          `such as {${allowed[0]}: …} (${allowed.join(", ")})`,
      );
    }
    return { eq: raw as Scalar };
  }
  if (Array.isArray(raw)) {
    throw new OfferQueryError(`${name}: got a list; write {in: [...]} for any of several values`);
  }
  const condition: Condition = {};
  const entries = Object.entries(raw);
  if (entries.length === 0) throw new OfferQueryError(`${name}: an empty operator object`);
  for (const [op, operand] of entries) {
    if (!(allowed as readonly string[]).includes(op)) {
      throw new OfferQueryError(
        `${name}: operator ${shown(op)} is not allowed; ${name} takes ${allowed.join(", ")}`,
      );
    }
    if (op === "in" || op === "notin") {
      if (
        !Array.isArray(operand) ||
        !operand.every((item) => fits(spec.kind, item, spec.nullable))
      ) {
        throw new OfferQueryError(
          `${name}.${op}: got ${shown(operand)}; expected a list of ${kindWords[spec.kind]} values`,
        );
      }
    } else if (!fits(spec.kind, operand, spec.nullable && (op === "eq" || op === "neq"))) {
      throw new OfferQueryError(
        `${name}.${op}: got ${shown(operand)}; expected ${kindWords[spec.kind]}`,
      );
    }
    condition[op as Operator] = operand as Scalar | Scalar[];
  }
  return condition;
}

function normalize(market: Market<unknown>, query: unknown): NormalizedQuery {
  if (typeof query !== "object" || query === null || Array.isArray(query)) {
    throw new OfferQueryError(
      `the ${market.what} query must be an object such as {gpuName: "RTX 4090"} or a string ` +
        `such as "gpu_name=RTX_4090 num_gpus>=1"`,
    );
  }
  const filters: Array<[string, Condition]> = [];
  let order: Array<[string, "asc" | "desc"]> = [];
  let limit: number | undefined;
  let type: NormalizedQuery["type"] = "on-demand";
  const known = Object.keys(market.fields);
  for (const [name, raw] of Object.entries(query as Record<string, unknown>)) {
    if (raw === undefined) continue;
    const spec = market.fields[name];
    if (spec) {
      filters.push([name, conditionOf(name, spec, raw)]);
    } else if (name === "order") {
      if (
        !Array.isArray(raw) ||
        !raw.every(
          (item) =>
            Array.isArray(item) &&
            item.length === 2 &&
            known.includes(String(item[0])) &&
            (item[1] === "asc" || item[1] === "desc"),
        )
      ) {
        throw new OfferQueryError(
          `order: got ${shown(raw)}; expected a list of [field, "asc" | "desc"] pairs over ` +
            `the query's fields (e.g. [["dollarsPerHour", "asc"]])`,
        );
      }
      order = raw as Array<[string, "asc" | "desc"]>;
    } else if (name === "limit") {
      if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 1) {
        throw new OfferQueryError(`limit: got ${shown(raw)}; expected a positive whole number`);
      }
      limit = raw;
    } else if (name === "type" && market === (instanceMarket as Market<unknown>)) {
      if (raw !== "on-demand" && raw !== "interruptible") {
        throw new OfferQueryError(
          `type: got ${shown(raw)}; expected "on-demand" or "interruptible"`,
        );
      }
      type = raw;
    } else {
      const others = [
        "order",
        "limit",
        ...(market === (instanceMarket as Market<unknown>) ? ["type"] : []),
      ];
      const meant = closestName(name, [...known, ...others]);
      throw new OfferQueryError(
        `${name}: not a field of ${market.what} queries; ` +
          (meant === undefined ? "" : `did you mean ${meant}? `) +
          `the fields are ${[...known, ...others].join(", ")}`,
      );
    }
  }
  // Belt and braces: what passed the checks above must be what the declared type allows.
  const typed = market.schema.safeParse(query);
  if (!typed.success) throw new OfferQueryError(`the ${market.what} query: ${typed.error.message}`);
  if (order.length === 0) order = [[market.defaultOrder[0], market.defaultOrder[1]]];
  return { filters, order, limit, type };
}
function bodyOf(market: Market<unknown>, query: NormalizedQuery): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const named = new Set(query.filters.map(([name]) => name));
  const filters = [
    ...Object.entries(market.defaults).filter(([name]) => !named.has(name)),
    ...query.filters,
  ];
  for (const [name, condition] of filters) {
    const spec = market.fields[name];
    if (spec) body[spec.api] = scaled(condition, spec.scale ?? 1);
  }
  body["order"] = query.order.map(([name, direction]) => [
    market.fields[name]?.api ?? name,
    direction,
  ]);
  if (query.limit !== undefined) body["limit"] = query.limit;
  if (market === (instanceMarket as Market<unknown>)) {
    body["type"] = query.type === "interruptible" ? "bid" : "on-demand";
  }
  return body;
}

// ---- The compiled query --------------------------------------------------------------------

/** A checked query: the body to send and the check each answered offer must pass. */
export interface CompiledQuery<O> {
  readonly normalized: NormalizedQuery;
  readonly body: Record<string, unknown>;
  /** Why the offer does not match, or undefined when it does. */
  mismatch(offer: O): string | undefined;
}

function compile<O>(market: Market<O>, query: unknown): CompiledQuery<O> {
  const typed =
    typeof query === "string"
      ? parseQueryString(market as Market<unknown>, query)
      : camelCaseQuery(query);
  const normalized = normalize(market as Market<unknown>, typed);
  return {
    normalized,
    body: bodyOf(market as Market<unknown>, normalized),
    mismatch: (offer) => mismatch(market, normalized, offer),
  };
}

/** Checks an instance offer query (object or string); throws OfferQueryError when malformed. */
export function compileInstanceOfferQuery(
  query: InstanceOfferQuery | string,
): CompiledQuery<InstanceOffer> {
  return compile(instanceMarket, query);
}

export function compileVolumeOfferQuery(
  query: VolumeOfferQuery | string,
): CompiledQuery<VolumeOffer> {
  return compile(volumeMarket, query);
}

/**
 * The query with one more condition on a field, both to hold (used to pin a search to a
 * volume's machine).
 */
export function withCondition(
  query: InstanceOfferQuery | string,
  field: "machineId" | "clusterId",
  value: number,
): InstanceOfferQuery {
  const typed = typedInstanceQuery(query);
  const existing = typed[field];
  if (existing === undefined) return { ...typed, [field]: value };
  // The query's own equality becomes a one-value list, so that both must hold.
  const own = typeof existing === "object" && existing !== null ? existing : { eq: existing };
  const { eq, ...rest } = own;
  const list = eq === undefined ? rest.in : (rest.in ?? [eq]).filter((item) => item === eq);
  return { ...typed, [field]: { ...rest, ...(list ? { in: list } : {}), eq: value } };
}

/** The typed query a string means (for showing and comparing), or the object itself. */
export function typedInstanceQuery(query: InstanceOfferQuery | string): InstanceOfferQuery {
  return typeof query === "string"
    ? parseQueryString(instanceMarket as Market<unknown>, query)
    : camelCaseQuery(query);
}

/**
 * The query object with its field names in camelCase, as the query language names them: a
 * Python program writes `gpu_ram_gb` (its SDK passes a dict's keys as written), which means
 * `gpuRamGb`; `order`'s field names likewise. Operators and values are kept as they are, but for
 * `in_`, Python's name of `in` (a keyword: the SDK's QueryNumberArgsDict spells it so, and a
 * dict reaches the plugin as written).
 */
export function camelCaseQuery<Q>(query: Q): Q {
  if (typeof query !== "object" || query === null || Array.isArray(query)) return query;
  const renamed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    const field = camelCase(name);
    if (field in renamed) {
      throw new OfferQueryError(`${name}: the same field as ${field}; give it once`);
    }
    renamed[field] =
      field === "order" && Array.isArray(value)
        ? value.map((item: unknown): unknown => {
            if (!Array.isArray(item)) return item;
            const [orderField, ...rest] = item as unknown[];
            return typeof orderField === "string" ? [camelCase(orderField), ...rest] : item;
          })
        : pythonOperators(name, value);
  }
  return renamed as Q;
}

/** A condition object with Python's `in_` as `in`; anything else as it is. */
function pythonOperators(name: string, condition: unknown): unknown {
  if (typeof condition !== "object" || condition === null || Array.isArray(condition)) {
    return condition;
  }
  if (!("in_" in condition)) return condition;
  if ("in" in condition)
    throw new OfferQueryError(`${name}: in_ is the same operator as in; give it once`);
  const { in_: list, ...rest } = condition as Record<string, unknown>;
  return { ...rest, in: list };
}

function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/**
 * The known name closest to a misspelled one, when it is close enough to be meant (a query's
 * field, a resource's input).
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  // Python's spelling of a name (`gpu_ram_gb`) is compared as the schema's.
  const wanted = camelCase(name).toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    // A name the user wrote the start of (gpuRam for gpuRamGb) wins a tie.
    const lower = candidate.toLowerCase();
    const distance = editDistance(wanted, lower) - (lower.startsWith(wanted) ? 0.5 : 0);
    if (best === undefined || distance < best.distance) best = { name: candidate, distance };
  }
  return best !== undefined && best.distance <= Math.max(1, Math.floor(name.length / 3))
    ? best.name
    : undefined;
}

/** Edits from one name to the other: a letter added, dropped, changed, or two swapped. */
function editDistance(a: string, b: string): number {
  // Rows i - 2, i - 1 and i of the table (optimal string alignment).
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] ?? 0) + 1);
      }
      current[j] = best;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
