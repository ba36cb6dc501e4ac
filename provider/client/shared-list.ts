/**
 * A list read shared by its readers. A refresh reads every resource of a kind, one at a time,
 * over a few hundred milliseconds: those reads share one list request instead of sending one
 * each. A result answers reads for `maxAgeMs` after its request started; a failure (the
 * transport's retries spent), for `maxAgeMs` after it came, so that the reads the engine sends
 * next fail with it at once: each new list would wait through the same retries again, and a
 * refresh of N resources in an outage would take N / `--parallel` rounds of them (about 20 s
 * each). A write through {@link SharedList.write} ends either, so a caller always sees its own
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
    const shared = this.shared;
    if (!signal && shared && now - (shared.failedAt ?? shared.startedAt) <= this.maxAgeMs) {
      return shared.list;
    }
    const list = this.fetchList(signal);
    if (signal) return list;
    const started: SharedRead<T> = { startedAt: now, list };
    this.shared = started;
    list.catch(() => {
      started.failedAt = Date.now();
    });
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
}

/** A list sent, and when it failed, once it has. */
interface SharedRead<T> {
  readonly startedAt: number;
  failedAt?: number;
  readonly list: Promise<T>;
}
