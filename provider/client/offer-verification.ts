import {
  type Market,
  type NormalizedQuery,
  type Operator,
  type Scalar,
  scaled,
  shown,
} from "./offer-query-language";

// ---- Verification --------------------------------------------------------------------------

function sameValue(actual: unknown, expected: Scalar): boolean {
  if (typeof actual === "string" && typeof expected === "string") {
    return actual.replaceAll("_", " ") === expected.replaceAll("_", " ");
  }
  return actual === expected;
}

/** Whether an offer's value satisfies one operator; unknown values satisfy no comparison. */
export function satisfies(actual: unknown, op: Operator, operand: Scalar | Scalar[]): boolean {
  const list = Array.isArray(operand) ? operand : [operand];
  const single = list[0];
  switch (op) {
    case "eq":
      return single !== undefined && sameValue(actual, single);
    case "neq":
      return single !== undefined && !sameValue(actual, single);
    case "in":
      return list.some((item) => sameValue(actual, item));
    case "notin":
      return !list.some((item) => sameValue(actual, item));
    default: {
      if (typeof actual !== "number" || typeof single !== "number") return false;
      if (op === "gt") return actual > single;
      if (op === "gte") return actual >= single;
      if (op === "lt") return actual < single;
      return actual <= single;
    }
  }
}

/**
 * What the offer fails of the query, e.g. `reliability 0.91 is not gte 0.98`; undefined when it
 * matches. Offers are checked in the offer's units (MB for RAM), the query's GB scaled to them.
 */
export function mismatch<O>(
  market: Market<O>,
  query: NormalizedQuery,
  offer: O,
): string | undefined {
  const named = new Set(query.filters.map(([name]) => name));
  const filters = [
    ...Object.entries(market.defaults).filter(([name]) => !named.has(name)),
    ...query.filters,
  ];
  for (const [name, condition] of filters) {
    const spec = market.fields[name];
    if (!spec) continue;
    const actual = market.readOffer(offer, spec.offer);
    for (const [op, operand] of Object.entries(scaled(condition, spec.scale ?? 1))) {
      if (!satisfies(actual, op as Operator, operand)) {
        return `${name} ${shown(actual)}${spec.scale ? ` (${spec.offer})` : ""} is not ${op} ${shown(operand)}`;
      }
    }
  }
  return undefined;
}
