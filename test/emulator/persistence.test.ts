import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { buildEmulator } from "../../emulator";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, createInstance, showInstance } from "./helpers";

describe("persistence", () => {
  let dir: string;
  let stateFile: string;
  let emulator: TestEmulator | undefined;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpucloud-emulator-"));
    stateFile = path.join(dir, "state.json");
  });
  afterEach(async () => {
    await emulator?.close();
    emulator = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("keeps resources, polls and ids across a restart", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, stateFile });
    const { call, control } = emulator;
    await call("POST", "/api/v0/secrets/", { key: "KEPT", value: "v" });
    await call("POST", "/api/v0/webhooks/", {
      webhook_url: "https://example.com/h",
      event_types: ["client:low_credit"],
    });
    await call("PUT", "/api/v0/volumes/", { id: 21001, size: 10 });
    await control("PUT", "/_emulator/user", { ssh_key: "ssh-ed25519 AAAA" });
    const id = await createInstance(call);
    expect(await showInstance(call, id)).toMatchObject({ actual_status: null });
    await emulator.close();

    emulator = await startTestEmulator({ apiKey: API_KEY, stateFile });
    const again = emulator.call;
    expect((await again("GET", "/api/v0/secrets/")).body).toEqual({
      success: true,
      secrets: { KEPT: "********" },
    });
    expect((await again("GET", "/api/v0/webhooks/")).body).toMatchObject({ webhooks: [{ id: 1 }] });
    expect((await again("GET", "/api/v0/volumes/")).body).toMatchObject({
      volumes: [{ id: 5001 }],
    });
    expect((await again("GET", "/api/v0/users/current/")).body).toMatchObject({
      ssh_key: "ssh-ed25519 AAAA",
    });
    // The second poll of the default boot: the count survived the restart.
    expect(await showInstance(again, id)).toMatchObject({ actual_status: "running" });
    expect(await createInstance(again)).toBe(id + 1);
  });

  it("writes atomically, leaving only the state file, readable by its owner only", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, stateFile });
    for (let n = 0; n < 5; n++) {
      await emulator.call("POST", "/api/v0/secrets/", { key: `K${String(n)}`, value: "v" });
    }
    expect(fs.readdirSync(dir)).toEqual(["state.json"]);
    expect(fs.statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(stateFile, "utf8"))).toMatchObject({
      secrets: [{ key: "K0" }, {}, {}, {}, { key: "K4" }],
    });
  });

  it("refuses a corrupt or foreign state file with a clear error", () => {
    fs.writeFileSync(stateFile, '{"secrets": [{"key": "X", "value": "top-secret"}');
    expect(() => buildEmulator({ apiKey: API_KEY, stateFile })).toThrow(/not valid JSON/);
    fs.writeFileSync(stateFile, JSON.stringify({ version: 1, secrets: "top-secret" }));
    expect(() => buildEmulator({ apiKey: API_KEY, stateFile })).toThrow(/not valid emulator state/);
    try {
      buildEmulator({ apiKey: API_KEY, stateFile });
    } catch (error) {
      expect(String(error)).not.toContain("top-secret");
    }
  });

  it("keeps state in memory without a state file", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY });
    await emulator.call("POST", "/api/v0/secrets/", { key: "GONE", value: "v" });
    await emulator.close();
    emulator = await startTestEmulator({ apiKey: API_KEY });
    expect((await emulator.call("GET", "/api/v0/secrets/")).body).toEqual({
      success: true,
      secrets: {},
    });
  });
});
