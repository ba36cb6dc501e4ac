import { type Method, type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, errorOf } from "./helpers";

describe("authentication and scopes", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, allowUndocumented: true });
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("answers 401 without a key, with a wrong key and with a revoked key", async () => {
    const { call, control } = emulator;
    const unauthorized = { status: 401, error: "unauthorized" };
    expect(errorOf(await call("GET", "/api/v0/users/current/", undefined, null))).toEqual(
      unauthorized,
    );
    expect(errorOf(await call("GET", "/api/v0/secrets/", undefined, "wrong-key"))).toEqual(
      unauthorized,
    );

    await control("POST", "/_emulator/keys", { key: "second-key" });
    expect((await call("GET", "/api/v0/secrets/", undefined, "second-key")).status).toBe(200);
    expect((await control("DELETE", "/_emulator/keys/second-key")).status).toBe(200);
    expect(errorOf(await call("GET", "/api/v0/secrets/", undefined, "second-key"))).toEqual(
      unauthorized,
    );
    expect(errorOf(await control("DELETE", "/_emulator/keys/second-key"))).toEqual({
      status: 404,
      error: "no_such_key",
    });
  });

  it("answers 403 naming the missing category for a scoped key", async () => {
    const { call, control } = emulator;
    await control("POST", "/_emulator/keys", {
      key: "reader",
      permissions: { api: { user_read: {}, instance_read: {} } },
    });
    expect((await call("GET", "/api/v0/users/current/", undefined, "reader")).status).toBe(200);
    expect((await call("GET", "/api/v1/instances/", undefined, "reader")).status).toBe(200);

    const denied = await call("PUT", "/api/v0/asks/31001/", { image: "x", disk: 8 }, "reader");
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      success: false,
      error: "forbidden",
      msg: "This API key lacks the instance_write permission needed for PUT /api/v0/asks/31001/",
    });
    expect(errorOf(await call("GET", "/api/v0/secrets/", undefined, "reader"))).toEqual({
      status: 403,
      error: "forbidden",
    });
  });

  it("maps each endpoint to its category", async () => {
    const { call, control } = emulator;
    const cases: [string, Method, string][] = [
      ["user_read", "GET", "/api/v0/users/current/"],
      ["instance_read", "GET", "/api/v0/instances/1/?owner=me"],
      ["instance_read", "GET", "/api/v1/instances/"],
      ["instance_read", "GET", "/api/v0/volumes/?owner=me&type=all_volume"],
      ["instance_read", "POST", "/api/v0/bundles/"],
      ["instance_read", "POST", "/api/v0/volumes/search/"],
      ["instance_write", "PUT", "/api/v0/asks/1/"],
      ["instance_write", "PUT", "/api/v0/asks/1/"],
      ["instance_write", "DELETE", "/api/v0/instances/1/"],
      ["instance_write", "PUT", "/api/v0/instances/1/"],
      ["instance_write", "PUT", "/api/v0/volumes/"],
      ["instance_write", "DELETE", "/api/v0/volumes/?id=1"],
      ["instance_write", "PUT", "/api/v0/commands/copy_direct/"],
      ["instance_write", "DELETE", "/api/v0/commands/rsync/"],
      ["instance_write", "DELETE", "/api/v0/commands/copy_direct/"],
      ["misc", "GET", "/api/v0/secrets/"],
      ["misc", "POST", "/api/v0/secrets/"],
      ["misc", "PUT", "/api/v0/secrets/"],
      ["misc", "DELETE", "/api/v0/secrets/"],
      ["misc", "GET", "/api/v0/webhooks/"],
      ["misc", "POST", "/api/v0/webhooks/"],
      ["misc", "PUT", "/api/v0/webhooks/1/"],
      ["misc", "DELETE", "/api/v0/webhooks/1/"],
      ["user_read", "GET", "/api/v0/ssh/"],
      ["user_write", "POST", "/api/v0/ssh/"],
      ["user_write", "PUT", "/api/v0/ssh/1/"],
      ["user_write", "DELETE", "/api/v0/ssh/1/"],
      ["instance_read", "GET", "/api/v0/instances/1/ssh/"],
      ["instance_write", "POST", "/api/v0/instances/1/ssh/"],
      ["instance_write", "DELETE", "/api/v0/instances/1/ssh/1/"],
      ["user_read", "GET", "/api/v0/auth/apikeys/"],
      ["user_write", "POST", "/api/v0/auth/apikeys/"],
      ["user_write", "DELETE", "/api/v0/auth/apikeys/999/"],
    ];
    const categories = ["misc", "user_read", "user_write", "instance_read", "instance_write"];
    for (const category of categories) {
      const granted = categories
        .filter((c) => c !== category)
        .map((c): [string, object] => [c, {}]);
      await control("POST", "/_emulator/keys", {
        key: `without-${category}`,
        permissions: { api: Object.fromEntries(granted) },
      });
    }
    for (const [category, method, path] of cases) {
      const body = method === "GET" ? undefined : {};
      const reply = await call(method, path, body, `without-${category}`);
      expect({ method, path, status: reply.status }).toEqual({ method, path, status: 403 });
      expect(reply.text).toContain(`lacks the ${category} permission`);
      // Every other key may use the endpoint: the mapping is exact, not merely restrictive.
      for (const other of categories.filter((c) => c !== category)) {
        const allowed = await call(method, path, body, `without-${other}`);
        expect({ method, path, other, status: allowed.status }).not.toMatchObject({ status: 403 });
      }
    }
  });

  it("echoes the key only in users/current's api_key", async () => {
    const { call, control } = emulator;
    expect((await call("GET", "/api/v0/users/current/")).body).toEqual({
      id: 1,
      key_id: 1,
      email: "dev@example.com",
      credit: 100,
      balance: 0,
      ssh_key: "",
      sid: expect.stringMatching(/^[0-9a-f]{32}$/) as string,
      api_key: API_KEY,
    });
    const others = [
      await call("GET", "/api/v0/secrets/"),
      await call("POST", "/api/v0/secrets/", { key: "A", value: "b" }),
      await call("POST", "/api/v0/secrets/", {}),
      await call("GET", "/api/v0/webhooks/"),
      await call("POST", "/api/v0/webhooks/", { webhook_url: "http://x" }),
      await call("GET", "/api/v1/instances/"),
      await call("PUT", "/api/v0/asks/31001/", { image: "i", disk: 10 }),
      await call("GET", "/api/v0/nope/"),
      await call("PUT", "/api/v0/volumes/", { id: 1 }),
      await call("GET", "/api/v0/secrets/", undefined, "wrong"),
      await call("GET", "/api/v0/auth/apikeys/"),
      await call("POST", "/api/v0/auth/apikeys/", { permissions: { api: { nope: {} } } }),
      await call("DELETE", "/api/v0/auth/apikeys/99/"),
      await control("GET", "/_emulator/state"),
      await control("GET", "/_emulator/requests"),
    ];
    for (const reply of others) expect(reply.text).not.toContain(API_KEY);
  });

  it("rejects a non-Bearer Authorization header", async () => {
    const reply = await emulator.raw("GET", "/api/v0/users/current/", {
      authorization: `Basic ${API_KEY}`,
    });
    expect(errorOf(reply)).toEqual({ status: 401, error: "unauthorized" });
    expect(reply.text).not.toContain(API_KEY);
  });

  it("answers a body that is not JSON with a 400 error body", async () => {
    const reply = await emulator.raw(
      "POST",
      "/api/v0/secrets/",
      { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      "{not json",
    );
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_json" });
  });

  it("answers paths without the trailing slash too", async () => {
    const { call } = emulator;
    expect((await call("GET", "/api/v0/users/current")).status).toBe(200);
    expect((await call("GET", "/api/v0/secrets")).status).toBe(200);
    expect((await call("GET", "/api/v0/instances/1000001?owner=me")).body).toEqual({
      instances: null,
    });
  });

  it("answers unknown routes with 404 not_found", async () => {
    expect(errorOf(await emulator.call("GET", "/api/v0/nothing-here/"))).toEqual({
      status: 404,
      error: "not_found",
    });
    expect(errorOf(await emulator.call("GET", "/api/v0/nothing-here/", undefined, null))).toEqual({
      status: 401,
      error: "unauthorized",
    });
    expect(errorOf(await emulator.control("GET", "/elsewhere"))).toEqual({
      status: 404,
      error: "not_found",
    });
  });
});
