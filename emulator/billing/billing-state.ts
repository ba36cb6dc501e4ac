import { z } from "zod";

/**
 * The account's bills as the state file holds them: a meter per contract (an instance or a
 * volume, ended ones kept), holding the stretches of time it was billed at each rate, and the
 * account's invoices (payments, transfers, payouts).
 */

/** A contract's type, as the charges' `type` filter names it: a serverless worker is its own. */
export const ContractTypeSchema = z.enum(["instance", "volume", "serverless"]);
export type ContractType = z.infer<typeof ContractTypeSchema>;

/** What a meter bills by the second: GPU time while running, storage while the contract exists. */
export const MeteredItemSchema = z.enum(["gpu", "disk"]);
export type MeteredItem = z.infer<typeof MeteredItemSchema>;

/** A stretch of billed time at one rate, ended. */
export const ChargeSegmentSchema = z.object({
  item: MeteredItemSchema,
  fromMs: z.number(),
  toMs: z.number(),
  dollarsPerHour: z.number(),
});
export type ChargeSegment = z.infer<typeof ChargeSegmentSchema>;

/** A stretch still being billed: storage since `fromMs`, at a rate. */
const OpenSegmentSchema = z.object({ fromMs: z.number(), dollarsPerHour: z.number() });
export type OpenSegment = z.infer<typeof OpenSegmentSchema>;

/**
 * An instance's boot while it is meant to run (not stopped, not outbid): it reaches its outcome
 * once its polls are met and its `afterSeconds` have passed, whichever is later, on its own,
 * between changes. Running, the GPU is billed from then; offline, the storage is not. What the
 * boot billed is written as segments when it ends (a stop, an outbid, a destroy, a new boot) or
 * its GPU's rate changes (a new bid: billed from `sinceMs` at the new rate).
 */
export const MeteredBootSchema = z.object({
  startedAtMs: z.number(),
  /** When its polls were met: the change that counted the last one; null until then. */
  pollsMetAtMs: z.number().nullable(),
  afterSeconds: z.number(),
  status: z.enum(["running", "exited", "unknown", "offline"]),
  /** The GPU's rate while it runs ($/hour: the row's `dph_base`). */
  dollarsPerHour: z.number(),
  /** Billed at this rate from here on (a new bid's moment; the boot's start otherwise). */
  sinceMs: z.number(),
});
export type MeteredBoot = z.infer<typeof MeteredBootSchema>;

export const MeterSchema = z.object({
  type: ContractTypeSchema,
  /** The instance's or volume's id: the contract's. */
  id: z.int(),
  startMs: z.number(),
  /** When the contract ended (destroyed, deleted, released); null while it lives. */
  endMs: z.number().nullable(),
  /** What the charges' metadata shows: the contract's last values, kept once it ends. */
  label: z.string().nullable(),
  templateId: z.int().nullable(),
  endpointId: z.int().nullable(),
  workerGroupId: z.int().nullable(),
  /** $/GB of traffic (an instance's offer's), for its bandwidth items; null for a volume. */
  inetUpCostPerGb: z.number().nullable(),
  inetDownCostPerGb: z.number().nullable(),
  /** Storage, billed from the contract's start to its end, but for an offline machine's time. */
  disk: OpenSegmentSchema.nullable(),
  /** An instance's boot while it is meant to run; null otherwise, and for a volume. */
  boot: MeteredBootSchema.nullable(),
  /** A released worker's time to go: its storage is billed until then. */
  releaseAtMs: z.number().nullable(),
  segments: z.array(ChargeSegmentSchema),
});
export type Meter = z.infer<typeof MeterSchema>;

/** The invoice types and payment services the invoices' description lists. */
export const InvoiceTypeSchema = z.enum(["credit", "transfer", "payout", "refund", "reserved"]);
export const PaymentServiceSchema = z.enum([
  "transfer",
  "stripe_payments",
  "bitpay",
  "coinbase",
  "crypto.com",
  "instance_prepay",
  "paypal_manual",
  "wise_manual",
]);

export const InvoiceSchema = z.object({
  id: z.int(),
  type: InvoiceTypeSchema,
  service: PaymentServiceSchema,
  /** The payment's source: `stripe`, `coinbase`, or the sender's email for a transfer. */
  source: z.string(),
  description: z.string(),
  /** Negative for what the account was charged (a credit purchase), positive for transfers. */
  amountDollars: z.number(),
  createdAtMs: z.number(),
  /** Null while unpaid. */
  paidAtMs: z.number().nullable(),
});
export type Invoice = z.infer<typeof InvoiceSchema>;
