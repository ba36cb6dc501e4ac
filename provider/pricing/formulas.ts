// The service's price formulas, as its documents and the emulator state them
// (guides_instances_pricing.mdx, guides_reference_billing.mdx; emulator/README.md "Prices"):
// GPU time is billed while an instance runs, storage while it exists (stopped too), traffic by
// the byte. Pure functions: what estimates.ts and the cost command compute with.

/** The month `storage_cost` ($/GB-month) is priced over: 30 days of hours. */
export const hoursPerMonth = 720;

/** The storage an ask's listed `dph_total` includes (the offer search's default allocated_storage). */
export const listedStorageGb = 8;

/** What is never in a figure: traffic is billed per byte, and no plan says how many. */
export const leftOut = ["bandwidth (billed per byte)"] as const;

/** `storage_cost × GB / 720`: the $/hour of `gb` of disk at `storageCostPerGbMonth`. */
export function storageDollarsPerHour(storageCostPerGbMonth: number, gb: number): number {
  return (storageCostPerGbMonth * gb) / hoursPerMonth;
}

/** An instance offer as far as its price goes. */
export interface PricedOffer {
  readonly askId: number;
  /** The listed price, `dph_total`, with the listed 8 GB of storage. */
  readonly listedDollarsPerHour: number;
  /** `dph_base` when the service answers it; else derived from the listed price. */
  readonly baseDollarsPerHour?: number | null;
  readonly storageCostPerGbMonth: number | null;
}

/** How an instance on an offer is billed. */
export interface InstanceTerms {
  /** The disk, GB; undefined when a template decides it (priced at the listed 8 GB). */
  readonly diskGb: number | undefined;
  /** An interruptible instance's bid, $/hour; undefined for on-demand. */
  readonly bid?: number | undefined;
  /** Declared stopped: only its storage is billed. */
  readonly stopped?: boolean | undefined;
}

/**
 * `dph_total = dph_base + storage_cost × diskGb / 720` (emulator/README.md, from the OpenAPI's
 * Instance example). `dph_base` is the offer's, or `dph_total − storage_cost × 8 / 720` when the
 * search does not answer it (the listed price includes 8 GB). A bid is read as the ask's price
 * is, with 8 GB included: `dph_base = bid − storage_cost × 8 / 720`, floored at 0 (the documents
 * are silent on bids and storage; the emulator reads them so). A stopped instance pays its
 * storage only (the billing guide).
 */
export function instanceDollarsPerHour(offer: PricedOffer, terms: InstanceTerms): number {
  const storageCost = offer.storageCostPerGbMonth ?? 0;
  const listedStorage = storageDollarsPerHour(storageCost, listedStorageGb);
  const base =
    terms.bid !== undefined
      ? Math.max(0, terms.bid - listedStorage)
      : (offer.baseDollarsPerHour ?? offer.listedDollarsPerHour - listedStorage);
  const storage = storageDollarsPerHour(storageCost, terms.diskGb ?? listedStorageGb);
  return terms.stopped === true ? storage : base + storage;
}

/**
 * `$1.2021`: four decimals, zeros trimmed to two; under a cent, the service's six (storage alone
 * is often a fraction of a cent an hour: `$0.00375`).
 */
export function dollars(amount: number): string {
  const places = Math.abs(amount) < 0.01 ? 6 : 4;
  const [whole = "0", fraction = ""] = Math.abs(amount).toFixed(places).split(".");
  const trimmed = fraction.replace(/0+$/, "").padEnd(2, "0");
  const sign = amount < 0 && Number(`${whole}.${fraction}`) !== 0 ? "-" : "";
  return `${sign}$${whole}.${trimmed}`;
}

/** `+$0.42` or `-$0.42`: a change. */
export function signedDollars(amount: number): string {
  const shown = dollars(amount);
  return shown.startsWith("-") ? shown : `+${shown}`;
}
