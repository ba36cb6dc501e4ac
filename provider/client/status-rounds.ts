/**
 * Status reads shared by every instance one process waits on (boots, stops and starts,
 * destroys). A round lists the instances waited on at once (the list filtered by id, 25 a page
 * as the service pages) and shows by id only those the list does not hold (gone, or not listed
 * yet): ⌈W/25⌉ requests for W instances, where each polling its own would send W. Rounds come
 * at a steady interval, the shortest any waiter asked for, and only while someone waits.
 */
export class StatusRounds<Row extends { id: number }> {
  private waiting: Waiter<Row>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inRound = false;
  private lastRoundAtMs = Number.NEGATIVE_INFINITY;

  constructor(
    /** The rows of these ids that exist (a failure leaves each id to `show`). */
    private readonly listByIds: (ids: number[]) => Promise<Row[]>,
    /** One row by id, or undefined when it does not exist. */
    private readonly show: (id: number) => Promise<Row | undefined>,
  ) {}

  /**
   * The row as the next round finds it (undefined: it does not exist). The first round comes
   * at once; later ones `intervalMs` after the one before.
   */
  next(id: number, intervalMs: number): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ id, intervalMs, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.inRound || this.timer !== undefined || this.waiting.length === 0) return;
    const intervalMs = Math.min(...this.waiting.map((waiter) => waiter.intervalMs));
    const delayMs = Math.max(0, this.lastRoundAtMs + intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.round();
    }, delayMs);
  }

  private async round(): Promise<void> {
    this.inRound = true;
    this.lastRoundAtMs = Date.now();
    const batch = this.waiting;
    this.waiting = [];
    try {
      const ids = [...new Set(batch.map((waiter) => waiter.id))];
      const listed = new Map(
        (await this.listByIds(ids).catch(() => [])).map((row): [number, Row] => [row.id, row]),
      );
      const shows = new Map<number, Promise<Row | undefined>>();
      for (const waiter of batch) {
        const row = listed.get(waiter.id);
        if (row !== undefined) {
          waiter.resolve(row);
          continue;
        }
        let show = shows.get(waiter.id);
        if (show === undefined) {
          show = this.show(waiter.id);
          shows.set(waiter.id, show);
        }
        show.then(waiter.resolve, waiter.reject);
      }
      await Promise.allSettled(shows.values());
    } finally {
      this.inRound = false;
      this.schedule();
    }
  }
}

interface Waiter<Row> {
  readonly id: number;
  readonly intervalMs: number;
  readonly resolve: (row: Row | undefined) => void;
  readonly reject: (error: unknown) => void;
}
