import { z } from "zod";
import { check, invalidArgs } from "./http";

/**
 * The service's search language, shared by every search route: `{field: {op: value}}` filters
 * (ops eq neq gt gte lt lte in notin), `order: [[field, "asc"|"desc"], …]` and `limit`. Each route
 * says which fields it knows, which filters apply when a query leaves a field out, and which
 * other top-level keys (such as `type`) it takes.
 */

/** A row as filters and orders see it: the answered fields plus those filtered on but not shown. */
export type Row = Readonly<Record<string, unknown>>;

const OPERATORS = ["eq", "neq", "gt", "gte", "lt", "lte", "in", "notin"] as const;
type Operator = (typeof OPERATORS)[number];

const ScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
type Scalar = z.infer<typeof ScalarSchema>;
const OperandSchemas: Record<Operator, z.ZodType> = {
  eq: ScalarSchema,
  neq: ScalarSchema,
  gt: z.union([z.number(), z.string()]),
  gte: z.union([z.number(), z.string()]),
  lt: z.union([z.number(), z.string()]),
  lte: z.union([z.number(), z.string()]),
  in: z.array(ScalarSchema),
  notin: z.array(ScalarSchema),
};

export type Condition = Partial<Record<Operator, Scalar | Scalar[]>>;
export type Direction = "asc" | "desc";

export interface SearchSpec<O extends z.ZodObject> {
  /** Fields that may be filtered and ordered on. */
  readonly fields: ReadonlySet<string>;
  /** Filters the service applies to a field the query does not name; `{}` names it and lifts them. */
  readonly defaults: Readonly<Record<string, Condition>>;
  readonly defaultLimit?: number;
  /** The top-level keys that are not filters (`order` and `limit` are always taken). */
  readonly options: O;
}

export interface Query<O> {
  readonly filters: ReadonlyArray<readonly [string, Condition]>;
  readonly order: ReadonlyArray<readonly [string, Direction]>;
  readonly limit: number | undefined;
  readonly options: O;
}

const BodySchema = z.record(z.string(), z.unknown(), {
  error: "Invalid query: must be a dict of conditions",
});
const OrderSchema = z.array(z.tuple([z.string(), z.enum(["asc", "desc"])]), {
  error: 'must be a list of [field, "asc" or "desc"] pairs',
});
const LimitSchema = z.int().positive();

function parseCondition(field: string, raw: unknown): Condition {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw invalidArgs(`${field}: must be an object of operators such as {"eq": value}`);
  }
  const condition: Condition = {};
  for (const [op, operand] of Object.entries(raw)) {
    if (!(OPERATORS as readonly string[]).includes(op)) {
      throw invalidArgs(`${field}: unknown operator "${op}" (use ${OPERATORS.join(", ")})`);
    }
    const operator = op as Operator;
    const parsed = OperandSchemas[operator].safeParse(operand);
    if (!parsed.success) {
      const wants = operator === "in" || operator === "notin" ? "a list" : "a single value";
      throw invalidArgs(`${field}: the operand of ${operator} must be ${wants}`);
    }
    condition[operator] = parsed.data as Scalar | Scalar[];
  }
  return condition;
}

export function parseQuery<O extends z.ZodObject>(
  body: unknown,
  spec: SearchSpec<O>,
): Query<z.output<O>> {
  const entries = check(BodySchema, body ?? {}, "invalid_args");
  const optionKeys = new Set(Object.keys(spec.options.shape));
  const optionInput: Record<string, unknown> = {};
  const named = new Map<string, Condition>();
  let order: Array<[string, Direction]> = [];
  let limit = spec.defaultLimit;
  for (const [key, value] of Object.entries(entries)) {
    if (key === "order") {
      order = check(z.object({ order: OrderSchema }), { order: value }, "invalid_args").order;
      order = order.map(([field, dir]) => {
        if (!spec.fields.has(field)) throw invalidArgs(`order: unknown field "${field}"`);
        return [field, dir];
      });
    } else if (key === "limit") {
      if (value !== null)
        limit = check(z.object({ limit: LimitSchema }), { limit: value }, "invalid_args").limit;
    } else if (optionKeys.has(key)) {
      optionInput[key] = value;
    } else if (spec.fields.has(key)) {
      named.set(key, parseCondition(key, value));
    } else {
      throw invalidArgs(`${key}: unknown field`);
    }
  }
  const options = check(spec.options, optionInput, "invalid_args");
  const defaults = Object.entries(spec.defaults).filter(([field]) => !named.has(field));
  return { filters: [...defaults, ...named], order, limit, options };
}

