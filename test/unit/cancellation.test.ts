import { getMaxListeners } from "node:events";
import { Cancellation, CancelledError, neverCancelled } from "../../provider/run/cancellation";
import type { GpuCloudClient, Instance } from "../../provider/client";
import { pollUntil, watchInstance } from "../../provider/shared/polling";
import { destroyAfterCancel } from "../../provider/renting/destroy";
import { releaseWorkers, WorkersLeftError } from "../../provider/serverless/release";
import { Run } from "../../provider/run/run";

// The engine's Cancel (the native plugin's) stops every wait of the run at once; a wait given
// its own signal (the cleanup after a cancellation) runs on. The dynamic provider never
// cancels: waits behave as before (the other unit and contract tests).

/** A client whose status reads answer after `readMs`, counting them. */
function fakeClient(readMs: number, status = "loading") {
  let reads = 0;
  const client = {
    instances: {
      nextStatus: async (id: number): Promise<Instance | undefined> => {
        reads++;
        await new Promise((resolve) => setTimeout(resolve, readMs).unref());
        const row: Instance = { id, actual_status: status };
        return row;
      },
    },
  } as unknown as GpuCloudClient;
  return { client, reads: () => reads };
}

/** Each test's run's cancellation, as the native plugin's Cancel fires it. */
let cancellation = new Cancellation();
const cancelWaits = () => {
  cancellation.cancel();
};
beforeEach(() => {
  cancellation = new Cancellation();
});

