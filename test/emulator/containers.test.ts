import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, createInstance, errorOf, showInstance } from "./helpers";

// A container changed on its machine: rebuilt from new settings (update_template), rebooted or
// recycled. The instance, its machine and its price stay; a rebuilt container's disk is new.

const PATIENCE_MS = 10_000;
jest.setTimeout(4 * PATIENCE_MS);

const RowSchema = z.object({
  id: z.int(),
  machine_id: z.int(),
  dph_total: z.number(),
  actual_status: z.string().nullable(),
  image_uuid: z.string(),
  onstart: z.string().nullable(),
  extra_env: z.array(z.tuple([z.string(), z.string()])),
});

describe("an instance's container, changed in place", () => {
  let emulator: TestEmulator;
  afterEach(async () => {
    await emulator.close();
  });

  async function row(id: number) {
    const reply = await emulator.call("GET", `/api/v0/instances/${String(id)}/?owner=me`);
    return z.object({ instances: RowSchema }).parse(reply.body).instances;
  }

  /** The statuses a poller sees until the instance runs again. */
  async function statusesUntilRunning(id: number): Promise<(string | null)[]> {
    const seen: (string | null)[] = [];
    for (let polls = 0; polls < 10; polls++) {
      const status = (await showInstance(emulator.call, id))?.actual_status ?? null;
      if (seen.at(-1) !== status) seen.push(status);
      if (status === "running") break;
    }
    return seen;
  }

  it("rebuilds from a new image, env and onstart: same instance, machine and price, through recycling", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, bootPolls: 2 });
    const id = await createInstance(emulator.call, { env: { MODEL: "a" }, onstart: "echo one" });
    await statusesUntilRunning(id);
    const before = await row(id);

    const reply = await emulator.call("PUT", `/api/v0/instances/update_template/${String(id)}/`, {
      id,
      image: "vllm/vllm-openai:v0.6.1",
      env: { MODEL: "b", "-p 8000:8000": "1" },
      onstart: "echo two",
    });
    expect(reply).toMatchObject({ status: 200, body: { success: true } });

    expect(await statusesUntilRunning(id)).toEqual(["recycling", "running"]);
    const after = await row(id);
    expect(after).toMatchObject({
      id,
      machine_id: before.machine_id,
      dph_total: before.dph_total,
      image_uuid: "vllm/vllm-openai:v0.6.1",
      onstart: "echo two",
    });
    expect(Object.fromEntries(after.extra_env)).toMatchObject({ MODEL: "b" });
  });

  it("reboots (rebooting) and recycles (recycling) a running instance, keeping what it runs", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, bootPolls: 2 });
    const id = await createInstance(emulator.call);
    await statusesUntilRunning(id);
    for (const [operation, status] of [
      ["reboot", "rebooting"],
      ["recycle", "recycling"],
    ] as const) {
      const reply = await emulator.call("PUT", `/api/v0/instances/${operation}/${String(id)}/`, {});
      expect(reply).toMatchObject({ status: 200, body: { success: true } });
      expect(await statusesUntilRunning(id)).toEqual([status, "running"]);
    }
    expect((await row(id)).image_uuid).toBe("pytorch/pytorch:latest");
  });

  it("answers an id it cannot act on as the OpenAPI documents, and a stopped instance stays stopped", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, strict: true });
    expect(errorOf(await emulator.call("PUT", "/api/v0/instances/reboot/999/", {}))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect(errorOf(await emulator.call("PUT", "/api/v0/instances/recycle/999/", {}))).toEqual({
      status: 400,
      error: "invalid_id",
    });
    const update = await emulator.call("PUT", "/api/v0/instances/update_template/999/", {
      image: "x",
    });
    expect(errorOf(update)).toEqual({ status: 404, error: "no_such_instance" });

    const id = await createInstance(emulator.call);
    await emulator.call("PUT", `/api/v0/instances/${String(id)}/`, { state: "stopped" });
    await emulator.call("PUT", `/api/v0/instances/update_template/${String(id)}/`, {
      image: "vllm/vllm-openai:v0.6.1",
    });
    expect(await row(id)).toMatchObject({
      actual_status: "stopped",
      image_uuid: "vllm/vllm-openai:v0.6.1",
    });
  });

  it("--run-onstart: a reboot keeps the container's disk and runs the onstart again; a rebuild starts from an empty disk", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, runOnstart: true, bootPolls: 0 });
    // Counts its runs in a file on the container's disk.
    const onstart = 'echo run >> runs.txt; echo "runs: $(wc -l < runs.txt)"';
    const id = await createInstance(emulator.call, { onstart });
    const logs = async () => {
      const reply = await emulator.call("PUT", `/api/v0/instances/request_logs/${String(id)}`, {});
      const url = z.object({ result_url: z.string() }).parse(reply.body).result_url;
      return (await emulator.raw("GET", new URL(url).pathname, {})).text;
    };
    const logsUntil = async (pattern: RegExp) => {
      const deadline = Date.now() + PATIENCE_MS;
      let text = await logs();
      while (!pattern.test(text) && Date.now() < deadline) {
        await delay(50);
        text = await logs();
      }
      return text;
    };
    expect(await logsUntil(/runs: 1/)).toMatch(/runs: 1/);

    await emulator.call("PUT", `/api/v0/instances/reboot/${String(id)}/`, {});
    expect(await logsUntil(/runs: 2/)).toMatch(/runs: 2/);

    await emulator.call("PUT", `/api/v0/instances/update_template/${String(id)}/`, {
      onstart: `echo rebuilt; ${onstart}`,
    });
    const text = await logsUntil(/rebuilt\nruns: 1/);
    expect(text).toMatch(/rebuilt\nruns: 1/);
  });
});
