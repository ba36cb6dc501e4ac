import { z } from "zod";
import { ApiError } from "../shared/http";
import type { InstanceRow } from "./instance-row";

export const PAGE_SIZE = 25;

/**
 * Columns stored on the contract record: the ones the service filters and sorts on. Computed
 * ones (dph_total, num_gpus, duration, …) are refused, as the description says.
 */
const STORED_COLUMNS = new Set([
  "id",
  "actual_status",
  "intended_status",
  "cur_state",
  "next_state",
  "label",
  "template_id",
  "template_hash_id",
  "image_uuid",
  "image_runtype",
  "onstart",
  "status_msg",
  "ssh_host",
  "ssh_port",
  "public_ipaddr",
  "machine_id",
  "bundle_id",
  "host_id",
  "start_date",
  "end_date",
  "disk_space",
  "gpu_name",
  "gpu_ram",
  "verification",
  "geolocation",
  "is_bid",
  "min_bid",
]);

const ScalarSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
type Scalar = z.infer<typeof ScalarSchema>;
const OPERATORS = ["eq", "neq", "gt", "gte", "lt", "lte", "in", "notin"] as const;
const ConditionSchema = z.union([
  z.object({ op: z.enum(["eq", "neq", "gt", "gte", "lt", "lte"]), value: ScalarSchema }),
  z.object({ op: z.enum(["in", "notin"]), value: z.array(ScalarSchema) }),
]);
type Condition = z.infer<typeof ConditionSchema> & { col: string };
interface Order {
  col: string;
  desc: boolean;
}

function invalidRequest(msg: string): ApiError {
  return new ApiError(400, "invalid_request", `Error in query parameters: ${msg}`);
}

/** Query values arrive as strings holding JSON (the official client JSON-encodes each one). */
function jsonParam(query: Record<string, unknown>, name: string): unknown {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== "string") throw invalidRequest(`${name} must be given once`);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw invalidRequest(`${name} is not valid JSON`);
  }
}

function storedColumn(col: string): string {
  if (!STORED_COLUMNS.has(col)) throw invalidRequest(`${col} is not a valid search key`);
  return col;
}

function parseFilters(value: unknown): Condition[] {
  if (value === undefined) return [];
  const filters = z.record(z.string(), z.record(z.string(), z.unknown())).safeParse(value);
  if (!filters.success) throw invalidRequest("select_filters must map columns to {op: value}");
  return Object.entries(filters.data).flatMap(([col, ops]) =>
    Object.entries(ops).map(([op, operand]) => {
      storedColumn(col);
      if (!(OPERATORS as readonly string[]).includes(op)) {
        throw invalidRequest(`${op} is not a valid operator (use ${OPERATORS.join(", ")})`);
      }
      const condition = ConditionSchema.safeParse({ op, value: operand });
      if (!condition.success) throw invalidRequest(`the value of ${col}.${op} is not valid`);
      return { ...condition.data, col };
    }),
  );
}

function parseOrder(value: unknown): Order[] {
  const directives = z
    .array(z.object({ col: z.string(), dir: z.unknown().optional() }))
    .optional()
    .safeParse(value);
  if (!directives.success) throw invalidRequest('order_by must be [{"col": …, "dir": …}]');
  // Anything but "desc" sorts ascending; id always breaks ties.
  const order = (directives.data ?? []).map((d) => ({
    col: storedColumn(d.col),
    desc: d.dir === "desc",
  }));
  return order.some((o) => o.col === "id") ? order : [...order, { col: "id", desc: false }];
}

function parseColumns(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const columns = z.array(z.string()).safeParse(value);
  if (!columns.success) throw invalidRequest("select_cols must be an array of column names");
  return columns.data.includes("*") ? undefined : columns.data;
}

function parseLimit(raw: unknown): number {
  if (raw === undefined) return PAGE_SIZE;
  const limit = typeof raw === "string" && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (Number.isNaN(limit)) throw invalidRequest("limit must be an integer");
  return limit <= 0 ? 5 : Math.min(limit, PAGE_SIZE);
}

const TokenSchema = z.object({ values: z.record(z.string(), ScalarSchema) });
type TokenValues = Record<string, Scalar>;

