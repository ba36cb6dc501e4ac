import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, errorOf } from "./helpers";

const CreatedSchema = z.object({
  id: z.int(),
  key: z.string().regex(/^[0-9a-f]{64}$/),
  permissions: z.object({ api: z.record(z.string(), z.object({})) }),
});
const ListedSchema = z.object({
  // Strict: a personal account's key has no team, so team_id and team_name (an integer and a
  // string in the OpenAPI) are left out, never null.
  apikeys: z.array(
    z.strictObject({
      id: z.int(),
      user_id: z.int(),
      name: z.string().nullable(),
      rights: z.string().nullable(),
      created_at: z.iso.datetime(),
      deleted_at: z.null(),
    }),
  ),
});

describe("API keys", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY });
  });
  afterEach(async () => {
    await emulator.close();
  });

  async function create(body: object, key = API_KEY) {
    return CreatedSchema.parse(
      (await emulator.call("POST", "/api/v0/auth/apikeys/", body, key)).body,
    );
  }

  it("creates a key that authenticates with exactly its scope, until it is deleted", async () => {
    const { call } = emulator;
    const scope = { api: { user_read: {}, instance_read: {} } };
    const created = await create({ name: "reader", permissions: scope });
    expect(created).toMatchObject({ id: 2, permissions: scope });

    // Allowed: its categories.
    expect(
      (await call("GET", "/api/v0/users/current/", undefined, created.key)).body,
    ).toMatchObject({
      key_id: created.id,
    });
    expect((await call("GET", "/api/v1/instances/", undefined, created.key)).status).toBe(200);
    // Refused: every other category.
    expect(errorOf(await call("GET", "/api/v0/secrets/", undefined, created.key))).toEqual({
      status: 403,
      error: "forbidden",
    });
    const denied = await call("PUT", "/api/v0/asks/31001/", { image: "i", disk: 10 }, created.key);
    expect(errorOf(denied)).toEqual({ status: 403, error: "forbidden" });
    expect(denied.text).not.toContain(created.key);

    const deleted = await call("DELETE", `/api/v0/auth/apikeys/${String(created.id)}/`);
    expect(deleted.status).toBe(200);
    expect(deleted.headers["content-type"]).toMatch(/^application\/json/);
    expect(deleted.body).toBe("Successfully Deleted API Key");

    expect(errorOf(await call("GET", "/api/v0/users/current/", undefined, created.key))).toEqual({
      status: 401,
      error: "unauthorized",
    });
    expect(errorOf(await call("DELETE", `/api/v0/auth/apikeys/${String(created.id)}/`))).toEqual({
      status: 404,
      error: "no_such_api_key",
    });
  });

  it("lists every key by id, name and rights, never the key itself", async () => {
    const { call, control } = emulator;
    await control("POST", "/_emulator/keys", { key: "added-by-a-test" });
    const created = await create({ name: "ci", permissions: { api: { misc: {} } } });
    const unnamed = await create({ permissions: { api: { user_read: {} } } });

    const listed = await call("GET", "/api/v0/auth/apikeys/");
    const { apikeys } = ListedSchema.parse(listed.body);
    expect(apikeys.map(({ id, name, rights }) => ({ id, name, rights }))).toEqual([
      { id: 1, name: null, rights: null },
      { id: 2, name: null, rights: null },
      { id: created.id, name: "ci", rights: '{"api":{"misc":{}}}' },
      { id: unnamed.id, name: null, rights: '{"api":{"user_read":{}}}' },
    ]);
    for (const secret of [API_KEY, "added-by-a-test", created.key, unnamed.key]) {
      expect(listed.text).not.toContain(secret);
    }
  });

  it("lets the caller delete the key it is using", async () => {
    const created = await create({ permissions: { api: { user_read: {}, user_write: {} } } });
    const reply = await emulator.call(
      "DELETE",
      `/api/v0/auth/apikeys/${String(created.id)}/`,
      undefined,
      created.key,
    );
    expect(reply.status).toBe(200);
    expect(
      (await emulator.call("GET", "/api/v0/auth/apikeys/", undefined, created.key)).status,
    ).toBe(401);
  });

  it.each([
    [{ name: "x" }, "missing_permissions"],
    [{ permissions: null }, "missing_permissions"],
    [{ permissions: "all" }, "invalid_permissions"],
    [{ permissions: { read: true } }, "invalid_permissions"],
    [{ permissions: { api: { instance_reed: {} } } }, "invalid_permissions"],
    [{ permissions: { api: { misc: true } } }, "invalid_permissions"],
    [{ name: 5, permissions: { api: {} } }, "invalid_permissions"],
  ])("refuses %j with 400 %s", async (body, error) => {
    expect(errorOf(await emulator.call("POST", "/api/v0/auth/apikeys/", body))).toEqual({
      status: 400,
      error,
    });
  });

  it("needs user_write to create keys, and grants nothing the caller lacks", async () => {
    const { call, control } = emulator;
    await control("POST", "/_emulator/keys", {
      key: "manager",
      permissions: { api: { user_read: {}, user_write: {} } },
    });
    await control("POST", "/_emulator/keys", {
      key: "reader",
      permissions: { api: { user_read: {} } },
    });

    expect(
      errorOf(await call("POST", "/api/v0/auth/apikeys/", { permissions: { api: {} } }, "reader")),
    ).toEqual({ status: 403, error: "forbidden" });
    const wider = await call(
      "POST",
      "/api/v0/auth/apikeys/",
      { permissions: { api: { user_read: {}, instance_write: {} } } },
      "manager",
    );
    expect(errorOf(wider)).toEqual({ status: 403, error: "forbidden" });
    const narrower = await create({ permissions: { api: { user_read: {} } } }, "manager");
    expect((await call("GET", "/api/v0/users/current/", undefined, narrower.key)).status).toBe(200);
  });

  it("keeps keys out of the state file and the state control", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpucloud-apikeys-"));
    const stateFile = path.join(dir, "state.json");
    try {
      await emulator.close();
      emulator = await startTestEmulator({ apiKey: API_KEY, stateFile });
      const created = await create({ name: "persist?", permissions: { api: { misc: {} } } });
      // A change to the stored state, so that the file is written after the key exists.
      await emulator.call("POST", "/api/v0/secrets/", { key: "K", value: "v" });

      const stored = fs.readFileSync(stateFile, "utf8");
      const shown = (await emulator.control("GET", "/_emulator/state")).text;
      for (const text of [stored, shown]) {
        expect(text).not.toContain(created.key);
        expect(text).not.toContain("persist?");
      }
      await emulator.close();
      // A restarted emulator knows only the key it was started with.
      emulator = await startTestEmulator({ apiKey: API_KEY, stateFile });
      expect(
        errorOf(await emulator.call("GET", "/api/v0/secrets/", undefined, created.key)),
      ).toEqual({ status: 401, error: "unauthorized" });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
