import type * as pulumi from "@pulumi/pulumi";
import { type Estimate, largestOf, type PlanItem } from "../run/plan-ledger";
import type { Run } from "../run/run";
import { dollars } from "./formulas";
import { resourceLine, totalLine } from "./plan-lines";

// The plan's prices as check and diff record them in the run's ledger (run/plan-ledger.ts),
// the lines that show them, and the stack's cap (`gpucloud:maxDollarsPerHour`) at preview.
//
// The engine checks each resource of the program, then diffs it if it exists, one resource
// after another in the order the program registers them, and stops a preview at the first
// check or diff that fails; it tells a provider nothing at a plan's end. So the cap is tested
// where each price becomes final (a new resource's check, an existing one's diff) against what
// `up` may bill at its peak as far as the plan is known then: every resource priced so far,
// and the stack's instances on the account that no priced resource accounts for yet (they bill
// until `up` removes them). Resources the program declares after the one that fails are not
// priced yet; the stack's existing instances are.

interface Identity {
  /** The URN, `<type>:<owner>`, or `<type>:<the checked inputs>`. */
  readonly base: string;
  /** The name people see. */
  readonly resource: string;
  /**
   * What a check notes and a diff looks for (recordAtDiff): the resource itself (`base`) where
   * it has a name, else its type. A policy pack's remediation may change inputs after the check,
   * so that a resource known by its inputs alone could not be found again by them; any check of
   * its type tells a plan's diff from a refresh's, which follows no check at all.
   */
  readonly checked: string;
}

function identityOf(run: Run, type: string, inputs: object): Identity {
  const urn = run.currentResource();
  if (urn !== undefined) return { base: urn, resource: urn, checked: urn };
  const owner = (inputs as { owner?: unknown }).owner;
  if (typeof owner === "string") {
    const base = `${type}:${owner}`;
    return { base, resource: owner, checked: base };
  }
  return { base: `${type}:${stableJson(inputs)}`, resource: type, checked: type };
}

/**
 * The ledger key and the name people see: the URN where the door knows it (the plugin);
 * otherwise the resource's name from its inputs (an Instance's or NodeGroup's owner), or, for
 * a resource whose inputs carry no name (TypeScript's volumes), its checked inputs: diff is
 * handed the inputs check returned, so check's record and diff's meet. Two resources may have
 * the same inputs: each of those has a key of its own.
 */
function keyOf(
  run: Run,
  { base, resource, checked }: Identity,
  at: "check" | "diff",
): { key: string; resource: string } {
  const named = checked === base;
  return { key: named ? base : run.plan.keyFor(base, at), resource };
}

/**
 * At the check of an existing billable resource (`olds` given), once its inputs are valid: noted,
 * so that its diff is the plan's (recordAtDiff), and true; it is priced at its diff. A new one's
 * check is recordAtCheck.
 */
