import { defaultRetryPolicy } from "../../provider/client";
import { useEmulator } from "../support/use-emulator";

// The service limits each endpoint per key and answers 429 without Retry-After. Every request
// class slows down and gets through, a create refused with 429 included, and nothing is sent
// twice that may have landed.
// Twelve lists at one a second take twelve seconds: a ceiling against hangs, not a timing goal.
jest.setTimeout(120_000);

describe("against the documented rate limits", () => {
  const h = useEmulator({ per: "test", rateLimits: "documented" });
  const client = () => h.newClient({ retryPolicy: defaultRetryPolicy });

  const statuses = async (path: string) =>
    (await h.emulator.requests()).filter((r) => r.path.startsWith(path)).map((r) => r.status);

  it("twelve lists at once (1 a second) all get through, with few refusals after the first", async () => {
    const c = client();
    const lists = await Promise.all(Array.from({ length: 12 }, () => c.instances.list()));
    expect(lists).toHaveLength(12);
    const seen = await statuses("/api/v1/instances/");
    expect(seen.filter((status) => status === 200)).toHaveLength(12);
    // Eleven of the twelve sent together are refused (no burst); from then on the client
    // spaces its lists at the documented pace, instead of retrying them into more refusals.
    expect(seen.filter((status) => status === 429).length).toBeLessThanOrEqual(11 + 1);
  });

  it("once refused anywhere, paces a documented endpoint from its first request: ten relabels at once (1 a second), none refused", async () => {
    const c = client();
    const ids = await Promise.all(
      Array.from({ length: 10 }, () => c.instances.create(31001, { image: "img", disk: 10 })),
    );
    // Ten rents at once (a burst of five): some are refused, and the client knows the key
    // is limited.
    expect(await statuses("/api/v0/asks/")).toContain(429);
    await Promise.all(ids.map((id) => c.instances.relabel(id, "handed over")));
    const relabels = (await h.emulator.requests()).filter(
      (request) => request.method === "PUT" && /^\/api\/v0\/instances\/\d+\/$/.test(request.path),
    );
    expect(relabels.map((request) => request.status)).toEqual(ids.map(() => 200));
    // A second apart at least, as the service counts them (its limit is a minimum interval).
    const arrivals = relabels.map((request) => request.atMs).sort((a, b) => a - b);
    for (let n = 1; n < arrivals.length; n++) {
      expect((arrivals[n] ?? 0) - (arrivals[n - 1] ?? 0)).toBeGreaterThanOrEqual(1000);
    }
  });

  it("twenty secret creates at once (3 a second): each stored once, none lost", async () => {
    const c = client();
    await Promise.all(Array.from({ length: 20 }, (_, n) => c.secrets.create(`RATE_${n}`, "v")));
    const stored = await h.emulator.secrets();
    expect(
      Object.keys(stored)
        .filter((key) => key.startsWith("RATE_"))
        .sort(),
    ).toEqual(Array.from({ length: 20 }, (_, n) => `RATE_${n}`).sort());
    const seen = await statuses("/api/v0/secrets/");
    expect(seen.filter((status) => status === 200)).toHaveLength(20);
    expect(seen.every((status) => status === 200 || status === 429)).toBe(true);
  });

  it("ten instance rents at once (4.5 a second): ten instances, not one more", async () => {
    const c = client();
    const ids = await Promise.all(
      Array.from({ length: 10 }, () => c.instances.create(31001, { image: "img", disk: 10 })),
    );
    expect(new Set(ids).size).toBe(10);
    expect((await h.emulator.state()).instances).toHaveLength(10);
  });
});
