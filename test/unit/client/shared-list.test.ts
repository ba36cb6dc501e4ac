import { SharedList } from "../../../provider/client/shared-list";

const outage = new Error("GET /api/v0/secrets/ failed with HTTP 503 (gave up after 8 attempts)");

/** A list whose every fetch is counted and settled by the test. */
function listOf<T>() {
  const pending: { resolve: (value: T) => void; reject: (error: Error) => void }[] = [];
  const list = new SharedList<T>(
    () =>
      new Promise<T>((resolve, reject) => {
        pending.push({ resolve, reject });
      }),
    2_000,
  );
  const settle = async (outcome: { value: T } | { error: Error }) => {
    const fetch = pending.at(-1);
    if (fetch === undefined) throw new Error("no fetch to settle");
    if ("value" in outcome) fetch.resolve(outcome.value);
    else fetch.reject(outcome.error);
    // Let the list's own handlers (its failure's time) run before the test goes on.
    await Promise.resolve();
  };
  /** A read whose list fails, as one fails once the transport's retries are spent. */
  const readFailed = async (retriesMs = 0) => {
    const read = list.read();
    jest.advanceTimersByTime(retriesMs);
    await settle({ error: outage });
    await expect(read).rejects.toBe(outage);
  };
  /** Checks that `read` sent the second fetch, and gets its result. */
  const secondFetchAnswers = async (read: Promise<T>, value: T) => {
    expect(pending).toHaveLength(2);
    await settle({ value });
    expect(await read).toBe(value);
  };
  return { list, fetches: () => pending.length, settle, readFailed, secondFetchAnswers };
}

describe("SharedList", () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it("answers reads with one result for 2 s after its request started", async () => {
    const { list, fetches, settle } = listOf<string>();
    const first = list.read();
    await settle({ value: "listed" });
    jest.advanceTimersByTime(2_000);

    expect(await Promise.all([first, list.read()])).toEqual(["listed", "listed"]);
    expect(fetches()).toBe(1);
    jest.advanceTimersByTime(1);
    void list.read();
    expect(fetches()).toBe(2);
  });

  it("answers every read that comes while it is in flight, however long its retries take", async () => {
    const { list, fetches, settle } = listOf<string>();
    const first = list.read();
    jest.advanceTimersByTime(25_000);
    const joined = list.read();

    expect(fetches()).toBe(1);
    await settle({ value: "listed" });
    expect(await Promise.all([first, joined])).toEqual(["listed", "listed"]);
  });

  it("answers the reads that come within 2 s after a failure with it, however long it took", async () => {
    const { list, fetches, readFailed, secondFetchAnswers } = listOf<string>();
    // The transport's retries take far longer than the list's 2 s.
    await readFailed(25_000);

    jest.advanceTimersByTime(2_000);
    await expect(list.read()).rejects.toBe(outage);
    expect(fetches()).toBe(1);

    jest.advanceTimersByTime(1);
    await secondFetchAnswers(list.read(), "listed");
  });

  it("starts afresh after a write, a failure shared or not", async () => {
    const { list, readFailed, secondFetchAnswers } = listOf<string>();
    await readFailed();

    await list.write(async () => "written");

    await secondFetchAnswers(list.read(), "listed");
  });

  it("neither shares a failure with a read that has a signal, nor its own", async () => {
    const { list, fetches, settle, readFailed, secondFetchAnswers } = listOf<string>();
    await readFailed();

    await secondFetchAnswers(list.read(new AbortController().signal), "listed");
    // The shared failure is still the one later readers meet.
    await expect(list.read()).rejects.toBe(outage);
    expect(fetches()).toBe(2);

    const withSignal = list.read(new AbortController().signal);
    await settle({ error: new Error("cancelled") });
    await expect(withSignal).rejects.toThrow("cancelled");
    jest.advanceTimersByTime(2_001);
    void list.read();
    expect(fetches()).toBe(4);
  });
});
