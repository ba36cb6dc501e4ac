/**
 * A list read shared by its readers. A refresh reads every resource of a kind, one at a time,
 * over a few hundred milliseconds: those reads share one list request instead of sending one
 * each. A result answers reads for `maxAgeMs` after its request started; a write through
 * {@link SharedList.write} ends that, so a caller always sees its own writes.
 */
export class SharedList<T> {
  private shared: { startedAt: number; list: Promise<T> } | undefined;

  constructor(
    private readonly fetchList: (signal?: AbortSignal) => Promise<T>,
    private readonly maxAgeMs = 2_000,
  ) {}

  read(signal?: AbortSignal): Promise<T> {
    const now = Date.now();
    // A read with a signal neither joins nor is shared: one caller's cancellation must not
    // cancel another caller's list.
    if (!signal && this.shared && now - this.shared.startedAt <= this.maxAgeMs) {
      return this.shared.list;
    }
    const list = this.fetchList(signal);
    if (signal) return list;
    const shared = { startedAt: now, list };
    this.shared = shared;
    // A failed list is not shared with later readers.
    list.catch(() => {
      if (this.shared === shared) this.shared = undefined;
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
