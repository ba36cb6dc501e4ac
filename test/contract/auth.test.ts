import { inspect } from "node:util";
import { useEmulator } from "../support/use-emulator";
import { everyRendering, failureOf, summary } from "./harness";

const WRONG_KEY = "wrong-key-7c1d9e0b5a";
const EXTRA_KEY = "extra-key-41f0aa2c9d";
const SCOPED_KEY = "scoped-key-9b3e77d1c2";

describe("authentication", () => {
  const h = useEmulator({ per: "test" });

  it("refuses a wrong key with 401, naming the endpoint and never the key", async () => {
    const client = h.newClient({ apiKey: WRONG_KEY });

    const error = await failureOf(client.users.current());

    expect(error).toMatchObject({
      status: 401,
      endpoint: "GET /api/v0/users/current/",
      isAuthError: true,
      mayHaveCreated: false,
    });
    expect(error.message).toContain("GET /api/v0/users/current/");
    expect(error.message).toMatch(/wrong or has been revoked/);
    expect(everyRendering(error)).not.toContain(WRONG_KEY);
    expect(inspect(error, { showHidden: true, depth: 10 })).not.toContain(WRONG_KEY);
    expect(everyRendering(error)).not.toContain(h.emulator.apiKey);
  });

  it("a logged client never shows its key", () => {
    const client = h.newClient({ apiKey: WRONG_KEY });

    expect(JSON.stringify(client)).not.toContain(WRONG_KEY);
    expect(inspect(client, { depth: Infinity, showHidden: true })).not.toContain(WRONG_KEY);
  });

  it("refuses a revoked key with 401", async () => {
    await h.emulator.addKey(EXTRA_KEY);
    const client = h.newClient({ apiKey: EXTRA_KEY });
    expect((await client.users.current()).id).toBe(1);

    await h.emulator.revokeKey(EXTRA_KEY);
    const error = await failureOf(client.users.current());

    expect(error).toMatchObject({ status: 401, endpoint: "GET /api/v0/users/current/" });
    expect(error.message).toMatch(/wrong or has been revoked/);
    expect(everyRendering(error)).not.toContain(EXTRA_KEY);
  });

  it("refuses a scoped key outside its categories with 403, naming the endpoint", async () => {
    await h.emulator.addKey(SCOPED_KEY, { api: { user_read: {} } });
    const client = h.newClient({ apiKey: SCOPED_KEY });
    expect((await client.users.current()).email).toBe("dev@example.com");

    const error = await failureOf(client.secrets.list());

    expect(error).toMatchObject({
      status: 403,
      code: "forbidden",
      endpoint: "GET /api/v0/secrets/",
      isAuthError: true,
    });
    expect(error.message).toContain("GET /api/v0/secrets/");
    expect(error.message).toMatch(/lacks the permission/);
    expect(everyRendering(error)).not.toContain(SCOPED_KEY);
  });

  it("a scoped key may create only where its category allows", async () => {
    await h.emulator.addKey(SCOPED_KEY, { api: { instance_read: {} } });
    const client = h.newClient({ apiKey: SCOPED_KEY });

    expect(await client.instances.list()).toEqual([]);
    const error = await failureOf(client.secrets.create("A", "b"));

    expect(error).toMatchObject({ status: 403, mayHaveCreated: false });
    expect(await h.emulator.secrets()).toEqual({});
  });

  it.each([
    ["401 on a read", WRONG_KEY, undefined, "GET"],
    ["401 on a create", WRONG_KEY, undefined, "POST"],
    ["403 on a read", SCOPED_KEY, { api: { user_read: {} } }, "GET"],
    ["403 on a create", SCOPED_KEY, { api: { user_read: {} } }, "POST"],
  ] as const)("never retries a %s", async (_case, key, permissions, method) => {
    if (permissions) await h.emulator.addKey(key, permissions);
    const retries: string[] = [];
    const client = h.newClient({ apiKey: key, onRetry: (event) => retries.push(event.reason) });

    const error = await failureOf(
      method === "GET" ? client.secrets.list() : client.secrets.create("A", "b"),
    );

    expect(error.isAuthError).toBe(true);
    expect(retries).toEqual([]);
    expect(summary(await h.emulator.requests())).toEqual([
      `${method} /api/v0/secrets/ ${permissions ? "403" : "401"}`,
    ]);
  });
});
