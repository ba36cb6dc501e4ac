import type * as pulumi from "@pulumi/pulumi";
import { type Estimate, largestOf, type PlanItem, type PlanTotals } from "../run/plan-ledger";
import type { Run } from "../run/run";
import { containsUnknown } from "../shared/validation";
import { dollars, leftOut, signedDollars } from "./formulas";

// The plan's prices as check and diff record them in the run's ledger (run/plan-ledger.ts),
// the lines that show them, and the stack's cap (`gpucloud:maxDollarsPerHour`) at preview.
//
// The engine checks each resource of the program, then diffs it if it exists, one resource
// after another in the order the program registers them. A new resource's price is final at its check; an existing
// one's only at its diff (which knows whether it is replaced), so the cap is tested where a
// price becomes final: a new resource's check fails, or an existing one's diff. A resource
// removed from the program is never checked: the ledger does not see it (the cost command
// prices the preview's deletes from their state).

/** The prefix of the machine-readable line each priced resource logs (bin/gpucloud-cost.ts). */
export const figuresPrefix = "gpucloud: cost ";

/** The line CI reads: one resource's figures, as JSON (the ledger's item, less its key). */
export type ResourceFigures = Omit<PlanItem, "key">;

/**
 * The ledger key and the name people see: the URN where the door knows it (the plugin);
 * otherwise the resource's name from its inputs (an Instance's or NodeGroup's owner), or, for
 * a resource whose inputs carry no name (TypeScript's volumes), its checked inputs: diff is
 * handed the inputs check returned, so check's record and diff's meet.
 */
export function planIdentity(
  run: Run,
  type: string,
  inputs: object,
  at: "check" | "diff",
): { key: string; resource: string } {
  const urn = run.currentResource();
  if (urn !== undefined) return { key: urn, resource: urn };
  const owner = (inputs as { owner?: unknown }).owner;
  if (typeof owner === "string") return { key: `${type}:${owner}`, resource: owner };
  // Two resources may have the same inputs: each has a key of its own.
  return { key: run.plan.keyFor(`${type}:${stableJson(inputs)}`, at), resource: type };
}