export function checkedExisting(run: Run, type: string, olds: object, inputs: object): boolean {
  if (Object.keys(olds).length === 0) return false;
  run.plan.noteChecked(identityOf(run, type, inputs).checked);
  return true;
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
export function shortName(resource: string): string {
  return resource.split(/::|\//).at(-1) ?? resource;
}

/** What the line leads with where it is not on the resource's own row (the dynamic door). */
function labelOf(run: Run, item: PlanItem): string | undefined {
  if (run.currentResource() !== undefined) return undefined;
  return item.resource === item.type ? item.type : `${item.type} ${shortName(item.resource)}`;
}

/** Shows an item's line, and the plan's total on the stack's row. */
function show(run: Run, item: PlanItem): void {
  run.notice(resourceLine(item, labelOf(run, item)));
  run.stackStatus(totalLine(run.plan.totals()));
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

/** The suggested cap: the peak, rounded up to the cent. */
const suggested = (peak: number) => String(Math.ceil(peak * 100 - 1e-6) / 100);

/** Over the cap (or not to be held under it), the one line that says so; else undefined. */
export function capProblem(run: Run): string | undefined {
  const cap = capOf(run);
  if (cap === undefined) return undefined;
  const items = run.plan.items();
  const unbounded = items.find((item) => item.unbounded !== undefined);
  if (unbounded !== undefined) {
    return (
      `gpucloud:maxDollarsPerHour: ${shortName(unbounded.resource)} cannot be priced at ` +
      `preview (${unbounded.unbounded ?? ""}), so the stack's cap of ${dollars(cap)}/h cannot ` +
      "be held; nothing was sent. Give it a value known at preview, or unset the cap"
    );
  }
  const totals = run.plan.totals();
  if (totals.peak <= cap + 1e-9) return undefined;
  const largest = largestOf(items, 3)
    .map((item) => `${shortName(item.resource)} ${dollars(item.dollarsPerHourAfter)}/h`)
    .join(", ");
  const what =
    totals.peak > totals.after + 1e-9
      ? `${dollars(totals.after)}/h after this change and up to ${dollars(totals.peak)}/h while ` +
        "`up` applies it (what it replaces or removes bills until then)"
      : `${dollars(totals.after)}/h`;
  return (
    `gpucloud:maxDollarsPerHour: the plan's expected total is ${what}, over the stack's cap ` +
    `of ${dollars(cap)}/h; the largest: ${largest}; nothing was sent. Rent less, or raise the ` +
    `cap: pulumi config set gpucloud:maxDollarsPerHour ${suggested(totals.peak)}`
  );
}

/** What the stack runs on the account now, for the cap: read once per run and stack. */
export interface StackRunning {
  /** The stack's identity (its token); undefined at a new stack's first preview. */
  readonly stack: string | undefined;
  /** The stack's instances on the account, by id, at the price the service reports. */
  readonly read: () => Promise<ReadonlyMap<number, number>>;
}

/** Reads what the stack runs, once per run, where a cap is to be held (none without). */
async function readRunning(run: Run, running: StackRunning | undefined): Promise<void> {
  const stack = running?.stack;
  if (running === undefined || stack === undefined || capOf(run) === undefined) return;
  let read = run.plan.runningReads.get(stack);
  if (read === undefined) {
    // A failed read counts nothing: the cap at `up` reads the account again.
    read = running.read().then(
      (prices) => {
        for (const [id, price] of prices) run.plan.running.set(id, price);
      },
      () => undefined,
    );
    run.plan.runningReads.set(stack, read);
  }
  await read;
}

const estimateFields = (estimate: Estimate) => ({
  ...(estimate.low === undefined ? {} : { low: estimate.low }),
  ...(estimate.high === undefined ? {} : { high: estimate.high }),
  ...(estimate.pending === undefined ? {} : { pending: estimate.pending }),
  ...(estimate.unbounded === undefined ? {} : { unbounded: estimate.unbounded }),
});

/**
 * At a new resource's check, with the estimate of its inputs: recorded, shown, and held
 * against the cap (a failure when over). An existing resource is priced at its diff.
 */
export async function recordAtCheck(
  run: Run,
  type: string,
  inputs: object,
  estimate: Estimate,
  running?: StackRunning,
): Promise<pulumi.dynamic.CheckFailure[]> {
  const identity = identityOf(run, type, inputs);
  run.plan.noteChecked(identity.checked);
  const { key, resource } = keyOf(run, identity, "check");
  // The engine checks a replacement's new inputs once more before it creates it: the diff has
  // priced the replacement already.
  if (run.plan.takeRecheck(key)) return [];
  await readRunning(run, running);
  const item: PlanItem = {
    key,
    resource,
    type,
    op: "create",
    dollarsPerHourNow: 0,
    dollarsPerHourAfter: estimate.dollarsPerHour,
    ...estimateFields(estimate),
    basis: estimate.basis,
  };
  run.plan.record(item);
  show(run, item);
  const problem = capProblem(run);
  return problem === undefined ? [] : [{ property: "", reason: problem }];
}

/** Whether the provider's diff replaces the resource. */
export function replacesIn(diff: pulumi.dynamic.DiffResult): boolean {
  return (diff.replaces?.length ?? 0) > 0;
}

/** What a resource's diff pricing found, besides what the provider's diff says. */
export interface DiffPricing {
  /** The price recorded in the resource's state (pricing/recorded.ts). */
  readonly now: Estimate;
  /** An update in place that changes the price (stopping, starting, a new bid, a resize). */
  readonly reprices: boolean;
  /**
   * The price after the change, where it changes (or the state records none): the estimate of
   * the new inputs, as the update or the replacement would rent.
   */
  readonly after?: Estimate | undefined;
  /** The instances the resource runs now. */
  readonly instanceIds?: readonly number[];
}

/**
 * At diff: the resource's price now, and after the change (`pricing`, worked out only for the
 * plan's diffs); whether it is replaced, and deleted first (a replacement that deletes first
 * never bills beside the old one), as the provider's `diff` says. Throws, over the cap, before
 * anything is sent.
 *
 * The engine also diffs every resource a refresh reads, with the state's inputs as the new ones,
 * to show what drifted, and a refresh checks nothing (`up --refresh` refreshes every resource, or
 * with `--run-program` each one, before its check). A refresh is no plan: such a diff prices
 * nothing, shows no line and holds no cap (the cap bounds what `up` rents, and a refresh rents
 * nothing). With `--run-program`, the refresh of a resource known by its inputs alone may come
 * after another of its type was checked: it is then priced as the plan's, and counted twice,
 * which errs toward the cap, as before refreshes priced nothing.
 */
export async function recordAtDiff(
  run: Run,
  type: string,
  news: object,
  diff: pulumi.dynamic.DiffResult,
  pricing: () => Promise<DiffPricing>,
  running?: StackRunning,
): Promise<void> {
  const identity = identityOf(run, type, news);
  if (!run.plan.wasChecked(identity.checked)) return;
  const found = await pricing();
  const { key, resource } = keyOf(run, identity, "diff");
  await readRunning(run, running);
  const replaces = replacesIn(diff);
  const changes = replaces || found.reprices;
  // A state that records no price (written before prices were), unchanged: today's offers
  // for the same inputs are the best figure for now as for after.
  const now =
    found.now.unrecorded === true && !changes && found.after !== undefined
      ? {
          dollarsPerHour: found.after.dollarsPerHour,
          basis: `${found.after.basis} (no price in the state: today's offers)`,
        }
      : found.now;
  const after = changes ? (found.after ?? now) : now;
  const item: PlanItem = {
    key,
    resource,
    type,
    op: replaces ? "replace" : found.reprices ? "update" : "same",
    dollarsPerHourNow: now.dollarsPerHour,
    dollarsPerHourAfter: after.dollarsPerHour,
    ...(changes ? estimateFields(after) : {}),
    basis: after.basis,
    ...(replaces && diff.deleteBeforeReplace !== true ? { bothWhileReplacing: true } : {}),
    ...(found.instanceIds === undefined ? {} : { instanceIds: found.instanceIds }),
  };
  run.plan.record(item);
  show(run, item);
  // Unchanged too: a stack already over a lowered cap fails until the program rents less.
  const problem = capProblem(run);
  if (problem !== undefined) throw new Error(problem);
}