/** Like the service's: base64 of {"values": {<sort column>: <last row's value>, …}}. */
function encodeToken(row: Record<string, unknown>, order: Order[]): string {
  const values = Object.fromEntries(order.map(({ col }) => [col, row[col] ?? null]));
  return Buffer.from(JSON.stringify({ values })).toString("base64");
}

function decodeToken(raw: unknown, order: Order[]): TokenValues | undefined {
  if (raw === undefined || raw === "") return undefined;
  const refuse = () => new ApiError(400, "invalid_token", "The pagination token is not valid.");
  if (typeof raw !== "string") throw refuse();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw, "base64").toString("utf8"));
  } catch {
    throw refuse();
  }
  const token = TokenSchema.safeParse(json);
  // A token is a position in one ordering: it must name exactly that ordering's columns.
  const cols = order.map((o) => o.col);
  const keys = token.success ? Object.keys(token.data.values) : [];
  if (!token.success || keys.length !== cols.length || !cols.every((c) => keys.includes(c))) {
    throw refuse();
  }
  return token.data.values;
}

export interface ListQuery {
  filters: Condition[];
  order: Order[];
  columns: string[] | undefined;
  limit: number;
  after: TokenValues | undefined;
}

/**
 * GET /api/v1/instances/ parameters. `after_token` is the description's cursor; `next_token`
 * is still read when it is absent, so that a client of the emulator's previous version, which
 * sent that name, keeps paging instead of reading page one forever.
 */
export function parseListQuery(query: unknown): ListQuery {
  const params = z.record(z.string(), z.unknown()).catch({}).parse(query);
  const order = parseOrder(jsonParam(params, "order_by"));
  return {
    filters: parseFilters(jsonParam(params, "select_filters")),
    order,
    columns: parseColumns(jsonParam(params, "select_cols")),
    limit: parseLimit(params["limit"]),
    after: decodeToken(params["after_token"] ?? params["next_token"], order),
  };
}

/** Postgres order: nulls after every value when ascending. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  // Values of one column share a type; across types, order by type name to stay total.
  const [x, y] = typeof a === "string" && typeof b === "string" ? [a, b] : [typeof a, typeof b];
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareRows(a: Record<string, unknown>, b: Record<string, unknown>, order: Order[]) {
  for (const { col, desc } of order) {
    const c = compareValues(a[col], b[col]);
    if (c !== 0) return desc ? -c : c;
  }
  return 0;
}

function matches(row: Record<string, unknown>, { col, op, value }: Condition): boolean {
  const actual = row[col] ?? null;
  switch (op) {
    case "eq":
      return actual === value;
    case "neq":
      return actual !== value;
    case "in":
      return value.includes(actual as Scalar);
    case "notin":
      return !value.includes(actual as Scalar);
    default: {
      if (actual === null || value === null || typeof actual !== typeof value) return false;
      const c = compareValues(actual, value);
      return op === "gt" ? c > 0 : op === "gte" ? c >= 0 : op === "lt" ? c < 0 : c <= 0;
    }
  }
}

/** One page of the entries whose rows match the query, with the service's counts and cursor. */
export function pageOf<T>(entries: { item: T; row: InstanceRow }[], query: ListQuery) {
  const { filters, order, after } = query;
  const matching = entries
    .filter(({ row }) => filters.every((condition) => matches(row, condition)))
    .sort((a, b) => compareRows(a.row, b.row, order));
  const remaining = after
    ? matching.filter(({ row }) => compareRows(row, after, order) > 0)
    : matching;
  const page = remaining.slice(0, query.limit);
  const last = page.at(-1);
  const labelCounts: Record<string, number> = {};
  for (const { row } of matching) {
    const label = row.label ?? "";
    labelCounts[label] = (labelCounts[label] ?? 0) + 1;
  }
  return {
    items: page.map((entry) => entry.item),
    rows: page.map(({ row }) => selectColumns(row, query.columns)),
    totalInstances: matching.length,
    labelCounts,
    nextToken: remaining.length > page.length && last ? encodeToken(last.row, order) : null,
  };
}

function selectColumns(row: Record<string, unknown>, columns: string[] | undefined) {
  if (columns === undefined) return row;
  return Object.fromEntries(columns.map((col) => [col, row[col] ?? null]));
}
