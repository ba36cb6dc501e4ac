import { z } from "zod";
import { invalidArgs } from "../shared/http";
import type { State } from "../shared/state";
import type { Invoice } from "./billing-state";
import {
  afterKey,
  booleanParam,
  jsonParam,
  type KeyValues,
  limitParam,
  pageOf,
  type SortKey,
} from "./pages";

/**
 * GET /api/v1/invoices/ as the OpenAPI describes it: the account's payments, transfers and
 * payouts (the emulator has those a test records, POST /_emulator/invoices), selected by their
 * creation time (`when`, required) and service, newest first unless told otherwise.
 */

const PER_PAGE = 60;

/** A missing or invalid `when` range: HTTP 200 with `success: false`, as documented. */
export const INVALID_RANGE = {
  success: false,
  error: "Invalid date range",
  count: 0,
  total: 0,
  results: [],
  next_token: null,
} as const;

const WhenSchema = z
  .strictObject({
    gte: z.number().optional(),
    gt: z.number().optional(),
    lte: z.number().optional(),
    lt: z.number().optional(),
  })
  .refine((when) => (when.gte ?? when.gt) !== undefined && (when.lte ?? when.lt) !== undefined);

const ServiceFilterSchema = z.union([
  z.strictObject({ eq: z.string() }),
  z.strictObject({ neq: z.string() }),
  z.strictObject({ in: z.array(z.string()) }),
  z.strictObject({ notin: z.array(z.string()) }),
]);

const COLUMNS = { paid_on: "paidOn", amount_cents: "amountCents", when: "when" } as const;
const OrderSchema = z.array(
  z.object({
    col: z.enum(["paid_on", "amount_cents", "when"]),
    dir: z.enum(["asc", "desc"]).default("desc"),
  }),
);

export interface InvoicesQuery {
  readonly when: z.infer<typeof WhenSchema>;
  readonly service: z.infer<typeof ServiceFilterSchema> | undefined;
  readonly order: readonly SortKey[];
  readonly limit: number;
  readonly after: KeyValues | undefined;
}

/** The query, or undefined when its `when` range is missing or invalid. */
export function parseInvoicesQuery(query: Record<string, unknown>): InvoicesQuery | undefined {
  let filters: unknown;
  try {
    filters = jsonParam(query, "select_filters");
  } catch {
    return undefined;
  }
  const parsed = z.looseObject({ when: WhenSchema }).safeParse(filters);
  if (!parsed.success) return undefined;
  const { when, service, ...others } = parsed.data;
  const unknown = Object.keys(others)[0];
  if (unknown !== undefined) {
    throw invalidArgs(`select_filters: ${unknown} is not a filter of invoices (when, service)`);
  }
  const serviceFilter = service === undefined ? undefined : ServiceFilterSchema.safeParse(service);
  if (serviceFilter?.success === false) {
    throw invalidArgs("select_filters.service: must be one of eq, neq, in, notin");
  }
  const orderBy = jsonParam(query, "order_by");
  const explicit = orderBy === undefined ? undefined : OrderSchema.safeParse(orderBy);
  if (explicit?.success === false) {
    throw invalidArgs(
      'order_by: must be [{"col": paid_on, amount_cents or when, "dir": asc or desc}]',
    );
  }
  const latestFirst = booleanParam(query, "latest_first", true);
  // order_by wins over latest_first; the id breaks ties.
  const order: SortKey[] = [
    ...(explicit?.data ?? [{ col: "when" as const, dir: latestFirst ? "desc" : "asc" }]).map(
      ({ col, dir }) => ({ col: COLUMNS[col], desc: dir === "desc" }),
    ),
    { col: "id", desc: latestFirst },
  ];
  return {
    when,
    service: serviceFilter?.data,
    order,
    limit: limitParam(query, PER_PAGE),
    after: afterKey(query, order),
  };
}

function inRange(seconds: number, when: InvoicesQuery["when"]): boolean {
  return (
    (when.gte === undefined || seconds >= when.gte) &&
    (when.gt === undefined || seconds > when.gt) &&
    (when.lte === undefined || seconds <= when.lte) &&
    (when.lt === undefined || seconds < when.lt)
  );
}

function serviceMatches(service: string, filter: InvoicesQuery["service"]): boolean {
  if (filter === undefined) return true;
  if ("eq" in filter) return service === filter.eq;
  if ("neq" in filter) return service !== filter.neq;
  if ("in" in filter) return filter.in.includes(service);
  return !filter.notin.includes(service);
}

export function invoiceRow(invoice: Invoice) {
  return {
    start: invoice.createdAtMs / 1000,
    end: invoice.paidAtMs === null ? null : invoice.paidAtMs / 1000,
    type: invoice.type,
    source: invoice.source,
    description: invoice.description,
    amount: invoice.amountDollars,
    metadata: { invoice_id: invoice.id, service: invoice.service },
    items: [],
  };
}

const keyOf = (invoice: Invoice): Record<string, number | null> => ({
  when: invoice.createdAtMs / 1000,
  paidOn: invoice.paidAtMs === null ? null : invoice.paidAtMs / 1000,
  amountCents: Math.round(invoice.amountDollars * 100),
  id: invoice.id,
});

export function invoicesPage(state: State, query: InvoicesQuery) {
  const matching = state.invoices.filter(
    (invoice) =>
      inRange(invoice.createdAtMs / 1000, query.when) &&
      serviceMatches(invoice.service, query.service),
  );
  const cols = query.order.map((o) => o.col);
  const { page, nextToken } = pageOf(
    matching,
    (invoice) => Object.fromEntries(cols.map((col) => [col, keyOf(invoice)[col] ?? null])),
    query.order,
    query.limit,
    query.after,
    { os_page: 0 },
  );
  return {
    success: true,
    count: page.length,
    total: matching.length,
    next_token: nextToken,
    results: page.map(invoiceRow),
  };
}
