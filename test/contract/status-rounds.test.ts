import { waitUntilRunning } from "../../provider/renting/boot";
import { destroyAndConfirm } from "../../provider/renting/destroy";
import { Run } from "../../provider/run/run";
import { useEmulator } from "../support/use-emulator";

// Instances waited on in one process share their status reads: one list request a round (up to
// 25 of them, those waiting longest), not a show per instance.
describe("shared status rounds", () => {
  const h = useEmulator({ per: "test", bootPolls: 3 });
  /** A run that is never cancelled: these waits end by the instances alone. */
  const uncancelled = new AbortController().signal;

  const rent = (count: number) =>
    Promise.all(
      Array.from({ length: count }, () =>
        h.client.instances.create(31001, { image: "img", disk: 10 }),
      ),
    );
  const statusReads = async () => {
    const requests = await h.emulator.requests();
    return {
      lists: requests.filter((r) => r.method === "GET" && r.path.startsWith("/api/v1/instances/")),
      shows: requests.filter(
        (r) => r.method === "GET" && /^\/api\/v0\/instances\/\d+\//.test(r.path),
      ),
    };
  };

  it("30 booting instances are read by one list of up to 25 a round, and no show", async () => {
    const ids = await rent(30);
    await h.emulator.clearRequests();

    const outcomes = await Promise.all(
      ids.map((id) =>
        waitUntilRunning(h.client, id, Date.now() + 30_000, 0.05, () => undefined, uncancelled),
      ),
    );

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(ids.map(() => "running"));
    const { lists, shows } = await statusReads();
    expect(shows).toEqual([]);
    // Three polls to boot (every list that holds an instance is a poll of it): 90 reads in lists
    // of at most 25 ids, the first 25 rented read first (two pages a round took six lists).
    const listedIds = lists.map((r) => {
      const filter = new URL(r.path, h.emulator.url).searchParams.get("select_filters");
      return (JSON.parse(filter ?? "null") as { id: { in: number[] } }).id.in.length;
    });
    expect(listedIds).toEqual([25, 25, 25, 10, 5]);
  });

  it("an instance the list does not hold is shown by id: gone is told apart", async () => {
    const [kept, gone] = await rent(2);
    await h.client.instances.destroy(gone ?? 0);
    await h.emulator.clearRequests();

    const outcomes = await Promise.all(
      [kept, gone].map((id) =>
        waitUntilRunning(
          h.client,
          id ?? 0,
          Date.now() + 30_000,
          0.05,
          () => undefined,
          uncancelled,
        ),
      ),
    );

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["running", "gone"]);
    const { shows } = await statusReads();
    expect(shows.map((r) => r.path)).toEqual([`/api/v0/instances/${gone}/?owner=me`]);
  });

  it("a list that fails leaves each instance to its own show, and the wait goes on", async () => {
    const ids = await rent(3);
    await h.emulator.setFaults({
      serverErrors: { status: 500, methods: ["GET"], paths: ["/api/v1/instances/"], rate: 1 },
    });
    await h.emulator.clearRequests();

    const outcomes = await Promise.all(
      ids.map((id) =>
        waitUntilRunning(h.client, id, Date.now() + 30_000, 0.05, () => undefined, uncancelled),
      ),
    );

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["running", "running", "running"]);
    expect((await statusReads()).shows.length).toBeGreaterThanOrEqual(3 * 3);
  });

  it("destroys confirm together: 30 at once take a few lists and one show each", async () => {
    const ids = await rent(30);
    await h.emulator.clearRequests();

    const run = new Run({ client: h.client });
    const confirmed = await Promise.all(ids.map((id) => destroyAndConfirm(run, id, 0.05)));

    expect(confirmed.every(Boolean)).toBe(true);
    const { lists, shows } = await statusReads();
    // Not listed any more: each is shown once, to tell gone from not listed yet.
    expect(lists.length).toBeLessThanOrEqual(10);
    expect(shows.length).toBe(30);
  });
});
