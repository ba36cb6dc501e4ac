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
  /** The host's longest-term prepay discount (`credit_discount_max`), 0 to 1. */
  readonly creditDiscountMax?: number | null;
}

/** How an instance on an offer is billed. */
export interface InstanceTerms {
  /** The disk, GB; undefined when a template decides it (priced at the listed 8 GB). */
  readonly diskGb: number | undefined;
  /** An interruptible instance's bid, $/hour; undefined for on-demand. */
  readonly bid?: number | undefined;
  /** Declared stopped: only its storage is billed. */
  readonly stopped?: boolean | undefined;
  /** Dollars prepaid into an on-demand instance (reserved): its price is discounted. */
  readonly prepayDollars?: number | undefined;
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
  const figure = terms.stopped === true ? storage : base + storage;
  return figure * (1 - prepayRateOf(offer, terms));
}

/** A prepaid on-demand instance's discount on this offer (0 without a prepay, or with a bid). */
export function prepayRateOf(offer: PricedOffer, terms: InstanceTerms): number {
  if (terms.prepayDollars === undefined || terms.bid !== undefined) return 0;
  const storageCost = offer.storageCostPerGbMonth ?? 0;
  const listedStorage = storageDollarsPerHour(storageCost, listedStorageGb);
  const base = offer.baseDollarsPerHour ?? offer.listedDollarsPerHour - listedStorage;
  const total = base + storageDollarsPerHour(storageCost, terms.diskGb ?? listedStorageGb);
  return prepayDiscount(terms.prepayDollars, total, offer.creditDiscountMax ?? 0).rate;
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

// A reserved instance's discount, as the service's documents give it (the emulator's README,
// "Prepaid (reserved) instances", cites them): a function of how many months of the instance's use the
// deposit covers (the OpenAPI's `prepayInstance`), 20% for 1 month, 30% for 3 and 40% for 6 by
// default (the reserved-instances guide; the official client's help), the longest term at the
// host's `credit_discount_max` (the official client: "Max long term prepay discount rate
// fraction, default: 0.4"), a month 720 hours at the discounted price (the guide's $576 for a
// month of a $1/h instance). The default schedule is scaled to the host's maximum, and read
// linearly between the documented points: the service publishes no curve between them, so a
// figure between them is an estimate; the service's answer after up is what `dollarsPerHour`
// records.

/** The default schedule as fractions of its longest-term discount (0.4): months → fraction. */
const schedule: readonly (readonly [number, number])[] = [
  [0, 0],
  [1, 0.5],
  [3, 0.75],
  [6, 1],
];

function scheduleFraction(months: number): number {
  for (let i = 1; i < schedule.length; i++) {
    const [m0, f0] = schedule[i - 1] ?? [0, 0];
    const [m1, f1] = schedule[i] ?? [0, 0];
    if (months <= m1) return f0 + ((f1 - f0) * (Math.max(months, m0) - m0)) / (m1 - m0);
  }
  return 1;
}

/** What a deposit of `dollars` buys an instance of `dollarsPerHour`: its discount and months. */
export interface PrepayDiscount {
  /** 0 to 1, of the instance's price. */
  readonly rate: number;
  /** Months of the instance's use the deposit covers at the discounted price. */
  readonly months: number;
}

/**
 * The discount a deposit of `dollars` buys on an instance of `dollarsPerHour` whose host allows
 * at most `maxRate`: `rate = maxRate × fraction(months)`, `months = dollars / (dollarsPerHour ×
 * (1 − rate) × 720)`, solved by bisection.
 */
export function prepayDiscount(
  dollars: number,
  dollarsPerHour: number,
  maxRate: number,
): PrepayDiscount {
  const monthsAt = (rate: number) =>
    dollarsPerHour <= 0 ? Infinity : dollars / (dollarsPerHour * (1 - rate) * hoursPerMonth);
  let low = 0;
  let high = Math.min(Math.max(maxRate, 0), 0.99);
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (maxRate * scheduleFraction(monthsAt(mid)) > mid) low = mid;
    else high = mid;
  }
  return { rate: low, months: monthsAt(low) };
}
