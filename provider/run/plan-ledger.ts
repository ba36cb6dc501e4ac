// The plan's prices: what each billable resource of the program is expected to cost after the
// change and what it costs now, as check and diff find them (provider/pricing/plan.ts records
// them). One per run; the cost command (bin/gpucloud-cost.ts) rebuilds one from a preview's
// lines, so that both add up the same way.

/** A billable resource's expected $/hour and what the figure rests on. */
export interface Estimate {
  readonly dollarsPerHour: number;
  /** A range, where the figure is not one price (a list of asks, a query, a worker group). */
  readonly low?: number;
  readonly high?: number;
  readonly basis: string;
  /** A state that records no price (written before prices were): the figure is $0, unknown. */
  readonly unrecorded?: boolean;
  /**
   * The inputs the price waits for (another resource's outputs, not known at preview): the
   * figure is the range they allow, counted at its high end.
   */
  readonly pending?: string;
  /** Why no figure can bound the price at preview (an ask id not known yet): counted at $0. */
  readonly unbounded?: string;
}

/** What the change does to a resource, as far as its price goes. */
export type PlanOp = "create" | "update" | "replace" | "same";

export interface PlanItem {
  /** The resource's identity within the run: check's record and diff's meet under it. */
  readonly key: string;
  /** The URN (the plugin) or the resource's name as the inputs show it (TypeScript). */
  readonly resource: string;
  readonly type: string;
  readonly op: PlanOp;
  readonly dollarsPerHourNow: number;
  readonly dollarsPerHourAfter: number;
  readonly low?: number;
  readonly high?: number;
  readonly basis: string;
  /**
   * A replacement that creates the new resource before deleting the old (the engine's
   * default): both bill while it is under way.
   */
  readonly bothWhileReplacing?: boolean;
  /** See Estimate: the inputs the figure waits for; it counts its high end. */
  readonly pending?: string;
  /** See Estimate: why nothing bounds the figure at preview. */
  readonly unbounded?: string;
  /** The instances the resource runs now, which the account's read must not count again. */
  readonly instanceIds?: readonly number[];
}

export interface PlanTotals {
  /** The stack's expected $/hour after the change. */
  readonly after: number;
  /** What the same resources cost now. */
  readonly now: number;
  readonly change: number;
  /**
   * The most the stack may bill while `up` applies the change, in whatever order it runs: what
   * runs now stays until `up` removes it (deletes come last), a create-before-delete
   * replacement bills both sides, a change in place its dearer side, and the stack's
   * instances the plan has not priced (yet) run on. The cap counts this.
   */
  readonly peak: number;
}

/**
 * What an item may bill at once while `up` applies it, in the worst order. Its old side is what
 * its state records, or what the account reports for its instances where that is more (a
 * stopped instance: `up`'s cap counts it at its full price, since it may be started again).
 */
function peakOf(item: PlanItem, running: ReadonlyMap<number, number>): number {
  const { op, dollarsPerHourAfter: after } = item;
  const reported = (item.instanceIds ?? []).reduce((sum, id) => sum + (running.get(id) ?? 0), 0);
  const now = Math.max(item.dollarsPerHourNow, reported);
  if (op === "create") return after;
  if (op === "same") return now;
  if (op === "replace" && item.bothWhileReplacing === true) return now + after;
  return Math.max(now, after);
}

/** Adds the items up, and the running instances no item claims (`running`, by id). */
export function totalsOf(
  items: Iterable<PlanItem>,
  running: ReadonlyMap<number, number> = new Map(),
): PlanTotals {
  let after = 0;
  let now = 0;
  let peak = 0;
  const claimed = new Set<number>();
  for (const item of items) {
    after += item.dollarsPerHourAfter;
    now += item.dollarsPerHourNow;
    peak += peakOf(item, running);
    for (const id of item.instanceIds ?? []) claimed.add(id);
  }
  for (const [id, price] of running) if (!claimed.has(id)) peak += price;
  return { after, now, change: after - now, peak };
}

/** The items costing most after the change, most first. */
export function largestOf(items: Iterable<PlanItem>, count: number): PlanItem[] {
  return [...items]
    .filter((item) => item.dollarsPerHourAfter > 0)
    .sort((a, b) => b.dollarsPerHourAfter - a.dollarsPerHourAfter)
    .slice(0, count);
}

/** The run's plan: one item per billable resource checked, by key (the last record wins). */
export class PlanLedger {
  readonly #items = new Map<string, PlanItem>();
  /** Keys a diff has recorded: a second resource with the same inputs takes the next key. */
  readonly #diffed = new Set<string>();
  /** The identities of the billable resources checked this run (pricing/plan.ts). */
  readonly #checked = new Set<string>();
  /**
   * Replacements whose new resource the engine has yet to check again (it checks a
   * replacement's new inputs once more, with no olds, before creating it).
   */
  readonly #replaced = new Set<string>();
  /**
   * The stack's instances on the account and their prices, by id, read once per run where the
   * cap is checked (pricing/plan.ts): what `up` counts as running until it removes them.
   */
  readonly running = new Map<number, number>();
  /** Stack tokens whose running instances were read (or are being read) this run. */
  readonly runningReads = new Map<string, Promise<void>>();
  /**
   * Where a Volume with `forInstance` goes, as its check chose it: the machine of the instance
   * that will link it, by the instance's query and cap (placementKey). An Instance whose volume
   * is created in the same plan is priced on that machine.
   */
  readonly volumeMachines = new Map<string, number[]>();
  /**
   * The asks the plan's creates by query are priced at: the next create of the same query is
   * priced at the next offer, as `up` rents them (two creates never rent one ask).
   */
  readonly plannedAskIds = new Set<number>();

  /**
   * A key for a resource known only by its inputs (`base`), unique per resource of the run:
   * at check (a new resource), the first `base#n` not recorded yet, or a replacement's whose
   * new side the engine checks again; at diff (an existing one), the first no diff has taken
   * and no new resource holds.
   */
  keyFor(base: string, at: "check" | "diff"): string {
    for (let n = 0; ; n++) {
      const key = `${base}#${n}`;
      const item = this.#items.get(key);
      if (at === "check") {
        if (item === undefined || this.#replaced.has(key)) return key;
        continue;
      }
      if (this.#diffed.has(key) || item?.op === "create") continue;
      this.#diffed.add(key);
      return key;
    }
  }

  noteChecked(identity: string): void {
    this.#checked.add(identity);
  }

  /** Whether a resource of this identity was checked this run: its diff is then the plan's. */
  wasChecked(identity: string): boolean {
    return this.#checked.has(identity);
  }

  record(item: PlanItem): void {
    this.#items.set(item.key, item);
    if (item.op === "replace") this.#replaced.add(item.key);
  }

  /**
   * True, once, for the engine's second check of a replacement: its price is the replace's,
   * already recorded at the diff.
   */
  takeRecheck(key: string): boolean {
    return this.#replaced.delete(key);
  }

  get(key: string): PlanItem | undefined {
    return this.#items.get(key);
  }

  items(): PlanItem[] {
    return [...this.#items.values()];
  }

  totals(): PlanTotals {
    return totalsOf(this.#items.values(), this.running);
  }
}
