import {
  type Condition,
  type InstanceOfferQuery,
  instanceMarket,
  type Operator,
  operators,
  type Scalar,
  scaled,
} from "./offer-query-language";
import { compileInstanceOfferQuery } from "./offer-query";

// ---- A query's own filters, stored by the service (template extra_filters) -------------------

/** API-named filters: `{cuda_max_good: {gte: 12.6}}`, GB fields in the API's MB. */
export type OfferFilters = Record<string, Partial<Record<Operator, Scalar | Scalar[]>>>;

/**
 * The instance offer query's own conditions in the API's names and units, as the service stores
 * filters (a template's `extra_filters`): none of the search's defaults, no order, limit or type.
 * Throws OfferQueryError when the query is malformed.
 */
export function instanceOfferFilters(query: InstanceOfferQuery | string): OfferFilters {
  const { normalized } = compileInstanceOfferQuery(query);
  const filters: OfferFilters = {};
  for (const [name, condition] of normalized.filters) {
    const spec = instanceMarket.fields[name];
    if (spec) filters[spec.api] = scaled(condition, spec.scale ?? 1);
  }
  return filters;
}

/**
 * The reverse of {@link instanceOfferFilters}: stored API-named filters as a typed query (operator
 * objects, the query's units). A name or operator the field table does not know is left out and
 * listed in `unknown`.
 */
export function instanceOfferQueryOfFilters(filters: Readonly<Record<string, unknown>>): {
  query: InstanceOfferQuery;
  unknown: string[];
} {
  const query: Record<string, Condition> = {};
  const unknown: string[] = [];
  for (const [api, raw] of Object.entries(filters)) {
    const entry = Object.entries(instanceMarket.fields).find(([, spec]) => spec.api === api);
    if (entry === undefined) {
      unknown.push(api);
      continue;
    }
    const [name, spec] = entry;
    const scale = spec.scale ?? 1;
    const by = (value: unknown): Scalar =>
      typeof value === "number" && scale !== 1 ? value / scale : (value as Scalar);
    const operands =
      typeof raw === "object" && raw !== null && !Array.isArray(raw)
        ? Object.entries(raw)
        : [["eq", raw] as const];
    const condition: Condition = {};
    for (const [op, operand] of operands) {
      if (!(operators as readonly string[]).includes(op)) {
        unknown.push(`${api}.${op}`);
        continue;
      }
      condition[op as Operator] = Array.isArray(operand) ? operand.map(by) : by(operand);
    }
    if (Object.keys(condition).length > 0) query[name] = condition;
  }
  return { query, unknown };
}