/** Sorted keys, without the dynamic door's own (`__provider`), which check's inputs lack. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (key, field: unknown) => {
    if (key.startsWith("__")) return undefined;
    return field !== null && typeof field === "object" && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => a.localeCompare(b)))
      : field;
  });
}

/** `web`, from a URN or an owner (`project/stack/web`). */
function shortName(resource: string): string {
  return resource.split(/::|\//).at(-1) ?? resource;
}

/** The plan line: the stack's total after the change, now, and the difference. */
export function planLine(totals: PlanTotals): string {
  const peak =
    totals.peak > totals.after + 1e-9
      ? ` (${dollars(totals.peak)}/h while replacements run side by side)`
      : "";
  return (
    `plan: ${dollars(totals.after)}/h after this change${peak}, ${dollars(totals.now)}/h now, ` +
    `${signedDollars(totals.change)}/h; ${leftOut.join(", ").replace(" (billed per byte)", "")} ` +
    "is billed per byte and left out"
  );
}

/** Shows an item's price, its figures for CI, and the plan's total. */
function show(run: Run, item: PlanItem): void {
  const range =
    item.low !== undefined && item.high !== undefined && item.high > item.low
      ? ` (${dollars(item.low)}–${dollars(item.high)}/h)`
      : "";
  const now = item.op === "create" ? "" : `, ${dollars(item.dollarsPerHourNow)}/h now`;
  run.notice(
    `${shortName(item.resource)}: ${dollars(item.dollarsPerHourAfter)}/h${range} after this ` +
      `change${now}: ${item.basis}`,
  );
  const figures: ResourceFigures = {
    resource: item.resource,
    type: item.type,
    op: item.op,
    dollarsPerHourNow: item.dollarsPerHourNow,
    dollarsPerHourAfter: item.dollarsPerHourAfter,
    ...(item.low === undefined ? {} : { low: item.low }),
    ...(item.high === undefined ? {} : { high: item.high }),
    basis: item.basis,
    ...(item.bothWhileReplacing === true ? { bothWhileReplacing: true } : {}),
  };
  // The run's lines carry the `gpucloud: ` prefix (run/progress.ts, the plugin's log).
  run.notice(`cost ${JSON.stringify(figures)}`);
  run.notice(planLine(run.plan.totals()));
}

/**
 * The stack's cap; none while the configuration is missing or malformed: every check of the
 * run reports that already (Run.configurationFailures), and a diff must not fail on it.
 */
function capOf(run: Run): number | undefined {
  try {
    return run.maxDollarsPerHour;
  } catch {
    return undefined;
  }
}

/** Over the cap, the one line that says so; undefined within it (or with no cap). */
export function capProblem(run: Run): string | undefined {
  const cap = capOf(run);
  const totals = run.plan.totals();
  if (cap === undefined || totals.peak <= cap + 1e-9) return undefined;
  const largest = largestOf(run.plan.items(), 3)
    .map((item) => `${shortName(item.resource)} ${dollars(item.dollarsPerHourAfter)}/h`)
    .join(", ");
  const what =
    totals.peak > totals.after + 1e-9
      ? `${dollars(totals.peak)}/h while replacements run side by side (${dollars(totals.after)}/h after)`
      : `${dollars(totals.after)}/h`;
  return (
    `gpucloud:maxDollarsPerHour: the plan's expected total is ${what}, over the stack's cap of ` +
    `${dollars(cap)}/h; the largest: ${largest}; nothing was sent. Rent less, or raise the ` +
    `cap: pulumi config set gpucloud:maxDollarsPerHour ${String(Math.ceil(totals.peak * 100) / 100)}`
  );
}

/**
 * At check, with the estimate of the inputs just checked. A new resource's price is final
 * here: it is recorded, shown, and held against the cap (a failure when over). An existing
 * resource's waits for its diff (recordAtDiff).
 */
export function recordAtCheck(
  run: Run,
  type: string,
  inputs: object,
  existing: boolean,
  estimate: Estimate,
): pulumi.dynamic.CheckFailure[] {
  const { key, resource } = planIdentity(run, type, inputs, "check");
  const item: PlanItem = {
    key,
    resource,
    type,
    op: "create",
    dollarsPerHourNow: 0,
    dollarsPerHourAfter: estimate.dollarsPerHour,
    ...(estimate.low === undefined ? {} : { low: estimate.low }),
    ...(estimate.high === undefined ? {} : { high: estimate.high }),
    basis: estimate.basis,
  };
  if (existing) {
    // Kept for the diff: the price after the change if it replaces or reprices.
    run.plan.record({ ...item, op: "same" });
    return [];
  }
  // The engine checks a replacement's new inputs once more before it creates it: the diff has
  // priced the replacement already.
  if (run.plan.takeRecheck(key)) return [];
  run.plan.record(item);
  show(run, item);
  const problem = capProblem(run);
  return problem === undefined ? [] : [{ property: "", reason: problem }];
}

/** What diff found. */
export interface DiffPricing {
  /** The price recorded in the resource's state (pricing/recorded.ts). */
  readonly now: Estimate;
  readonly replaces: boolean;
  /** An update in place that changes the price (stopping, starting, a new bid, a resize). */
  readonly reprices: boolean;
  /** The replacement deletes first (the provider says so): the two never bill together. */
  readonly deleteBeforeReplace?: boolean;
}

/**
 * At diff: the resource's price now, and after the change (check's estimate when it is
 * replaced or repriced, else what it costs now). Throws, over the cap, before anything is sent.
 */
export function recordAtDiff(run: Run, type: string, news: object, found: DiffPricing): void {
  const { key, resource } = planIdentity(run, type, news, "diff");
  const checked = run.plan.get(key);
  const changes = found.replaces || found.reprices;
  const after = changes && checked !== undefined ? checked : undefined;
  // A state that records no price (written before prices were), unchanged: today's offers
  // for the same inputs are the best figure for now as for after.
  const now =
    found.now.unrecorded === true && !changes && checked !== undefined
      ? {
          dollarsPerHour: checked.dollarsPerHourAfter,
          basis: `${checked.basis} (no price in the state: today's offers)`,
        }
      : found.now;
  const item: PlanItem = {
    key,
    resource,
    type,
    op: found.replaces ? "replace" : found.reprices ? "update" : "same",
    dollarsPerHourNow: now.dollarsPerHour,
    dollarsPerHourAfter: after?.dollarsPerHourAfter ?? now.dollarsPerHour,
    ...(after?.low === undefined ? {} : { low: after.low }),
    ...(after?.high === undefined ? {} : { high: after.high }),
    basis: after?.basis ?? now.basis,
    ...(found.replaces && found.deleteBeforeReplace !== true ? { bothWhileReplacing: true } : {}),
  };
  run.plan.record(item);
  show(run, item);
  // Unchanged too: a stack already over a lowered cap fails until the program rents less.
  const problem = capProblem(run);
  if (problem !== undefined) throw new Error(problem);
}

/**
 * The estimate, once the inputs it rests on are known: while one is another resource's output
 * not yet made (preview), a placeholder that says which, counted at $0.
 */
export async function estimateOnceKnown(
  news: Record<string, unknown>,
  pricedBy: readonly string[],
  estimate: () => Promise<Estimate>,
): Promise<Estimate> {
  const unknown = pricedBy.filter((field) => containsUnknown(news[field]));
  if (unknown.length === 0) return estimate();
  return {
    dollarsPerHour: 0,
    basis: `priced once ${unknown.join(", ")} is known (not at preview)`,
  };
}
