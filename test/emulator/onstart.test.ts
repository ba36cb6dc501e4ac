import * as fs from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { gzipSync } from "node:zlib";
import { z } from "zod";
import { encodeOnstart } from "../../provider/shared/onstart";
import { type Call, type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, INSTANCE_ASK_ID, showInstance } from "./helpers";

const LogsReplySchema = z.object({
  success: z.literal(true),
  result_url: z.string(),
  msg: z.string(),
});

/** A process starts and ends asynchronously; on a loaded machine that may take seconds. */
const PATIENCE_MS = 10_000;
jest.setTimeout(3 * PATIENCE_MS);

/** Polls until `ready` holds, for at most PATIENCE_MS. */
async function eventually<T>(read: () => Promise<T>, ready: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const value = await read();
    if (ready(value) || Date.now() > deadline) return value;
    await delay(50);
  }
}

/** Gone, or a zombie waiting for a parent that is not ours to reap it. */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${String(pid)}/stat`, "utf8"));
  } catch {
    return true;
  }
}

describe("--run-onstart", () => {
  let emulator: TestEmulator;
  // A variable of the emulator's own environment, which no onstart may see.
  const ownVariable = "GPUCLOUD_TEST_EMULATOR_ONLY";

  beforeEach(async () => {
    process.env[ownVariable] = "emulator-secret-value";
    // Boots at once: the onstart runs as soon as the instance is created.
    emulator = await startTestEmulator({ apiKey: API_KEY, runOnstart: true, bootPolls: 0 });
  });
  afterEach(async () => {
    await emulator.close();
    Reflect.deleteProperty(process.env, ownVariable);
  });

  async function rent(onstart: string, env: Record<string, string> = {}) {
    const reply = await emulator.call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, {
      image: "ubuntu:22.04",
      disk: 16,
      onstart,
      env,
    });
    return z.object({ new_contract: z.int() }).parse(reply.body).new_contract;
  }

  async function logs(id: number, body: object = {}, call: Call = emulator.call) {
    const reply = await call("PUT", `/api/v0/instances/request_logs/${String(id)}`, body);
    const { result_url: url } = LogsReplySchema.parse(reply.body);
    const fetched = await emulator.raw("GET", new URL(url).pathname, {});
    expect(fetched.status).toBe(200);
    return fetched.text;
  }

  const logsUntil = (id: number, pattern: RegExp) =>
    eventually(
      () => logs(id),
      (text) => pattern.test(text),
    );

  it("runs it with the container's environment, never the emulator's, and serves its output", async () => {
    // An account environment variable (the secrets endpoints) reaches every container.
    await emulator.call("POST", "/api/v0/secrets/", { key: "HF_TOKEN", value: "hf_account" });
    const id = await rent("env | sort; echo done", {
      MODEL: "llama",
      "-p 8000:8000": "1",
    });
    const text = await logsUntil(id, /^done$/m);

    expect(text).toContain(`CONTAINER_ID=${String(id)}\n`);
    expect(text).toContain("MODEL=llama\n");
    expect(text).toContain("HF_TOKEN=hf_account\n");
    expect(text).toMatch(/^PUBLIC_IPADDR=192\.0\.2\.\d+$/m);
    expect(text).toMatch(/^VAST_TCP_PORT_22=\d+$/m);
    expect(text).toMatch(/^VAST_TCP_PORT_8000=\d+$/m);
    expect(text).toMatch(/^PATH=/m);
    // The instance's key is masked (the result URL needs no key); the account's is never there.
    expect(text).toContain("CONTAINER_API_KEY=********\n");
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(ownVariable);
    expect(text).not.toContain("emulator-secret-value");

    // --tail and --filter, as the official client sends them.
    expect(await logs(id, { tail: "1" })).toBe("done\n");
    expect(await logs(id, { filter: "MODEL=" })).toBe("MODEL=llama\n");
    expect(await logs(id, { daemon_logs: "true" })).toMatch(/onstart started \(pid \d+\)/);
    // An unknown instance: the OpenAPI's 404.
    const unknown = await emulator.call("PUT", "/api/v0/instances/request_logs/42", {});
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: "invalid_id" });
  });

  it("lets the onstart stop its own instance with CONTAINER_API_KEY", async () => {
    // curl where the machine has it, else python3: the watchdog's choice.
    const onstart = `export url="$EMULATOR_URL/api/v0/instances/$CONTAINER_ID/"
if command -v curl >/dev/null; then
  curl -sS -X PUT -H "Authorization: Bearer $CONTAINER_API_KEY" \\
    -H 'Content-Type: application/json' -d '{"state":"stopped"}' "$url"
