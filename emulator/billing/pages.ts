import { z } from "zod";
import { ApiError, invalidArgs } from "../shared/http";

/**
 * What the billing lists share: query values JSON-encoded as the official client sends them,
 * and keyset pages. A page's `next_token` is base64 of `{"values": {<sort key>: <the last row's
 * value>, …}}` (the OpenAPI's examples decode to `{"values": {"id": 12345678}}`, the invoices'
 * with `"os_page": 0` beside), and `after_token` answers the rows after that key.
 */

export interface SortKey {
  readonly col: string;
  readonly desc: boolean;
}
export type KeyValues = Readonly<Record<string, number | null>>;

/** The parameter's JSON value; undefined when absent. */
export function jsonParam(query: Record<string, unknown>, name: string): unknown {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== "string") throw invalidArgs(`${name}: must be given once`);
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw invalidArgs(`${name}: is not valid JSON`);
  }
}

export function booleanParam(query: Record<string, unknown>, name: string, fallback: boolean) {
  const value = jsonParam(query, name);
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw invalidArgs(`${name}: must be true or false`);
  return value;
}

/** A page size: a whole number from 1 (the description's minimum), at most `max`. */
export function limitParam(query: Record<string, unknown>, fallback: number, max = Infinity) {
  const value = jsonParam(query, "limit");
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw invalidArgs("limit: must be a whole number, at least 1");
  }
  return Math.min(value, max);
}

const TokenSchema = z.object({
  values: z.record(z.string(), z.number().nullable()),
  os_page: z.int().optional(),
});

const invalidToken = () => new ApiError(400, "invalid_token", "Invalid pagination token");

/** The key an `after_token` names, in the ordering's columns; undefined when none was given. */
export function afterKey(query: Record<string, unknown>, order: readonly SortKey[]) {
  const raw = query["after_token"];
  if (raw === undefined || raw === "") return undefined;
  if (typeof raw !== "string") throw invalidToken();
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(raw, "base64").toString("utf8"));
  } catch {
    throw invalidToken();
  }
  const token = TokenSchema.safeParse(json);
  const keys = token.success ? Object.keys(token.data.values) : [];
  // A token is a place in one ordering: it must name exactly that ordering's columns.
  if (!token.success || keys.length !== order.length || !order.every((o) => keys.includes(o.col))) {
    throw invalidToken();
  }
  return token.data.values;
}

/** The ordering's comparison; nulls last whichever the direction. */
export function compareKeys(a: KeyValues, b: KeyValues, order: readonly SortKey[]): number {
  for (const { col, desc } of order) {
    const x = a[col] ?? null;
    const y = b[col] ?? null;
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    return desc ? y - x : x - y;
  }
  return 0;
}

/** One page of `rows` in the ordering, after `after`, and the token of the next. */
export function pageOf<T>(
  rows: readonly T[],
  keyOf: (row: T) => KeyValues,
  order: readonly SortKey[],
  limit: number,
  after: KeyValues | undefined,
  tokenExtra: object = {},
): { page: T[]; nextToken: string | null } {
  const sorted = [...rows].sort((a, b) => compareKeys(keyOf(a), keyOf(b), order));
  const rest =
    after === undefined
      ? sorted
      : sorted.filter((row) => compareKeys(keyOf(row), after, order) > 0);
  const page = rest.slice(0, limit);
  const last = page[page.length - 1];
  if (rest.length <= limit || last === undefined) return { page, nextToken: null };
  const token = { values: keyOf(last), ...tokenExtra };
  return { page, nextToken: Buffer.from(JSON.stringify(token)).toString("base64") };
}