describe("pollUntil under cancellation", () => {
  it("stops mid-sleep, at once, and probes no more", async () => {
    let probes = 0;
    const started = Date.now();
    const polled = pollUntil(
      async () => {
        probes++;
        return undefined;
      },
      {
        initialIntervalMs: 5_000,
        maxIntervalMs: 5_000,
        deadlineMs: Date.now() + 60_000,
        signal: cancellation.signal,
      },
    );
    setTimeout(cancelWaits, 50);
    await expect(polled).rejects.toThrow(CancelledError);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(probes).toBe(1);
  });

  it("stops while a probe is in flight", async () => {
    const started = Date.now();
    const polled = pollUntil(() => new Promise<undefined>(() => undefined), {
      initialIntervalMs: 10,
      maxIntervalMs: 10,
      deadlineMs: Date.now() + 60_000,
      signal: cancellation.signal,
    });
    setTimeout(cancelWaits, 50);
    await expect(polled).rejects.toThrow(CancelledError);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("makes no probe once cancelled", async () => {
    cancelWaits();
    expect(cancellation.isCancelled).toBe(true);
    let probes = 0;
    await expect(
      pollUntil(
        async () => {
          probes++;
          return 1;
        },
        {
          initialIntervalMs: 10,
          maxIntervalMs: 10,
          deadlineMs: Date.now() + 1_000,
          signal: cancellation.signal,
        },
      ),
    ).rejects.toThrow(CancelledError);
    expect(probes).toBe(0);
  });

  it("runs on, to its value, with a signal of its own", async () => {
    cancelWaits();
    let probes = 0;
    const value = await pollUntil(async () => (++probes >= 3 ? "found" : undefined), {
      initialIntervalMs: 5,
      maxIntervalMs: 5,
      deadlineMs: Date.now() + 5_000,
      signal: neverCancelled(),
    });
    expect(value).toBe("found");
  });

  it("is not cancelled when nothing cancels (the dynamic provider)", async () => {
    let probes = 0;
    const value = await pollUntil(async () => (++probes >= 2 ? probes : undefined), {
      initialIntervalMs: 5,
      maxIntervalMs: 5,
      deadlineMs: Date.now() + 5_000,
      signal: cancellation.signal,
    });
    expect(value).toBe(2);
    expect(cancellation.isCancelled).toBe(false);
  });
});

describe("watchInstance under cancellation", () => {
  it("stops mid-read, at once", async () => {
    const { client, reads } = fakeClient(5_000);
    const started = Date.now();
    const watched = watchInstance(
      client,
      7,
      100,
      Date.now() + 60_000,
      () => undefined,
      cancellation.signal,
    );
    setTimeout(cancelWaits, 50);
    await expect(watched).rejects.toThrow(CancelledError);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(reads()).toBe(1);
  });

  it("stops between reads and reads no more", async () => {
    const { client, reads } = fakeClient(10);
    const watched = watchInstance(
      client,
      7,
      10,
      Date.now() + 60_000,
      () => undefined,
      cancellation.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    cancelWaits();
    await expect(watched).rejects.toThrow(CancelledError);
    const after = reads();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reads()).toBe(after);
  });

  it("reads nothing once cancelled", async () => {
    cancelWaits();
    const { client, reads } = fakeClient(10);
    await expect(
      watchInstance(client, 7, 10, Date.now() + 1_000, () => true, cancellation.signal),
    ).rejects.toThrow(CancelledError);
    expect(reads()).toBe(0);
  });

  it("runs on with a signal of its own, to its value or its deadline", async () => {
    cancelWaits();
    const { client } = fakeClient(10, "running");
    const decide = (instance: Instance | undefined) =>
      instance?.actual_status === "running" ? instance.id : undefined;
    await expect(
      watchInstance(client, 7, 10, Date.now() + 1_000, decide, neverCancelled()),
    ).resolves.toBe(7);
    const slow = fakeClient(5_000).client;
    await expect(
      watchInstance(slow, 7, 10, Date.now() + 100, decide, neverCancelled()),
    ).resolves.toBeUndefined();
  });
});

describe("the bounded cleanup after a cancellation", () => {
  /** A client whose destroy answers after `destroyMs` (or when its signal fires) and whose
   * instance stays listed until `goneAfterMs` after the destroy. */
  function destroyingClient(destroyMs: number, goneAfterMs: number) {
    let destroyedAt: number | undefined;
    const client = {
      instances: {
        destroy: (_id: number, signal?: AbortSignal) =>
          new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => {
              destroyedAt = Date.now();
              resolve();
            }, destroyMs);
            signal?.addEventListener("abort", () => {
              clearTimeout(timer);
              reject(new Error("aborted"));
            });
          }),
        nextStatus: async (id: number, intervalMs: number) => {
          await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, 20)).unref());
          const gone = destroyedAt !== undefined && Date.now() - destroyedAt >= goneAfterMs;
          return gone ? undefined : ({ id, actual_status: "loading" } as Instance);
        },
      },
    } as unknown as GpuCloudClient;
    return client;
  }

  it("destroys and confirms, although the operation is cancelled", async () => {
    cancelWaits();
    await expect(destroyAfterCancel(destroyingClient(10, 50), 7, 2_000)).resolves.toBe(true);
  });

  it("gives up at its bound when the destroy does not answer", async () => {
    const started = Date.now();
    await expect(destroyAfterCancel(destroyingClient(60_000, 0), 7, 300)).resolves.toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("gives up at its bound when the instance stays listed", async () => {
    const started = Date.now();
    await expect(destroyAfterCancel(destroyingClient(10, 60_000), 7, 300)).resolves.toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe("a worker release cancelled", () => {
  it("fails at once, naming the worker instances that may remain", async () => {
    const client = {
      instances: {
        destroy: async () => undefined,
        nextStatus: (id: number, _intervalMs: number, signal?: AbortSignal) =>
          new Promise<Instance | undefined>((resolve, reject) => {
            const timer = setTimeout(() => {
              resolve({ id });
            }, 60_000);
            signal?.addEventListener("abort", () => {
              clearTimeout(timer);
              reject(new Error("aborted"));
            });
          }),
      },
    } as unknown as GpuCloudClient;
    const run = new Run({ client, progress: () => undefined });
    const released = releaseWorkers(
      run,
      "worker group 12",
      { success: true, deleted_workers: [101], failed_workers: [102] },
      { intervalMs: 1_000, timeoutMs: 600_000 },
    );
    setTimeout(() => {
      run.cancellation.cancel();
    }, 50);
    const started = Date.now();
    const error = await released.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(error).toBeInstanceOf(WorkersLeftError);
    expect((error as WorkersLeftError).instanceIds.sort()).toEqual([101, 102]);
    expect((error as Error).message).toMatch(
      /^cancelled: worker group 12 was deleted, but 2 of its worker instances may remain on the account:\nworker instance 102 \(destroyed, then cancelled before it was confirmed gone\)/,
    );
    expect((error as Error).message).toContain(
      "worker instance 101 (cancelled before it was confirmed gone): if it is still there, " +
        "destroy it yourself",
    );
  });
});

describe("many waits at once", () => {
  it("raise no listener-leak warning (a fleet waits on hundreds)", () => {
    // Each wait in flight listens to the run's signal: Node's limit of 10 is off for it.
    expect(getMaxListeners(cancellation.signal)).toBe(0);
    expect(getMaxListeners(neverCancelled())).toBe(0);
    expect(getMaxListeners(new Cancellation().signal)).toBe(0);
  });
});
