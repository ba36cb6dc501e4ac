/**
 * Status reads shared by every instance one process waits on (boots, stops and starts,
 * destroys). A round lists the instances waited on at once (the list filtered by id, 25 ids a
 * request: the service's page, which also keeps each request's address short) and shows by id
 * only those the list does not hold (gone, or not listed yet): ⌈W/25⌉ requests for W
 * instances, where each polling its own would send W; each page's waiters are answered as it
 * arrives. Rounds come at a steady interval, the shortest any waiter asks for, and only while
 * someone waits. A show can take long (retried under the service's rate limits): it holds up
 * its own waiters only, never the next round.
 */
export class StatusRounds<Row extends { id: number }> {
  private waiting: Waiter<Row>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAtMs = Number.POSITIVE_INFINITY;
  private inRound = false;
  private lastRoundAtMs = Number.NEGATIVE_INFINITY;
  /** Shows in flight, one per id, shared by the rounds that need it. */
  private readonly shows = new Map<number, Promise<Row | undefined>>();

  constructor(
    /** The rows of these ids (at most `idsPerList`) that exist. */
    private readonly listByIds: (ids: number[]) => Promise<Row[]>,
    /** One row by id, or undefined when it does not exist. */
    private readonly show: (id: number) => Promise<Row | undefined>,
    private readonly idsPerList = 25,
  ) {}

  /**
   * The row as the next round finds it (undefined: it does not exist). The first round comes
   * at once; later ones `intervalMs` after the one before. When `signal` fires first, the
   * waiter leaves (rejected with the signal's reason), and a round no one waits for is not made.
   */
  next(id: number, intervalMs: number, signal?: AbortSignal): Promise<Row | undefined> {
    const aborted = (): Error =>
      signal?.reason instanceof Error ? signal.reason : new Error("the wait was aborted");
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(aborted());
        return;
      }
      const onAbort = (): void => {
        this.waiting = this.waiting.filter((waiting) => waiting !== waiter);
        if (this.waiting.length === 0 && this.timer !== undefined) {
          clearTimeout(this.timer);
          this.timer = undefined;
          this.timerAtMs = Number.POSITIVE_INFINITY;
        }
        reject(aborted());
      };
      const waiter: Waiter<Row> = {
        id,
        intervalMs,
        resolve: (row) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(row);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.inRound || this.waiting.length === 0) return;
    const intervalMs = Math.min(...this.waiting.map((waiter) => waiter.intervalMs));
    const atMs = Math.max(Date.now(), this.lastRoundAtMs + intervalMs);
    // A waiter asking for a shorter interval brings the pending round forward.
    if (this.timer !== undefined) {
      if (atMs >= this.timerAtMs) return;
      clearTimeout(this.timer);
    }
    this.timerAtMs = atMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAtMs = Number.POSITIVE_INFINITY;
      void this.round();
    }, atMs - Date.now());
  }

  private async round(): Promise<void> {
    this.inRound = true;
    this.lastRoundAtMs = Date.now();
    const batch = this.waiting;
    this.waiting = [];
    try {
      const waitersOf = new Map<number, Waiter<Row>[]>();
      for (const waiter of batch)
        waitersOf.set(waiter.id, [...(waitersOf.get(waiter.id) ?? []), waiter]);
      const ids = [...waitersOf.keys()];
      for (let start = 0; start < ids.length; start += this.idsPerList) {
        const page = ids.slice(start, start + this.idsPerList);
        // A list that fails leaves its ids to their shows.
        const rows = await this.listByIds(page).catch(() => []);
        const listed = new Map(rows.map((row) => [row.id, row]));
        // Each page's waiters are answered as it arrives, not after the round's last page: the
        // pages of a round go a second apart under the list's rate limit, and an instance that
        // runs is handed over (a request paced at one a second too) a page sooner.
        for (const id of page) {
          const row = listed.get(id);
          for (const waiter of waitersOf.get(id) ?? []) {
            if (row !== undefined) waiter.resolve(row);
            else this.showOf(id).then(waiter.resolve, waiter.reject);
          }
        }
      }
    } finally {
      this.inRound = false;
      this.schedule();
    }
  }

  private showOf(id: number): Promise<Row | undefined> {
    let show = this.shows.get(id);
    if (show === undefined) {
      show = this.show(id).finally(() => this.shows.delete(id));
      this.shows.set(id, show);
    }
    return show;
  }
}

interface Waiter<Row> {
  readonly id: number;
  readonly intervalMs: number;
  readonly resolve: (row: Row | undefined) => void;
  readonly reject: (error: unknown) => void;
}
