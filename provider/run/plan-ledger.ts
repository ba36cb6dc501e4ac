// The plan's prices: what each billable resource of the program is expected to cost after the
// change and what it costs now, as check and diff find them (provider/pricing/plan.ts records
// them). One per run; the cost command (bin/gpucloud-cost.ts) rebuilds one from a preview's
// figures, so that both add up the same way.

/** A billable resource's expected $/hour and what the figure rests on. */
export interface Estimate {
  readonly dollarsPerHour: number;
  /** A range, where the figure is not one price (a list of asks, a worker group). */
  readonly low?: number;
  readonly high?: number;
  readonly basis: string;
  /** A state that records no price (written before prices were): the figure is $0, unknown. */
  readonly unrecorded?: boolean;
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
}

export interface PlanTotals {
  /** The stack's expected $/hour after the change. */
  readonly after: number;
  /** What the same resources cost now. */
  readonly now: number;
  readonly change: number;
  /** `after` plus the old side of each create-before-delete replacement: the cap counts this. */
  readonly peak: number;
}

/** Adds the items up. */
export function totalsOf(items: Iterable<PlanItem>): PlanTotals {
  let after = 0;
  let now = 0;
  let replaced = 0;
  for (const item of items) {
    after += item.dollarsPerHourAfter;
    now += item.dollarsPerHourNow;
    if (item.bothWhileReplacing === true) replaced += item.dollarsPerHourNow;
  }
  return { after, now, change: after - now, peak: after + replaced };
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
  /**
   * Replacements whose new resource the engine has yet to check again (it checks a
   * replacement's new inputs once more, with no olds, before creating it).
   */
  readonly #replaced = new Set<string>();

  /**
   * A key for a resource known only by its inputs (`base`), unique per resource of the run:
   * at check, the first `base#n` not recorded yet; at diff, the first an existing resource's
   * check recorded and no diff has yet (check and diff of one resource come one after the
   * other).
   */
  keyFor(base: string, at: "check" | "diff"): string {
    for (let n = 0; ; n++) {
      const key = `${base}#${n}`;
      const item = this.#items.get(key);
      if (item === undefined || (at === "check" && this.#replaced.has(key))) return key;
      // A new resource's item (create) is never an existing one's.
      if (at === "diff" && item.op !== "create" && !this.#diffed.has(key)) {
        this.#diffed.add(key);
        return key;
      }
    }
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
    return totalsOf(this.#items.values());
  }
}
