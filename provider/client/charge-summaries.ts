import { z } from "zod";
import { type BillingApi, type ChargeRow, chargeTypeSchema, type InvoiceRow } from "./billing";

// The account's bills as programs read them (getCharges, getInvoices): a range of days in,
// per-contract charges with ids, labels and dollars out. The service counts charges by UTC day,
// so `since` and `until` name days: a time counts its whole day.

const DAY_SECONDS = 86_400;
const dayPattern = /^\d{4}-\d{2}-\d{2}$/;
const timePattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A day: `2026-01-31`, or an ISO 8601 time with its zone, whose UTC day it is. */
const daySchema = z
  .string({ error: "a date (2026-01-31) or an ISO 8601 time with its zone (2026-01-31T09:30:00Z)" })
  .refine((value) => dayPattern.test(value) || timePattern.test(value), {
    error: "must be a date (2026-01-31) or an ISO 8601 time with its zone (2026-01-31T09:30:00Z)",
  })
  .transform((value, context) => {
    // Date.parse reads 2026-02-30 as March 2nd: a date must come back as itself.
    const date = value.slice(0, 10);
    const dateMs = Date.parse(`${date}T00:00:00Z`);
    const ms = Date.parse(dayPattern.test(value) ? `${date}T00:00:00Z` : value);
    if (
      Number.isNaN(ms) ||
      Number.isNaN(dateMs) ||
      new Date(dateMs).toISOString().slice(0, 10) !== date
    ) {
      context.addIssue({ code: "custom", message: "is not a day of the calendar" });
      return z.NEVER;
    }
    /** The day's midnight, UTC, in Unix seconds. */
    return Math.floor(ms / 1000 / DAY_SECONDS) * DAY_SECONDS;
  });

const idsSchema = z.array(z.number().int().positive()).optional();

export const chargesRequestSchema = z
  .strictObject({
    /** The first day counted. */
    since: daySchema,
    /** The last day counted; today (UTC) when absent. */
    until: daySchema.optional(),
    /** Only these instances' contracts (a NodeGroup's: its nodes' `instanceId`s). */
    instanceIds: idsSchema,
    /** Only these volumes' contracts (a Volume's or NetworkVolume's `volumeId`). */
    volumeIds: idsSchema,
    /** Only contracts of these types: `instance`, `volume`, `serverless` (workers). */
    types: z.array(chargeTypeSchema).min(1).optional(),
    /** Only contracts whose label is one of these. */
    labels: z.array(z.string()).optional(),
  })
  .refine((request) => request.until === undefined || request.until >= request.since, {
    error: "is before since",
    path: ["until"],
  });
/** What getCharges is asked: a range of days and, optionally, which contracts. */
export type ChargesRequest = z.input<typeof chargesRequestSchema>;

export const invoicesRequestSchema = z
  .strictObject({
    since: daySchema,
    until: daySchema.optional(),
    /** Only these payment services: `stripe_payments`, `transfer`, `coinbase`, ... */
    services: z.array(z.string()).min(1).optional(),
  })
  .refine((request) => request.until === undefined || request.until >= request.since, {
    error: "is before since",
    path: ["until"],
  });
export type InvoicesRequest = z.input<typeof invoicesRequestSchema>;

const day = z.string().describe("A day, UTC: `2026-01-31`.");
const dollars = (what: string) =>
  z.number().describe(`${what}, in dollars, rounded to 3 decimals.`);

export const chargeItemSchema = z
  .object({
    type: z
      .string()
      .describe("`gpu` (GPU time), `disk` (storage), `bwd` (download) or `bwu` (upload)."),
    firstDay: day.describe("The first day charged for it in the range, UTC."),
    lastDay: day.describe("The last day charged for it in the range, UTC."),
    description: z
      .string()
      .describe('What was billed, as the service says: "2.000 hours at $0.498/hour".'),
    dollars: dollars("What it cost"),
  })
  .meta({
    pulumiType: "ChargeItem",
    description: "One charge type of a contract's charges (getCharges).",
  });

export const chargeSummarySchema = z
  .object({
    source: z
      .string()
      .describe("The contract, as the service names it: `instance-<id>` or `volume-<id>`."),
    type: z.string().describe("`instance` (a serverless worker too) or `volume`."),
    instanceId: z
      .number()
      .int()
      .nullable()
      .describe("The instance's id, for an instance's charges."),
    volumeId: z.number().int().nullable().describe("The volume's id, for a volume's charges."),
    label: z.string().nullable().describe("The contract's label, if it has one."),
    templateId: z.number().int().nullable().describe("The template it was launched from, if any."),
    endpointId: z.number().int().nullable().describe("A serverless worker's endpoint."),
    workerGroupId: z.number().int().nullable().describe("A serverless worker's worker group."),
    description: z
      .string()
      .describe("The service's summary, e.g. `Instance 1000001 Charges - 2 days`."),
    firstDay: day.describe("The first day charged in the range, UTC."),
    lastDay: day.describe("The last day charged in the range, UTC."),
    dollars: dollars("What the contract cost on the range's days"),
    items: z.array(chargeItemSchema).describe("The charges by type."),
  })
  .meta({
    pulumiType: "ChargeSummary",
    description:
      "What one contract (an instance or a volume) was billed on a range of days (getCharges).",
  });
export type ChargeSummary = z.output<typeof chargeSummarySchema>;

export const chargesSchema = z.object({
  since: day.describe("The first day counted, UTC."),
  until: day.describe("The last day counted, UTC (today's charges are those up to now)."),
  charges: z.array(chargeSummarySchema).describe("Each contract's charges, oldest contract first."),
  totalDollars: dollars("What the contracts listed cost together"),
});
/** What getCharges answers. */
export type Charges = z.output<typeof chargesSchema>;

