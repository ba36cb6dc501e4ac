import { rentalPrice } from "../market/offers";
import type { Instance, Prepay } from "./instance-state";

/**
 * Reserved instances: credit deposited into an on-demand instance (PUT
 * /api/v0/instances/prepay/{id}/, `vastai prepay instance ID AMOUNT`) buys a discount on its
 * price while the deposit lasts. The rule, from the service's documents (emulator/README.md,
 * "Prepaid (reserved) instances"):
 *
 * - the discount is a function of how many months of the instance's use the deposit covers (the
 *   OpenAPI's description); the default schedule is 20% for 1 month, 30% for 3 and 40% for 6
 *   (the reserved-instances guide; the official client's help: "default discount func of 0.2
 *   for 1 month, 0.3 for 3 months"), larger deposits giving more with diminishing returns;
 * - the host sets the long-term maximum (`credit_discount_max`, the official client's "Max long
 *   term prepay discount rate fraction, default: 0.4"): the schedule is the default one scaled to
 *   it, so that 6 months and more get the host's maximum (up to 50% "depending on the provider");
 * - a month is 720 hours, and the deposit covers months at the discounted price (the guide's
 *   example: a 1-month prepay of a $1/h instance costs $576, not $720);
 * - every deposit recalculates the discount from the whole balance left (the guide).
 *
 * Between the documented points the emulator interpolates linearly: the service publishes no
 * curve between them.
 */

/** A month of a prepay's term: 30 days of hours. */
const HOURS_PER_MONTH = 720;

/** The default schedule, as fractions of the long-term maximum (0.4): months → fraction. */
const SCHEDULE: readonly (readonly [number, number])[] = [
  [0, 0],
  [1, 0.5],
  [3, 0.75],
  [6, 1],
];

/** The schedule's fraction of the maximum for `months` of cover. */
function scheduleFraction(months: number): number {
  for (let i = 1; i < SCHEDULE.length; i++) {
    const [m0, f0] = SCHEDULE[i - 1] ?? [0, 0];
    const [m1, f1] = SCHEDULE[i] ?? [0, 0];
    if (months <= m1) return f0 + ((f1 - f0) * (Math.max(months, m0) - m0)) / (m1 - m0);
  }
  return 1;
}

/**
 * The discount a balance of `dollars` buys on an instance of `totalPerHour`, and the months it
 * covers at that discount: `rate = max × fraction(months)` where `months = dollars /
 * (totalPerHour × (1 − rate) × 720)`, solved by bisection (both sides grow with the rate).
 */
export function discountFor(dollars: number, totalPerHour: number, maxRate: number) {
  const monthsAt = (rate: number) =>
    totalPerHour <= 0 ? Infinity : dollars / (totalPerHour * (1 - rate) * HOURS_PER_MONTH);
  let low = 0;
  let high = Math.min(maxRate, 0.99);
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (maxRate * scheduleFraction(monthsAt(mid)) > mid) low = mid;
    else high = mid;
  }
  const rate = Math.round(low * 1e6) / 1e6;
  return { rate, months: monthsAt(rate) };
}

/** The instance's price before any discount, $/hour: GPU and disk, as its row's `dph_total`. */
export function listedTotalPerHour(instance: Instance): number {
  const { offer } = instance;
  return rentalPrice(offer.dollarsPerHour, offer.storageCostPerGbMonth, instance.diskGb).total;
}

/**
 * What is left of the deposit at `nowMs`: drawn down at the discounted price from the last
 * deposit on, while the instance exists (the emulator's simplification: it does not stop the
 * draw while the instance is stopped).
 */
export function balanceAt(instance: Instance, nowMs: number): number {
  const prepay = instance.prepay;
  if (prepay === null) return 0;
  const perHour = listedTotalPerHour(instance) * (1 - prepay.discountRate);
  const used = (perHour * Math.max(0, nowMs - prepay.sinceMs)) / 3_600_000;
  return Math.max(0, prepay.balanceDollars - used);
}

/** The discount on the instance's price at `nowMs`: none once the deposit is used up. */
export function discountRateAt(instance: Instance, nowMs: number): number {
  return instance.prepay !== null && balanceAt(instance, nowMs) > 0
    ? instance.prepay.discountRate
    : 0;
}

/** Why the service refuses a prepay into this instance, or undefined. */
export function prepayProblem(instance: Instance): string | undefined {
  // Reserved instances are on-demand ones converted by a deposit (the instance-types guide:
  // "Convert anytime from existing on-demand instances"); an interruptible one's type cannot
  // change once rented (the rental-types guide).
  if (instance.bidDollarsPerHour !== null) {
    return "Only on-demand instances can be prepaid (reserved); this one is interruptible.";
  }
  return undefined;
}

/** Deposits `dollars` into the instance: the discount is recalculated from the whole balance. */
export function deposit(instance: Instance, dollars: number, nowMs: number): Prepay {
  const balance = balanceAt(instance, nowMs) + dollars;
  const { rate, months } = discountFor(
    balance,
    listedTotalPerHour(instance),
    instance.offer.creditDiscountMax,
  );
  const prepay: Prepay = {
    depositedDollars: (instance.prepay?.depositedDollars ?? 0) + dollars,
    balanceDollars: balance,
    sinceMs: nowMs,
    discountRate: rate,
    months,
  };
  instance.prepay = prepay;
  return prepay;
}
