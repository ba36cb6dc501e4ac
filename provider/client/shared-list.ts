/**
 * A list read shared by its readers. A refresh reads every resource of a kind, one at a time,
 * over a few hundred milliseconds: those reads share one list request instead of sending one
 * each. A list answers every read that comes while it is in flight (its retries included); its
 * result, the reads of `maxAgeMs` after its request started; its failure, those of `maxAgeMs`
 * after the failure came. So in an outage the reads of a refresh wait through one list's
 * retries, not one round of them for each batch of `--parallel` reads (about 25 s each). A
 * write through {@link SharedList.write} ends the sharing, so a caller always sees its own
 * writes.
 */
export class SharedList<T> {
  private shared: SharedRead<T> | undefined;

  constructor(
    private readonly fetchList: (signal?: AbortSignal) => Promise<T>,
    private readonly maxAgeMs = 2_000,
  ) {}

  read(signal?: AbortSignal): Promise<T> {
    const now = Date.now();
    // A read with a signal neither joins nor is shared: one caller's cancellation must not
    // cancel another caller's list.
    if (!signal && this.shared && this.answers(this.shared, now)) return this.shared.list;
    const list = this.fetchList(signal);
    if (signal) return list;
    const started: SharedRead<T> = { startedAt: now, list, outcome: "in flight" };
    this.shared = started;
    list.then(
      () => {
        started.outcome = "listed";
      },
      () => {
        started.outcome = { failedAt: Date.now() };
      },
    );
    return list;
  }

  /** Runs a write. A list sent before or while it was in flight may predate it: not shared. */
  async write<R>(call: () => Promise<R>): Promise<R> {
    this.shared = undefined;
    try {
      return await call();
    } finally {
      this.shared = undefined;
    }
  }

  private answers(read: SharedRead<T>, now: number): boolean {
    if (read.outcome === "in flight") return true;
    const from = read.outcome === "listed" ? read.startedAt : read.outcome.failedAt;
    return now - from <= this.maxAgeMs;
  }
}

/** A list sent, and how it has ended so far. */
interface SharedRead<T> {
  readonly startedAt: number;
  readonly list: Promise<T>;
  outcome: "in flight" | "listed" | { readonly failedAt: number };
}
