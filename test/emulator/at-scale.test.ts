import { setTimeout as delay } from "node:timers/promises";
import { request } from "undici";
import { startEmulator } from "../../emulator";
import { bootTimingOf } from "../../emulator/instances/lifecycle";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { API_KEY, createInstance, errorOf, showInstance } from "./helpers";

// The emulator as the service is at scale: documented rate limits, boots in wall-clock time,
// and a market to rent a fleet from by default.

describe("rate limits as documented", () => {
  let emulator: TestEmulator;
  beforeEach(async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, rateLimits: "documented" });
    await emulator.control("POST", "/_emulator/keys", { key: "second-key" });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("refuses a request over an endpoint's threshold, per key, in the documented forms, without Retry-After", async () => {
    // The instance list's threshold is 1.0: one request a second, no burst.
    const first = await emulator.call("GET", "/api/v1/instances/");
    expect(first.status).toBe(200);
    const refused = [];
    for (let n = 0; n < 3; n++) refused.push(await emulator.call("GET", "/api/v1/instances/"));
    expect(refused.map((reply) => reply.status)).toEqual([429, 429, 429]);
    expect(refused.map((reply) => reply.headers["retry-after"])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(refused.map((reply) => reply.text)).toEqual([
      "API requests too frequent",
      "API requests too frequent: endpoint threshold=1.0",
      JSON.stringify({ detail: "API requests too frequent endpoint threshold=1.0" }),
    ]);
    // Another key has its own allowance; another endpoint too.
    expect((await emulator.call("GET", "/api/v1/instances/", undefined, "second-key")).status).toBe(
      200,
    );
    expect((await emulator.call("GET", "/api/v0/secrets/")).status).toBe(200);
    // An endpoint the description gives no limit for is never refused.
    for (let n = 0; n < 10; n++)
      expect((await emulator.call("GET", "/api/v0/webhooks/")).status).toBe(200);
  });

  it("allows a burst of ⌈threshold⌉ and refuses the rest, changing nothing", async () => {
    // Secret creates: threshold 3.0.
    const statuses = [];
    for (let n = 0; n < 5; n++) {
      statuses.push(
        (await emulator.call("POST", "/api/v0/secrets/", { key: `K${n}`, value: "v" })).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const state = (await emulator.control("GET", "/_emulator/state")).body as {
      secrets: { key: string }[];
    };
    expect(state.secrets.map((secret) => secret.key)).toEqual(["K0", "K1", "K2"]);
    // Destroy instance answers with its documented error object.
    const ids = [];
    for (let n = 0; n < 4; n++) ids.push(await createInstance(emulator.call));
    const destroys = [];
    for (const id of ids) destroys.push(await emulator.call("DELETE", `/api/v0/instances/${id}/`));
    expect(destroys.map((reply) => reply.status)).toEqual([200, 200, 200, 429]);
    // The third refusal of the key (after the two above) takes the endpoint's JSON form.
    expect(destroys[3]?.body).toEqual({
      success: false,
      error: "rate_limit_exceeded",
      msg: "API requests too frequent endpoint threshold=3.0",
    });
  });

  it("answers every request without a key 401, never 429, leaving each key's allowance whole", async () => {
    // The instance list allows one request a second: one bucket for them all would refuse most.
    const keyless = [];
    for (let n = 0; n < 5; n++) {
      keyless.push(await emulator.call("GET", "/api/v1/instances/", undefined, null));
    }
    expect(keyless.map(errorOf)).toEqual(Array(5).fill({ status: 401, error: "unauthorized" }));
    expect((await emulator.call("GET", "/api/v1/instances/")).status).toBe(200);
    // A key, even an unknown one, is limited before auth reads it, as documented.
    const unknown = [];
    for (let n = 0; n < 2; n++) {
      unknown.push(await emulator.call("GET", "/api/v1/instances/", undefined, "no-such-key"));
    }
    expect(unknown.map((reply) => reply.status)).toEqual([401, 429]);
  });

  it("refills at the threshold's rate", async () => {
    expect((await emulator.call("GET", "/api/v1/instances/")).status).toBe(200);
    expect((await emulator.call("GET", "/api/v1/instances/")).status).toBe(429);
    // One token a second: waiting is what the limit asks for.
    await delay(1_050);
    expect((await emulator.call("GET", "/api/v1/instances/")).status).toBe(200);
  });
});

describe("boots in wall-clock time", () => {
  it("runs once its boot seconds have passed, however few polls it had", async () => {
    const emulator = await startTestEmulator({ apiKey: API_KEY, bootSeconds: 2 });
    try {
      const id = await createInstance(emulator.call);
      // Created before its reply: two seconds from now have passed for it too.
      const replied = Date.now();
      expect((await showInstance(emulator.call, id))?.actual_status).not.toBe("running");
      await delay(Math.max(0, replied + 2_050 - Date.now()));
      // The second poll only: the boot counted time, not polls.
      expect((await showInstance(emulator.call, id))?.actual_status).toBe("running");
    } finally {
      await emulator.close();
    }
  });

  it("spreads boots by the jitter, the same for the same instance and seed", () => {
    const settings = { bootPolls: 2, bootSeconds: 20, bootJitterSeconds: 5, seed: 7 };
    const times = Array.from({ length: 50 }, (_, n) => bootTimingOf(settings, 1_000_001 + n));
    const seconds = times.map((timing) => timing.afterSeconds ?? -1);
    expect(Math.min(...seconds)).toBeGreaterThanOrEqual(15);
    expect(Math.max(...seconds)).toBeLessThanOrEqual(25);
    expect(new Set(seconds).size).toBeGreaterThan(40);
    expect(times.every((timing) => timing.afterPolls === 0)).toBe(true);
    expect(bootTimingOf(settings, 1_000_001)).toEqual(times[0]);
    expect(bootTimingOf({ ...settings, bootSeconds: undefined }, 1)).toEqual({ afterPolls: 2 });
  });
});

describe("the market by default", () => {
  it("lists hundreds of generated offers beside the seeded asks; market: false lists the seeded ones alone", async () => {
    const count = async (options: { market?: false }) => {
      const emulator = await startEmulator({ apiKey: API_KEY, port: 0, ...options });
      try {
        const reply = await request(`${emulator.url}/api/v0/bundles/`, {
          method: "POST",
          headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ limit: 1000 }),
        });
        const body = (await reply.body.json()) as { offers: { id: number }[] };
        return body.offers.map((offer) => offer.id);
      } finally {
        await emulator.close();
      }
    };
    const market = await count({});
    expect(market.length).toBeGreaterThan(200);
    expect(market).toEqual(expect.arrayContaining([31001, 31002, 31003, 31004]));
    expect((await count({ market: false })).sort()).toEqual([31001, 31002, 31003, 31004]);
  });
});
