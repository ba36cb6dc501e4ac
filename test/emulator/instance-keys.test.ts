import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { type Call, type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, INSTANCE_ASK_ID, errorOf, showInstance } from "./helpers";

const CreatedSchema = z.object({
  success: z.literal(true),
  new_contract: z.int(),
  instance_api_key: z.string().regex(/^[0-9a-f]{64}$/),
});

async function rent(call: Call) {
  const reply = await call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, {
    image: "pytorch/pytorch:latest",
    disk: 16,
    env: { MODEL: "llama" },
  });
  const created = CreatedSchema.parse(reply.body);
  return { id: created.new_contract, key: created.instance_api_key };
}

describe("instance keys (instance_api_key, the container's CONTAINER_API_KEY)", () => {
  let emulator: TestEmulator;
  let dir: string;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpucloud-instance-keys-"));
    emulator = await startTestEmulator({
      apiKey: API_KEY,
      stateFile: path.join(dir, "state.json"),
    });
  });
  afterEach(async () => {
    await emulator.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("shows, stops, starts and destroys its own instance, then stops working", async () => {
    const { call } = emulator;
    const own = await rent(call);
    const other = await rent(call);
    expect(own.key).not.toBe(other.key);
    const path = `/api/v0/instances/${String(own.id)}/`;

    const shown = await call("GET", path, undefined, own.key);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ instances: { id: own.id } });

    expect((await call("PUT", path, { state: "stopped" }, own.key)).body).toEqual({
      success: true,
    });
    expect(await showInstance(call, own.id)).toMatchObject({ actual_status: "stopped" });
    expect((await call("PUT", path, { state: "running" }, own.key)).body).toEqual({
      success: true,
    });
    expect(await showInstance(call, own.id)).toMatchObject({ actual_status: "loading" });
    // Starting and stopping, not relabelling.
    expect(errorOf(await call("PUT", path, { label: "mine" }, own.key))).toEqual({
      status: 403,
      error: "forbidden",
    });

    expect((await call("DELETE", path, undefined, own.key)).body).toEqual({ success: true });
    expect(await showInstance(call, own.id)).toBeNull();
    // Gone with its instance, as a revoked key is.
    expect(errorOf(await call("GET", path, undefined, own.key))).toEqual({
      status: 401,
      error: "unauthorized",
    });
    // The other instance's key is untouched.
    const otherPath = `/api/v0/instances/${String(other.id)}/`;
    expect((await call("GET", otherPath, undefined, other.key)).status).toBe(200);

    // The request log tells the instance's key from the account's, and never shows either.
    const log = await emulator.control("GET", "/_emulator/requests");
    const entries = z
      .object({
        requests: z.array(
          z.object({
            method: z.string(),
            path: z.string(),
            instanceKey: z.literal(true).optional(),
          }),
        ),
      })
      .parse(log.body).requests;
    const byInstanceKey = entries.filter((entry) => entry.instanceKey === true);
    // Its own show, stop, start, relabel (refused), destroy, and the other's show; a gone key
    // is no instance's.
    expect(byInstanceKey.map((entry) => entry.method)).toEqual([
      "GET",
      "PUT",
      "PUT",
      "PUT",
      "DELETE",
      "GET",
    ]);
    expect(
      entries.find((entry) => entry.method === "PUT" && entry.path.startsWith("/api/v0/asks/")),
    ).not.toHaveProperty("instanceKey");
    expect(JSON.stringify(log.body)).not.toContain(own.key);
  });

  it("is refused another instance and everything of the account", async () => {
    const { call } = emulator;
    const own = await rent(call);
    const other = await rent(call);
    const otherPath = `/api/v0/instances/${String(other.id)}/`;

    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { state: "stopped" }],
      ["DELETE", undefined],
    ] as const) {
      expect(errorOf(await call(method, otherPath, body, own.key))).toEqual({
        status: 403,
        error: "not_authorized",
      });
    }
    expect(await showInstance(call, other.id)).toMatchObject({ id: other.id });
    expect((await showInstance(call, other.id))?.actual_status).not.toBe("stopped");

    const refused: [Parameters<Call>[0], string, unknown][] = [
      ["GET", "/api/v0/users/current/", undefined],
      ["GET", "/api/v1/instances/", undefined],
      ["GET", "/api/v0/volumes/?owner=me", undefined],
      ["GET", "/api/v0/secrets/", undefined],
      ["GET", "/api/v0/auth/apikeys/", undefined],
      ["POST", "/api/v0/auth/apikeys/", { permissions: { api: { misc: {} } } }],
      ["POST", "/api/v0/bundles/", {}],
      ["PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, { image: "i", disk: 10 }],
      ["PUT", "/api/v0/instances/", { ids: [own.id], state: "stopped" }],
      ["PUT", `/api/v0/instances/request_logs/${String(own.id)}`, {}],
    ];
    for (const [method, path, body] of refused) {
      const reply = await call(method, path, body, own.key);
      expect([path, errorOf(reply)]).toEqual([path, { status: 403, error: "forbidden" }]);
      expect(reply.text).not.toContain(own.key);
    }
  });

  it("is shown by the create alone: not listed, not in rows, logs or the state", async () => {
    const { call, control } = emulator;
    const own = await rent(call);
    await call("POST", "/api/v0/secrets/", { key: "HF_TOKEN", value: "hf_x" });

    const listed = await call("GET", "/api/v0/auth/apikeys/");
    expect(listed.body).toMatchObject({ apikeys: [{ id: 1 }] });
    expect(z.object({ apikeys: z.array(z.unknown()) }).parse(listed.body).apikeys).toHaveLength(1);

    const seen = [
      await call("GET", `/api/v0/instances/${String(own.id)}/`, undefined, own.key),
      await call("GET", "/api/v1/instances/"),
      await call("GET", "/api/v0/users/current/"),
      await control("GET", "/_emulator/state"),
      await control("GET", "/_emulator/requests"),
    ];
    for (const reply of seen) expect(reply.text).not.toContain(own.key);
    expect(fs.readFileSync(path.join(dir, "state.json"), "utf8")).not.toContain(own.key);
  });

  it("is limited per key, as any key", async () => {
    await emulator.close();
    emulator = await startTestEmulator({ apiKey: API_KEY, rateLimits: "documented" });
    const { call } = emulator;
    const own = await rent(call);
    const path = `/api/v0/instances/${String(own.id)}/`;
    // PUT instances/{id}/ allows one a second per key.
    expect((await call("PUT", path, { state: "stopped" }, own.key)).status).toBe(200);
    expect((await call("PUT", path, { state: "stopped" }, own.key)).status).toBe(429);
    expect((await call("PUT", path, { state: "stopped" }, API_KEY)).status).toBe(200);
  });

  it("lives in memory: a restarted emulator refuses the keys it gave", async () => {
    const own = await rent(emulator.call);
    await emulator.close();
    emulator = await startTestEmulator({
      apiKey: API_KEY,
      stateFile: path.join(dir, "state.json"),
    });
    const { call } = emulator;
    expect(await showInstance(call, own.id)).toMatchObject({ id: own.id });
    expect(
      errorOf(await call("GET", `/api/v0/instances/${String(own.id)}/`, undefined, own.key)),
    ).toEqual({ status: 401, error: "unauthorized" });
  });
});
