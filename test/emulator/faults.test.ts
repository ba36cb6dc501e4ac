import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { INSTANCE_ASK_ID, createInstance, errorOf } from "./helpers";

const LogSchema = z.object({
  requests: z.array(
    z.object({
      seq: z.int(),
      method: z.string(),
      path: z.string(),
      status: z.int().nullable(),
      fault: z.string().optional(),
    }),
  ),
});

describe("fault injection", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  const log = async () =>
    LogSchema.parse((await emulator.control("GET", "/_emulator/requests")).body);
  const state = async () => (await emulator.control("GET", "/_emulator/state")).body;
  const setFaults = async (faults: object) => {
    expect((await emulator.control("PUT", "/_emulator/faults", faults)).status).toBe(200);
  };

  it("throttles with 429, no Retry-After and alternating plain-text and JSON bodies", async () => {
    const { call } = emulator;
    await setFaults({ tooManyRequests: { next: 2 } });
    const first = await call("POST", "/api/v0/secrets/", { key: "A", value: "1" });
    expect(first.status).toBe(429);
    expect(first.headers["retry-after"]).toBeUndefined();
    expect(first.headers["content-type"]).toMatch(/^text\/plain/);
    expect(first.text).toBe("API requests too frequent");

    const second = await call("POST", "/api/v0/secrets/", { key: "A", value: "1" });
    expect(second.status).toBe(429);
    expect(second.headers["retry-after"]).toBeUndefined();
    expect(second.body).toEqual({ detail: "API requests too frequent" });

    // Throttled requests changed nothing.
    expect(await state()).toMatchObject({ secrets: [] });
    expect((await call("POST", "/api/v0/secrets/", { key: "A", value: "1" })).status).toBe(200);
    expect((await log()).requests.map((r) => [r.status, r.fault])).toEqual([
      [429, "too_many_requests"],
      [429, "too_many_requests"],
      [200, undefined],
    ]);
  });

  it("fails only the listed methods with the configured server error", async () => {
    const { call } = emulator;
    await setFaults({ serverErrors: { rate: 1, methods: ["GET"] } });
    expect(errorOf(await call("GET", "/api/v0/secrets/"))).toEqual({
      status: 503,
      error: "server_error",
    });
    expect((await call("POST", "/api/v0/secrets/", { key: "B", value: "2" })).status).toBe(200);

    await setFaults({ serverErrors: { next: 1, status: 502 } });
    expect((await call("DELETE", "/api/v0/secrets/", { key: "B" })).status).toBe(502);
    expect(await state()).toMatchObject({ secrets: [{ key: "B" }] });
    expect((await call("DELETE", "/api/v0/secrets/", { key: "B" })).status).toBe(200);
  });

  it("fails only the listed paths", async () => {
    const { call } = emulator;
    await setFaults({ serverErrors: { next: 1, paths: ["/api/v0/webhooks/"] } });
    expect((await call("GET", "/api/v0/secrets/")).status).toBe(200);
    expect((await call("GET", "/api/v0/webhooks/")).status).toBe(503);
    expect((await call("GET", "/api/v0/webhooks/")).status).toBe(200);
  });

  it("drops a create before handling it: no instance exists", async () => {
    await setFaults({ drops: { next: 1, methods: ["PUT"] } });
    await expect(createInstance(emulator.call)).rejects.toThrow();
    expect(await state()).toMatchObject({ instances: [] });
    expect((await log()).requests).toEqual([
      {
        seq: 1,
        method: "PUT",
        path: `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`,
        status: 0,
        fault: "drop",
      },
    ]);
  });

  it("drops a create after handling it: the instance exists though no answer came", async () => {
    await setFaults({ drops: { next: 1, afterHandling: true } });
    await expect(createInstance(emulator.call)).rejects.toThrow();
    expect(await state()).toMatchObject({ instances: [{ id: 1000001 }] });
    expect((await log()).requests).toMatchObject([{ status: 0, fault: "drop_after_handling" }]);
    // The fault was used up: the next create answers normally.
    expect(await createInstance(emulator.call)).toBe(1000002);
  });

  it("draws rates from a seeded generator, so the same seed faults the same requests", async () => {
    const statuses = async () => {
      const seen: number[] = [];
      for (let n = 0; n < 30; n++)
        seen.push((await emulator.call("GET", "/api/v0/secrets/")).status);
      return seen;
    };
    await setFaults({ serverErrors: { rate: 0.5 }, seed: 7 });
    const first = await statuses();
    await setFaults({ serverErrors: { rate: 0.5 }, seed: 7 });
    expect(await statuses()).toEqual(first);
    expect(first).toContain(503);
    expect(first).toContain(200);
  });

  it("delays requests by latencyMs and leaves control routes alone", async () => {
    await setFaults({ latencyMs: 50, serverErrors: { rate: 1 } });
    const started = performance.now();
    expect((await emulator.call("GET", "/api/v0/users/current/")).status).toBe(503);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect((await emulator.control("GET", "/_emulator/faults")).body).toMatchObject({
      faults: { latencyMs: 50 },
    });
    expect((await emulator.control("DELETE", "/_emulator/faults")).status).toBe(200);
    expect((await emulator.call("GET", "/api/v0/users/current/")).status).toBe(200);
  });

  it.each([
    [{ serverErrors: { rate: 2 } }],
    [{ serverErrors: { status: 501 } }],
    [{ drops: { next: -1 } }],
    [{ tooManyRequests: { methods: "GET" } }],
  ])("rejects the fault settings %j", async (faults) => {
    expect(errorOf(await emulator.control("PUT", "/_emulator/faults", faults))).toEqual({
      status: 400,
      error: "invalid_args",
    });
  });
});
