/**
 * Status reads shared by every instance one process waits on (boots, stops and starts,
 * destroys). A round lists up to 25 of the instances waited on at once (the list filtered by
 * id: the service's page, which also keeps each request's address short) and shows by id only
 * those the list does not hold (gone, or not listed yet): one request a round where each
 * instance polling its own would send one each. Rounds come at a steady interval, the shortest
 * any waiter asks for, and only while someone waits. With more than 25 instances waited on, a
 * round lists 25 (`roundPage`) and the others wait for a later one: a process sends at most
 * one status list an interval, a third of the list's documented one a second at the default
 * 3 s, however large the fleet (two pages a round took two thirds, spent mostly on boots with
 * minutes to go). A show can take long (retried under the service's rate limits): it holds up
 * its own waiters only, never the next round.
 */
export class StatusRounds<Row extends { id: number }> {
  private waiting: Waiter<Row>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAtMs = Number.POSITIVE_INFINITY;
  private inRound = false;
  private lastRoundAtMs = Number.NEGATIVE_INFINITY;
  /** When each id still waited on was first waited on: the older go first in a full round. */
  private readonly waitedOnSinceMs = new Map<number, number>();
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
        joinedAtMs: Date.now(),
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
      if (!this.waitedOnSinceMs.has(id)) this.waitedOnSinceMs.set(id, waiter.joinedAtMs);
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
    // A watch waits again as soon as it is answered, long before the next round: an id no one
    // waits for now is no longer watched, and a later watch of it starts afresh.
    const waitedOn = new Set(this.waiting.map((waiter) => waiter.id));
    for (const id of this.waitedOnSinceMs.keys()) {
      if (!waitedOn.has(id)) this.waitedOnSinceMs.delete(id);
    }
    const page = roundPage(this.waiting, this.waitedOnSinceMs, this.lastRoundAtMs, this.idsPerList);
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

  private showOf(id: number): Promise<Row | undefined> {
    let show = this.shows.get(id);
    if (show === undefined) {
      show = this.show(id).finally(() => this.shows.delete(id));
      this.shows.set(id, show);
    }
    return show;
  }
}

/** A waiter not read for this many of its intervals goes first in a full round. */
const overdueAfterIntervals = 3;

/**
 * The ids a round lists, at most `size`. When more are waited on: first those not read for
 * three intervals, longest unread first (so none is left unread for long), then those waited on
 * longest: the instances rented first, which boot first, so a fleet's first instances are seen
 * running by the first round after they run.
 */
export function roundPage(
  waiting: readonly Pick<Waiter<unknown>, "id" | "intervalMs" | "joinedAtMs">[],
  waitedOnSinceMs: ReadonlyMap<number, number>,
  nowMs: number,
  size: number,
): Set<number> {
  const overdueAtMs = new Map<number, number>();
  for (const { id, joinedAtMs, intervalMs } of waiting) {
    const atMs = joinedAtMs + overdueAfterIntervals * intervalMs;
    overdueAtMs.set(id, Math.min(overdueAtMs.get(id) ?? atMs, atMs));
  }
  if (overdueAtMs.size <= size) return new Set(overdueAtMs.keys());
  const ranked = [...overdueAtMs].map(([id, atMs]) =>
    atMs <= nowMs
      ? { id, overdue: 1, key: atMs }
      : { id, overdue: 0, key: waitedOnSinceMs.get(id) ?? nowMs },
  );
  ranked.sort((a, b) => b.overdue - a.overdue || a.key - b.key);
  return new Set(ranked.slice(0, size).map(({ id }) => id));
}

interface Waiter<Row> {
  readonly id: number;
  readonly intervalMs: number;
  /** When it started waiting: when its id was last read, for a watch that waits again. */
  readonly joinedAtMs: number;
  readonly resolve: (row: Row | undefined) => void;
  readonly reject: (error: unknown) => void;
}