else
  python3 -c "import os, urllib.request as u; print(u.urlopen(u.Request(os.environ['url'], \\
    data=b'{\\"state\\":\\"stopped\\"}', method='PUT', headers={'Content-Type': 'application/json', \\
    'Authorization': 'Bearer ' + os.environ['CONTAINER_API_KEY']})).read().decode())"
fi`;
    const id = await rent(onstart, { EMULATOR_URL: emulator.url });

    const shown = await eventually(
      () => showInstance(emulator.call, id),
      (row) => row?.actual_status === "stopped",
    );
    expect(shown).toMatchObject({ actual_status: "stopped" });
    // With its own key, on its own path (the stop then ends the onstart, curl and all).
    const { requests } = z
      .object({ requests: z.array(z.object({ method: z.string(), path: z.string() })) })
      .parse((await emulator.control("GET", "/_emulator/requests")).body);
    const puts = requests.filter((r) => r.method === "PUT").map((r) => r.path);
    expect(puts).toEqual([
      `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`,
      `/api/v0/instances/${String(id)}/`,
    ]);
  });

  it("ends its process group on stop and destroy, and runs it again on start", async () => {
    const id = await rent('sleep 1000 & echo "sleeper=$!"; echo "dir=$PWD"; wait');
    const path = `/api/v0/instances/${String(id)}/`;
    const first = await logsUntil(id, /^dir=/m);
    const sleeper = Number(/^sleeper=(\d+)$/m.exec(first)?.[1]);
    const directory = /^dir=(.+)$/m.exec(first)?.[1] ?? "";
    expect(sleeper).toBeGreaterThan(0);
    expect(processGone(sleeper)).toBe(false);
    expect(fs.existsSync(directory)).toBe(true);

    await emulator.call("PUT", path, { state: "stopped" });
    expect(await eventually(async () => processGone(sleeper), Boolean)).toBe(true);

    await emulator.call("PUT", path, { state: "running" });
    expect(await showInstance(emulator.call, id)).toMatchObject({ actual_status: "running" });
    const again = await logsUntil(id, /^dir=[\s\S]*^dir=/m);
    const sleepers = [...again.matchAll(/^sleeper=(\d+)$/gm)].map((match) => Number(match[1]));
    expect(sleepers).toHaveLength(2);
    const second = sleepers[1] ?? 0;
    expect(processGone(second)).toBe(false);

    await emulator.call("DELETE", path);
    expect(await eventually(async () => processGone(second), Boolean)).toBe(true);
    expect(
      await eventually(
        async () => fs.existsSync(directory),
        (exists) => !exists,
      ),
    ).toBe(false);
  });

  it("finds a stand-in nvidia-smi first on its PATH, reporting 0% until a test sets the utilization", async () => {
    const query = "nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits";
    // Asked again until the test has set it: a watchdog looks the same way.
    const id = await rent(
      `nvidia-smi -L; while :; do echo "gpus: $(${query} | tr '\\n' ' ')"; sleep 0.05; done`,
    );
    expect(await logsUntil(id, /^gpus: 0 $/m)).toMatch(
      /^GPU 0: RTX 4090 \(the emulator's stand-in\)$/m,
    );

    await emulator.setGpuUtilization(id, 87);
    await logsUntil(id, /^gpus: 87 $/m);
    await emulator.setGpuUtilization(id, [3]);
    await logsUntil(id, /^gpus: 3 $/m);
    // One value per GPU, 0 to 100; an unknown instance.
    const path = `/_emulator/instances/${String(id)}/gpu-utilization`;
    expect((await emulator.control("PUT", path, { percents: [1, 2] })).status).toBe(400);
    expect((await emulator.control("PUT", path, { percent: 101 })).status).toBe(400);
    const unknown = "/_emulator/instances/999/gpu-utilization";
    expect((await emulator.control("PUT", unknown, { percent: 1 })).status).toBe(404);
  });

  it("runs a gzipped and base64-encoded onstart, in either bootstrap", async () => {
    const script = `echo unpacked-${"x".repeat(40)}\n# ${"padding ".repeat(600)}\n`;
    const encoded = encodeOnstart(script);
    expect(encoded).toMatchObject({ ok: true, compressed: true });
    const providers = await rent(encoded.ok ? encoded.command : "");
    expect(await logsUntil(providers, /unpacked-/)).toContain(`unpacked-${"x".repeat(40)}`);

    const payload = gzipSync("echo piped-through-sh\n");
    const piped = await rent(`echo ${payload.toString("base64")} | base64 -d | gunzip | sh`);
    expect(await logsUntil(piped, /piped-through-sh/)).toBe("piped-through-sh\n");
  });
});
