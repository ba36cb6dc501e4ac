import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, INSTANCE_ASK_ID, createInstance, errorOf } from "./helpers";

describe("test controls", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("logs /api/ requests with method, path, query and status, and nothing else", async () => {
    const { call, control } = emulator;
    await call("POST", "/api/v0/secrets/", { key: "LOGGED", value: "hidden-value" });
    await call("GET", "/api/v0/volumes/?owner=me&type=all_volume");
    await call("GET", "/api/v0/secrets/", undefined, null);
    await control("GET", "/_emulator/state");

    const logged = await control("GET", "/_emulator/requests");
    expect(logged.body).toEqual({
      requests: [
        {
          seq: 1,
          atMs: expect.any(Number) as number,
          method: "POST",
          path: "/api/v0/secrets/",
          status: 200,
        },
        {
          seq: 2,
          atMs: expect.any(Number) as number,
          method: "GET",
          path: "/api/v0/volumes/?owner=me&type=all_volume",
          status: 200,
        },
        {
          seq: 3,
          atMs: expect.any(Number) as number,
          method: "GET",
          path: "/api/v0/secrets/",
          status: 401,
        },
      ],
      undocumented: 0,
    });
    expect(logged.text).not.toContain("hidden-value");
    expect(logged.text).not.toContain(API_KEY);

    expect((await control("DELETE", "/_emulator/requests")).status).toBe(200);
    expect((await control("GET", "/_emulator/requests")).body).toEqual({
      requests: [],
      undocumented: 0,
    });
  });

  it("sets the user", async () => {
    const { call, control } = emulator;
    const updated = await control("PUT", "/_emulator/user", {
      ssh_key: "ssh-ed25519 AAAA me",
      credit: 12.5,
      email: "ci@example.com",
    });
    expect(updated.status).toBe(200);
    expect((await call("GET", "/api/v0/users/current/")).body).toMatchObject({
      id: 1,
      email: "ci@example.com",
      credit: 12.5,
      ssh_key: "ssh-ed25519 AAAA me",
    });
    expect(errorOf(await control("PUT", "/_emulator/user", { credit: "lots" }))).toEqual({
      status: 400,
      error: "invalid_args",
    });
  });

  it("replaces the asks", async () => {
    const { call, control } = emulator;
    const replaced = await control("PUT", "/_emulator/asks", {
      instanceAsks: [
        {
          id: 77,
          gpuName: "T4",
          numGpus: 1,
          gpuRamMb: 16384,
          dollarsPerHour: 0.1,
          diskGb: 50,
          geolocation: "Nowhere, XX",
        },
      ],
      volumeAsks: [{ id: 88, diskGb: 10, storageCostPerGbMonth: 0.2, geolocation: "Nowhere, XX" }],
    });
    expect(replaced.status).toBe(200);
    expect((await call("POST", "/api/v0/bundles/", {})).body).toMatchObject({
      offers: [{ id: 77, gpu_name: "T4", gpu_ram: 16384 }],
    });
    expect((await call("POST", "/api/v0/volumes/search/", {})).body).toMatchObject({
      offers: [{ id: 88, disk_space: 10, storage_cost: 0.2, geolocation: "Nowhere, XX" }],
    });
    const stale = await call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, {
      image: "x",
      disk: 10,
    });
    expect(errorOf(stale)).toEqual({ status: 404, error: "no_such_ask" });
    expect((await call("PUT", "/api/v0/asks/77/", { image: "x", disk: 10 })).status).toBe(200);
    expect(errorOf(await control("PUT", "/_emulator/asks", { volumeAsks: [{ id: 1 }] }))).toEqual({
      status: 400,
      error: "invalid_args",
    });
  });

  it("queues boot outcomes and clears the queue", async () => {
    const { control } = emulator;
    const queued = await control("PUT", "/_emulator/boots", {
      outcomes: [{ status: "unknown" }, { status: "exited", afterPolls: 0 }],
    });
    expect(queued.body).toEqual({ success: true, queued: 2 });
    expect((await control("GET", "/_emulator/state")).body).toMatchObject({
      bootQueue: [{ status: "unknown" }, { status: "exited", afterPolls: 0 }],
    });
    expect((await control("DELETE", "/_emulator/boots")).status).toBe(200);
    expect((await control("GET", "/_emulator/state")).body).toMatchObject({ bootQueue: [] });
    expect(
      errorOf(await control("PUT", "/_emulator/boots", { outcomes: [{ status: "stopped" }] })),
    ).toEqual({ status: 400, error: "invalid_args" });
  });

  it("resets resources, log, faults and boots but keeps keys, user and asks", async () => {
    const { call, control } = emulator;
    await control("POST", "/_emulator/keys", { key: "kept-key" });
    await control("PUT", "/_emulator/user", { email: "kept@example.com" });
    await control("PUT", "/_emulator/boots", { outcomes: [{ status: "exited" }] });
    await call("POST", "/api/v0/secrets/", { key: "GONE", value: "x" });
    await call("POST", "/api/v0/webhooks/", {
      webhook_url: "https://example.com/h",
      event_types: ["client:low_credit"],
    });
    await call("PUT", "/api/v0/volumes/", { id: 21001, size: 10 });
    await createInstance(call);
    await control("PUT", "/_emulator/faults", { latencyMs: 5 });

    expect((await control("POST", "/_emulator/reset")).body).toEqual({ success: true });

    expect((await control("GET", "/_emulator/state")).body).toMatchObject({
      user: { email: "kept@example.com" },
      secrets: [],
      webhooks: [],
      volumes: [],
      instances: [],
      copies: [],
      bootQueue: [],
      instanceAsks: [{ id: INSTANCE_ASK_ID }, {}, {}, {}],
    });
    expect((await control("GET", "/_emulator/requests")).body).toEqual({
      requests: [],
      undocumented: 0,
    });
    expect((await control("GET", "/_emulator/faults")).body).toEqual({ faults: {} });
    expect((await call("GET", "/api/v0/secrets/", undefined, "kept-key")).status).toBe(200);
    // Ids start over, and the cleared boot queue no longer applies.
    const id = await createInstance(call);
    expect(id).toBe(1000001);
    expect((await control("GET", "/_emulator/state")).body).toMatchObject({
      instances: [{ boot: { status: "running" } }],
    });
  });
});