export const invoiceSummarySchema = z
  .object({
    invoiceId: z.number().int().nullable().describe("The service's id of the invoice."),
    type: z.string().describe("`credit`, `transfer`, `payout`, `refund` or `reserved`."),
    service: z.string().nullable().describe("The payment service, e.g. `stripe_payments`."),
    source: z.string().nullable().describe("Where it came from: `stripe`, or a sender's email."),
    description: z.string().describe("The service's description."),
    dollars: z
      .number()
      .describe(
        "The amount, in dollars, as the service signs it: negative for what the account paid.",
      ),
    createdAt: z.string().describe("When it was made, an ISO 8601 time (UTC)."),
    paidAt: z
      .string()
      .nullable()
      .describe("When it was paid, an ISO 8601 time (UTC); absent while unpaid."),
  })
  .meta({
    pulumiType: "InvoiceSummary",
    description: "A payment, transfer or payout of the account (getInvoices).",
  });

export const invoicesSchema = z.object({
  since: day.describe("The first day counted, UTC."),
  until: day.describe("The last day counted, UTC."),
  invoices: z
    .array(invoiceSummarySchema)
    .describe("The invoices made on those days, newest first."),
});
export type Invoices = z.output<typeof invoicesSchema>;

const dayText = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const timeText = (seconds: number) => new Date(seconds * 1000).toISOString();
const round3 = (amount: number) => Math.round(amount * 1000) / 1000;
const numberOr = (value: unknown) => (typeof value === "number" ? value : null);

/** A contract's charges as getCharges answers them. */
export function chargeSummaryOf(row: ChargeRow): ChargeSummary {
  const [kind, id] = (row.source ?? "").split("-");
  const contractId = id !== undefined && /^\d+$/.test(id) ? Number(id) : null;
  const label = row.metadata["label"];
  return {
    source: row.source ?? "",
    type: row.type,
    instanceId: kind === "instance" ? contractId : null,
    volumeId: kind === "volume" ? contractId : null,
    label: typeof label === "string" ? label : null,
    templateId: numberOr(row.metadata["template_id"]),
    endpointId: numberOr(row.metadata["endpoint_id"]),
    workerGroupId: numberOr(row.metadata["workergroup_id"]),
    description: row.description,
    firstDay: dayText(row.start),
    lastDay: dayText(row.end),
    dollars: row.amount,
    items: row.items.map((item) => ({
      type: item.type,
      firstDay: dayText(item.start),
      lastDay: dayText(item.end),
      description: item.description,
      dollars: item.amount,
    })),
  };
}

/** The range's last day: `until`'s, or today's (UTC) at `nowMs`. */
const lastDayOf = (until: number | undefined, nowMs: number) =>
  until ?? Math.floor(nowMs / 1000 / DAY_SECONDS) * DAY_SECONDS;

/**
 * What the checked request's contracts were billed on its days (getCharges): every page of the
 * service's charges, then only the contracts asked for.
 */
export async function chargesOf(
  billing: BillingApi,
  request: z.output<typeof chargesRequestSchema>,
  nowMs: number,
  signal?: AbortSignal,
): Promise<Charges> {
  const until = lastDayOf(request.until, nowMs);
  const rows = await billing.charges(
    {
      selectFilters: {
        day: { gte: request.since, lte: until },
        ...(request.types ? { type: { in: request.types } } : {}),
      },
      format: "table",
      latestFirst: false,
      limit: 500,
    },
    signal,
  );
  const ids =
    (request.instanceIds ?? request.volumeIds)
      ? new Set<string>([
          ...(request.instanceIds ?? []).map((id) => `instance-${String(id)}`),
          ...(request.volumeIds ?? []).map((id) => `volume-${String(id)}`),
        ])
      : undefined;
  const charges = rows
    .map(chargeSummaryOf)
    .filter((charge) => ids === undefined || ids.has(charge.source))
    .filter(
      (charge) =>
        request.labels === undefined ||
        (charge.label !== null && request.labels.includes(charge.label)),
    );
  return {
    since: dayText(request.since),
    until: dayText(until),
    charges,
    totalDollars: round3(charges.reduce((sum, charge) => sum + charge.dollars, 0)),
  };
}

/** An invoice as getInvoices answers it. */
export function invoiceSummaryOf(row: InvoiceRow): z.output<typeof invoiceSummarySchema> {
  return {
    invoiceId: row.metadata.invoice_id ?? null,
    type: row.type,
    service: row.metadata.service ?? null,
    source: row.source,
    description: row.description,
    dollars: row.amount,
    createdAt: timeText(row.start),
    paidAt: row.end === null ? null : timeText(row.end),
  };
}

/** The account's invoices made on the checked request's days (getInvoices), newest first. */
export async function invoicesOf(
  billing: BillingApi,
  request: z.output<typeof invoicesRequestSchema>,
  nowMs: number,
  signal?: AbortSignal,
): Promise<Invoices> {
  const until = lastDayOf(request.until, nowMs);
  const rows = await billing.invoices(
    {
      selectFilters: {
        when: { gte: request.since, lte: until + DAY_SECONDS - 1 },
        ...(request.services ? { service: { in: request.services } } : {}),
      },
      latestFirst: true,
    },
    signal,
  );
  return {
    since: dayText(request.since),
    until: dayText(until),
    invoices: rows.map(invoiceSummaryOf),
  };
}