/** The CLI writes GPU names with underscores (RTX_4090) and numbers as text ("4"). */
function coerce(rowValue: unknown, operand: Scalar): unknown {
  if (typeof operand !== "string") return operand;
  if (typeof rowValue === "number" && operand.trim() !== "" && Number.isFinite(Number(operand))) {
    return Number(operand);
  }
  if (typeof rowValue === "boolean" && (operand === "true" || operand === "false")) {
    return operand === "true";
  }
  return operand;
}

/**
 * The official client turns a lone `None`/`null` into JSON null (`cluster_id!=None`), but sends
 * them as text inside `in`/`notin` lists: both mean null.
 */
const NULL_WORDS: ReadonlySet<unknown> = new Set(["None", "null"]);

function same(rowValue: unknown, operand: Scalar): boolean {
  if ((rowValue ?? null) === null) return operand === null || NULL_WORDS.has(operand);
  const value = coerce(rowValue, operand);
  if (typeof rowValue === "string" && typeof value === "string") {
    return rowValue.replaceAll("_", " ") === value.replaceAll("_", " ");
  }
  return (rowValue ?? null) === value;
}

/** -1, 0, 1, or undefined when the two cannot be ordered (null, or different kinds). */
function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a === "number" && typeof b === "number") return Math.sign(a - b);
  if (typeof a === "string" && typeof b === "string") return Math.sign(a.localeCompare(b));
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return undefined;
}

function holds(rowValue: unknown, op: Operator, operand: Scalar | Scalar[]): boolean {
  const list = Array.isArray(operand) ? operand : [operand];
  const single = list[0] ?? null;
  switch (op) {
    case "eq":
      return same(rowValue, single);
    case "neq":
      return !same(rowValue, single);
    case "in":
      return list.some((item) => same(rowValue, item));
    case "notin":
      return !list.some((item) => same(rowValue, item));
    default: {
      const order = compare(rowValue, coerce(rowValue, single));
      if (order === undefined) return false;
      if (op === "gt") return order > 0;
      if (op === "gte") return order >= 0;
      if (op === "lt") return order < 0;
      return order <= 0;
    }
  }
}

export function matches(row: Row, filters: Query<unknown>["filters"]): boolean {
  return filters.every(([field, condition]) =>
    Object.entries(condition).every(([op, operand]) => holds(row[field], op as Operator, operand)),
  );
}

/** Missing values sort last whichever the direction, as SQL's NULLS LAST. */
function byOrder(order: Query<unknown>["order"]) {
  return (a: Row, b: Row): number => {
    for (const [field, direction] of order) {
      const x = a[field] ?? null;
      const y = b[field] ?? null;
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
        continue;
      }
      const result = compare(x, y) ?? 0;
      if (result !== 0) return direction === "asc" ? result : -result;
    }
    return 0;
  };
}

/**
 * Filters, orders (stably: rows that tie keep their listed order) and limits. `view` gives the
 * row the filters see for each answered row.
 */
export function runQuery<T>(
  rows: readonly T[],
  query: Query<unknown>,
  view: (row: T) => Row,
  /** A field whose filter is skipped: the search-ignores-a-filter fault. */
  ignoredField?: string,
): T[] {
  const seen = rows.map((row) => ({ row, view: view(row) }));
  const filters = query.filters.filter(([field]) => field !== ignoredField);
  const kept = seen.filter((entry) => matches(entry.view, filters));
  const sort = byOrder(query.order);
  kept.sort((a, b) => sort(a.view, b.view));
  const answered = kept.map((entry) => entry.row);
  return query.limit === undefined ? answered : answered.slice(0, query.limit);
}
