/**
 * Status reads shared by every instance one process waits on (boots, stops and starts,
 * destroys). A round lists up to 25 of the instances waited on at once (the list filtered by
 * id: the service's page, which also keeps each request's address short) and shows by id only
 * those the list does not hold (gone, or not listed yet): one request a round where each
 * instance polling its own would send one each. Rounds come at a steady interval, the shortest
 * any waiter asks for, and only while someone waits. With more than 25 waited on, a round lists
 * the 25 `roundPage` picks and the others wait for a later round: one list a round however
 * large the fleet (two pages a round spent two thirds of the list's documented one a second at
 * the default 3 s, mostly on boots with minutes to go). A show can take long (retried under the
 * service's rate limits): it holds up its own waiters only, never the next round.
 */
export class StatusRounds<Row extends { id: number }> {
  private waiting: Waiter<Row>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAtMs = Number.POSITIVE_INFINITY;
  private inRound = false;
  private lastRoundAtMs = Number.NEGATIVE_INFINITY;
  /** Rounds made so far: the number of the last. */
  private rounds = 0;
  /** Ids waited on so far, counted: each watch's place in the order of arrival. */
  private arrivals = 0;
  /** The watch of each id waited on, dropped at the first round after no one waits for it. */
  private readonly watches = new Map<number, Watch>();
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
   * The row as the next round that reads it finds it (undefined: it does not exist): the next
   * round for an id never read (unless more than 25 such wait), a later one when more than 25
   * ids wait (`roundPage`). The first round comes at once; later ones `intervalMs` after the one
   * before. When `signal` fires first, the waiter leaves (rejected with the signal's reason),
   * and a round no one waits for is not made.
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
      if (!this.watches.has(id)) this.watches.set(id, { arrival: this.arrivals++ });
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
    this.rounds += 1;
    this.forgetEndedWatches();
    const page = roundPage(this.waiting, this.watches, this.rounds, this.idsPerList);
    // Every id waited on has its watch (set by `next`, kept while someone waits).
    for (const id of page) {
      const watch = this.watches.get(id);
      if (watch !== undefined) this.watches.set(id, { ...watch, lastRound: this.rounds });
    }
    const batch = this.waiting.filter((waiter) => page.has(waiter.id));
    this.waiting = this.waiting.filter((waiter) => !page.has(waiter.id));
    try {
      // A list that fails leaves its ids to their shows.
      const rows = await this.listByIds([...page]).catch(() => []);
      const listed = new Map(rows.map((row) => [row.id, row]));
      for (const waiter of batch) {
        const row = listed.get(waiter.id);
        if (row !== undefined) waiter.resolve(row);
        else this.showOf(waiter.id).then(waiter.resolve, waiter.reject);
      }
    } finally {
      this.inRound = false;
      this.schedule();
    }
  }

  /**
   * A watch waits again as soon as its answer arrives (a list's in microtasks, long before the
   * next round; a show's when it ends): an id no one waits for, with no show in flight, is no
   * longer watched. One watched again after a round without it (a readiness check between its
   * probes) starts afresh, as never read.
   */
  private forgetEndedWatches(): void {
    const waitedOn = new Set(this.waiting.map((waiter) => waiter.id));
    for (const id of this.watches.keys()) {
      if (!waitedOn.has(id) && !this.shows.has(id)) this.watches.delete(id);
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

/** A watch of an id: when it came, and the last round that read it (none yet: absent). */
export interface Watch {
  readonly arrival: number;
  readonly lastRound?: number;
}

/** A watch left out of this many rounds in a row goes before those waited on longest. */
const roundsLeftOut = 3;

/**
 * The ids round number `round` lists, at most `size`. When more are waited on: first those
 * never read (a destroy's confirmation, a readiness check's status), in order of arrival; then
 * those left out of the last three rounds, read longest ago first, so that each is read at least
 * every fourth round while no more than `size` are due at once; then those waited on longest:
 * the instances rented first, which boot first, so the rounds find a fleet's first to run
 * sooner than taking the waiters in turn would (by a round, 3 s, in the bench's fleet).
 */
export function roundPage(
  waiting: readonly Pick<Waiter<unknown>, "id">[],
  watches: ReadonlyMap<number, Watch>,
  round: number,
  size: number,
): Set<number> {
  const ids = new Set(waiting.map((waiter) => waiter.id));
  if (ids.size <= size) return ids;
  const rank = (id: number): [tier: number, key: number] => {
    const watch = watches.get(id) ?? { arrival: Number.POSITIVE_INFINITY };
    if (watch.lastRound === undefined) return [0, watch.arrival];
    if (round - watch.lastRound > roundsLeftOut) return [1, watch.lastRound];
    return [2, watch.arrival];
  };
  const ranked = [...ids].map((id) => ({ id, rank: rank(id) }));
  ranked.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1]);
  return new Set(ranked.slice(0, size).map(({ id }) => id));
}

interface Waiter<Row> {
  readonly id: number;
  readonly intervalMs: number;
  readonly resolve: (row: Row | undefined) => void;
  readonly reject: (error: unknown) => void;
}
