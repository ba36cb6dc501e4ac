import { z } from "zod";
import type { Transport } from "./transport";
import type { ClientArea } from "./client-area";

// The billing area: what the account was charged per contract (GET /api/v0/charges/) and its
// invoices (GET /api/v1/invoices/), as the OpenAPI describes them. The query is sent as the
// official client sends it (`vastai show invoices-v1`): each parameter JSON-encoded unless it
// is text, `select_filters` a JSON object. Both lists are paged: each page's `next_token` goes
// back as `after_token` until it is null.

/** The contract types the charges' `type` filter takes (a serverless worker is its own). */
export const chargeTypeSchema = z.enum(["instance", "volume", "serverless"]);
export type ChargeType = z.infer<typeof chargeTypeSchema>;

/** Unix seconds, UTC. */
const seconds = z.number().int().nonnegative();

export const chargesQuerySchema = z.object({
  selectFilters: z.object({
    /** Days are counted whole: a day is in the range when its midnight (UTC) is. */
    day: z.object({ gte: seconds, lte: seconds }),
    type: z.object({ in: z.array(chargeTypeSchema).min(1) }).optional(),
  }),
  /** `tree` wraps serverless contracts in their endpoint and worker group; `table` by default. */
  format: z.enum(["table", "tree"]).optional(),
  latestFirst: z.boolean().optional(),
  /** Contracts per page: the service's default is 100, its maximum 500. */
  limit: z.number().int().min(1).max(500).optional(),
});
export type ChargesQuery = z.input<typeof chargesQuerySchema>;

/**
 * A contract's charges, or (in `items`) one charge type's (`gpu`, `disk`, `bwd`, `bwu`), or in
 * the tree format a serverless wrapper with its contracts. Amounts in dollars, rounded to 3
 * decimals; `start` and `end` in Unix seconds (the first and last day charged).
 */
export const chargeRowSchema = z.object({
  start: z.number(),
  end: z.number(),
  type: z.string(),
  /** `instance-<id>`, `volume-<id>`, `endpoint-<id>`, `workergroup-<id>`; null for an item. */
  source: z.string().nullable().default(null),
  description: z.string().default(""),
  amount: z.number(),
  /** `label`, `template_id`, `endpoint_id`, `workergroup_id`: those the contract has. */
  metadata: z.record(z.string(), z.unknown()).default({}),
  // Annotated: a getter's own inference cannot see through the recursion everywhere.
  get items(): z.ZodDefault<z.ZodArray<typeof chargeRowSchema>> {
    return z.array(chargeRowSchema).default([]);
  },
});
export type ChargeRow = z.output<typeof chargeRowSchema>;

const pageFields = {
  count: z.number().int().optional(),
  total: z.number().int().optional(),
  next_token: z.string().nullable().optional(),
};
const chargesPageSchema = z.object({ ...pageFields, results: z.array(chargeRowSchema) });

export const invoicesQuerySchema = z.object({
  selectFilters: z.object({
    /** When the invoice was made, Unix seconds; a lower and an upper bound are required. */
    when: z
      .object({
        gte: seconds.optional(),
        gt: seconds.optional(),
        lte: seconds.optional(),
        lt: seconds.optional(),
      })
      .refine(
        (when) => (when.gte ?? when.gt) !== undefined && (when.lte ?? when.lt) !== undefined,
        {
          error: "needs a lower bound (gte or gt) and an upper bound (lte or lt)",
        },
      ),
    service: z
      .union([
        z.object({ eq: z.string() }),
        z.object({ neq: z.string() }),
        z.object({ in: z.array(z.string()) }),
        z.object({ notin: z.array(z.string()) }),
      ])
      .optional(),
  }),
  orderBy: z
    .array(
      z.object({ col: z.enum(["paid_on", "amount_cents", "when"]), dir: z.enum(["asc", "desc"]) }),
    )
    .optional(),
  latestFirst: z.boolean().optional(),
  /** Invoices per page: the service's default is 60. */
  limit: z.number().int().min(1).optional(),
});
export type InvoicesQuery = z.input<typeof invoicesQuerySchema>;

/** A payment, transfer or payout: `amount` in dollars, negative for what the account paid. */
export const invoiceRowSchema = z.object({
  /** When it was made, Unix seconds. */
  start: z.number(),
  /** When it was paid; null while unpaid. */
  end: z.number().nullable(),
  /** `credit`, `transfer`, `payout`, `refund`, `reserved`. */
  type: z.string(),
  source: z.string().nullable().default(null),
  description: z.string().default(""),
  amount: z.number(),
  metadata: z
    .object({ invoice_id: z.number().int().optional(), service: z.string().optional() })
    .default({}),
});
export type InvoiceRow = z.infer<typeof invoiceRowSchema>;
const invoicesPageSchema = z.object({ ...pageFields, results: z.array(invoiceRowSchema) });

/** A parameter as the official client encodes it: text as is, anything else as JSON. */
function encoded(params: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(params)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, typeof value === "string" ? value : JSON.stringify(value)]),
  );
}

export class BillingApi {
  constructor(private readonly transport: Transport) {}

  /** Every contract's charges on the query's days, following the pages to the last. */
  async charges(query: ChargesQuery, signal?: AbortSignal): Promise<ChargeRow[]> {
    const { selectFilters, format, latestFirst, limit } = chargesQuerySchema.parse(query);
    const params = encoded({
      select_filters: selectFilters,
      format,
      latest_first: latestFirst,
      limit,
    });
    return this.allPages("/api/v0/charges/", params, chargesPageSchema, signal);
  }

  /** Every invoice made in the query's range, following the pages to the last. */
  async invoices(query: InvoicesQuery, signal?: AbortSignal): Promise<InvoiceRow[]> {
    const { selectFilters, orderBy, latestFirst, limit } = invoicesQuerySchema.parse(query);
    const params = encoded({
      select_filters: selectFilters,
      order_by: orderBy,
      latest_first: latestFirst,
      limit,
    });
    return this.allPages("/api/v1/invoices/", params, invoicesPageSchema, signal);
  }

  private async allPages<Row>(
    path: string,
    params: Readonly<Record<string, string>>,
    response: z.ZodType<{ results: Row[]; next_token?: string | null | undefined }>,
    signal?: AbortSignal,
  ): Promise<Row[]> {
    const rows: Row[] = [];
    let afterToken: string | undefined;
    do {
      const page = await this.transport.request({
        method: "GET",
        path,
        query: afterToken === undefined ? params : { ...params, after_token: afterToken },
        response,
        signal,
      });
      rows.push(...page.results);
      // An empty page ends the list too: a token that leads nowhere must not loop.
      afterToken =
        page.next_token === null || page.next_token === undefined || page.results.length === 0
          ? undefined
          : page.next_token;
    } while (afterToken !== undefined);
    return rows;
  }
}

export const area: ClientArea = {
  property: "billing",
  Api: BillingApi,
  description: "What the account was charged, per contract, and its invoices.",
  documents: {
    "GET /api/v0/charges/": {
      by: ["the OpenAPI", "vastai 1.9.1"],
      query: ["after_token", "format", "latest_first", "limit", "select_filters"],
    },
    "GET /api/v1/invoices/": {
      by: ["the OpenAPI", "vastai 1.9.1"],
      query: ["after_token", "latest_first", "limit", "order_by", "select_filters"],
    },
  },
};
