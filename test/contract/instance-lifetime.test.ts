import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { request } from "undici";
import { z } from "zod";
import { GpuCloudClient } from "../../provider/client";
import {
  implementation as instanceProvider,
  instanceInputsSchema,
  type InstanceInputs,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import {
  implementation as groupProvider,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "../../provider/resources/node-group";
import {
  type Expiry,
  expiresAtOf,
  readOnstart,
  wrapOnstart,
} from "../../provider/shared/expiry-watchdog";
import { onstartLimitChars } from "../../provider/shared/onstart";
import { useEmulator } from "../support/use-emulator";
import { eventually } from "./serverless-support";

// maxLifetime against the in-process emulator: what a create bakes into the instance's onstart
// (the configured address, the deadline, the user's onstart after the watchdog), what refresh
// and import read back, and the watchdog itself run as the instance would run it, with no
// Pulumi process involved: the instance destroys or stops itself at its deadline.

jest.setTimeout(60_000);

const ASK = 31001; // a seeded ask
const stackToken = "lifetime-contract-token-01";

/** The deadline a create made between `beforeMs` and `afterMs` may have fixed, seconds. */
const deadlineWithin = (seconds: number, beforeMs: number, afterMs: number) => ({
  from: Math.floor(beforeMs / 1000) + seconds,
  to: Math.floor(afterMs / 1000) + seconds,
});

/** The watchdog's expiry as the outputs record it. */
function expiryOf(outs: { expiresAt?: string }, seconds: number, onExpiry: Expiry["onExpiry"]) {
  const deadlineMs = Date.parse(outs.expiresAt ?? "");
  return { maxLifetimeSeconds: seconds, onExpiry, deadlineEpochSeconds: deadlineMs / 1000 };
}

/**
 * A directory standing for an image's PATH that holds only `date`, `sleep` and one of the HTTP
 * tools the watchdog tries (curl, wget, python3), or undefined when this machine lacks it.
 */
function imageWithOnly(tool: "curl" | "wget" | "python3"): string | undefined {
  const where = (command: string, args: string[]) => {
    try {
      return execFileSync(command, args, { encoding: "utf8" }).trim();
    } catch {
      return undefined;
    }
  };
  const executable =
    tool === "python3"
      ? where("python3", ["-c", "import sys; print(sys.executable)"])
      : where("sh", ["-c", `command -v ${tool}`]);
  if (executable === undefined || !existsSync(executable)) return undefined;
  const bin = mkdtempSync(path.join(tmpdir(), `image-${tool}-`));
  symlinkSync(executable, path.join(bin, tool));
  for (const command of ["date", "sleep"]) {
    const found = where("sh", ["-c", `command -v ${command}`]);
    if (found !== undefined) symlinkSync(found, path.join(bin, command));
  }
  return bin;
}

describe("maxLifetime: the watchdog an instance carries", () => {
  let client: GpuCloudClient;
  const providers = useEmulator({ per: "file", bootPolls: 1 });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });
  /** Watchdogs started by a test, each in a process group of its own: killed after it. */
  const watchdogs: ChildProcess[] = [];
  const images: string[] = [];

  beforeEach(async () => {
    for (const instance of await client.instances.list()) {
      await client.instances.destroy(instance.id);
    }
    await emulator.clearRequests();
  });
  afterEach(() => {
    for (const started of watchdogs.splice(0)) {
      if (started.pid === undefined) continue;
      try {
        process.kill(-started.pid, "SIGKILL");
      } catch {
        // The group is gone: its watchdog called and ended.
      }
    }
    for (const image of images.splice(0)) rmSync(image, { recursive: true, force: true });
  });

  const inputs = (fields: Record<string, unknown>): InstanceInputs =>
    instanceInputsSchema.parse({
      askId: ASK,
      image: "pytorch/pytorch",
      diskGb: 10,
      runtype: "ssh",
      pollIntervalSeconds: 0.05,
      owner: "p/dev/trainer",
      stackToken,
      ...fields,
    });
  const create = async (fields: Record<string, unknown>) => {
    const news = inputs(fields);
    const checked = await instanceProvider.check(providers.run, {} as never, news);
    expect(checked.failures).toEqual([]);
    const beforeMs = Date.now();
    const { id, outs } = await instanceProvider.create(
      providers.run,
      checked.inputs as InstanceInputs,
    );
    if (outs === undefined) throw new Error("create recorded no outputs");
    return { id, outs, beforeMs, afterMs: Date.now(), inputs: checked.inputs as InstanceInputs };
  };
  const storedOnstart = async (instanceId: string) =>
    (await emulator.state()).instances.find((instance) => instance.id === Number(instanceId))
      ?.onstart ?? "";

  it("bakes the watchdog into the onstart: the configured address, the deadline, then the user's onstart", async () => {
    const created = await create({ maxLifetime: "8h", onstart: "echo hello\n" });

    const { from, to } = deadlineWithin(28800, created.beforeMs, created.afterMs);
    const deadline = Date.parse(created.outs.expiresAt ?? "") / 1000;
    expect(deadline).toBeGreaterThanOrEqual(from);
    expect(deadline).toBeLessThanOrEqual(to);
    expect(created.outs.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const onstart = await storedOnstart(created.id);
    const expiry = expiryOf(created.outs, 28800, "destroy");
    expect(onstart).toBe(wrapOnstart("echo hello\n", { expiry }, emulator.url));
    expect(onstart).toContain(`u='${emulator.url}/api/v0/instances/'$CONTAINER_ID/;`);
    expect(onstart).toContain(`e=${String(deadline)};`);
    expect(onstart.endsWith("\necho hello\n")).toBe(true);
    // The key is the container's own, from its environment: never in the onstart.
    expect(onstart).not.toContain(emulator.apiKey);
    expect(readOnstart(onstart)).toEqual({ onstart: "echo hello\n", expiry });
  });

  it("refresh sees no drift from the watchdog; import gives back the user's onstart and the lifetime", async () => {
    const created = await create({ maxLifetime: "90m", onExpiry: "stop", onstart: "echo hi" });
    const outs = created.outs;
    expect(outs).toMatchObject({ maxLifetime: "90m", onExpiry: "stop", onstart: "echo hi" });

    // Refresh: found as recorded, the deadline as the instance's own watchdog says it.
    expect(await instanceProvider.read(providers.run, created.id, outs)).toEqual({
      id: created.id,
      props: outs,
    });

    // Import: the inputs a program declares, which check takes and diff finds unchanged.
    const imported = await instanceProvider.read(providers.run, created.id, undefined);
    expect(imported.inputs).toMatchObject({
      onstart: "echo hi",
      maxLifetime: "90m",
      onExpiry: "stop",
    });
    expect(imported.props?.expiresAt).toBe(outs.expiresAt);
    const inputsRead = imported.inputs as InstanceInputs;
    const checked = await instanceProvider.check(providers.run, inputsRead, inputsRead);
    expect(checked.failures).toEqual([]);
    const props = imported.props as InstanceOutputs;
    expect(await instanceProvider.diff(providers.run, created.id, props, inputsRead)).toMatchObject(
      { changes: false },
    );
    // The program as written: the same lifetime changes nothing either.
    expect(
      await instanceProvider.diff(providers.run, created.id, props, {
        ...inputsRead,
        maxLifetime: "90m",
      }),
    ).toMatchObject({ changes: false });
  });

  it("fits an onstart near 4048 characters with its watchdog, and reads it back", async () => {
    let onstart = "#!/bin/bash\nset -e\n";
    for (let step = 0; onstart.length < onstartLimitChars - 40; step++) {
      onstart += `pip install -q package-${step % 23} && echo "step ${step} done" # setup\n`;
    }
    expect(onstart.length).toBeGreaterThan(onstartLimitChars - 100);
    expect(onstart.length).toBeLessThanOrEqual(onstartLimitChars);
    const created = await create({ maxLifetime: "3d", onstart });

    const stored = await storedOnstart(created.id);
    expect(stored.length).toBeLessThanOrEqual(onstartLimitChars);
    expect(stored).toMatch(/^f=\$\(mktemp\) && echo /);
    expect(readOnstart(stored)).toEqual({
      onstart,
      expiry: expiryOf(created.outs, 3 * 86_400, "destroy"),
    });
    expect(await instanceProvider.read(providers.run, created.id, created.outs)).toEqual({
      id: created.id,
      props: created.outs,
    });
    const imported = await instanceProvider.read(providers.run, created.id, undefined);
    expect(imported.inputs).toMatchObject({ onstart, maxLifetime: "3d" });
  });

  it("wraps a template's onstart when the program gives none; refuses a template that runs none", async () => {
    const template = async (fields: Record<string, unknown>) => {
      const response = await request(`${emulator.url}/api/v0/template/`, {
        method: "POST",
        headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "t", image: "vllm/vllm-openai", ...fields }),
      });
      return z
        .object({ template: z.object({ hash_id: z.string() }) })
        .parse(await response.body.json()).template.hash_id;
    };
    const ssh = await template({ onstart: "vllm serve $MODEL_ID", runtype: "ssh" });
    const created = await create({
      image: undefined,
      runtype: undefined,
      templateHashId: ssh,
      maxLifetime: "8h",
    });
    expect(readOnstart(await storedOnstart(created.id))).toEqual({
      onstart: "vllm serve $MODEL_ID",
      expiry: expiryOf(created.outs, 28800, "destroy"),
    });

    const args = await template({ onstart: "vllm serve", runtype: "args" });
    await emulator.clearRequests();
    await expect(
      instanceProvider.create(
        providers.run,
        inputs({ image: undefined, runtype: undefined, templateHashId: args, maxLifetime: "8h" }),
      ),
    ).rejects.toThrow(
      `trainer: maxLifetime: template ${args} launches runtype args, which runs no onstart`,
    );
    expect(await emulator.writes()).toEqual([]);
  });

  describe("the watchdog, run as the instance runs its onstart, with no Pulumi process", () => {
    /** Runs the instance's onstart as the service would, in an image holding only `tool`. */
    const runOnstart = async (instanceId: string, tool: "curl" | "wget" | "python3") => {
      const image = imageWithOnly(tool);
      if (image === undefined) throw new Error(`this machine has no ${tool}`);
      images.push(image);
      const started = spawn("/bin/sh", ["-c", await storedOnstart(instanceId)], {
        detached: true,
        stdio: "ignore",
        env: { PATH: image, CONTAINER_ID: instanceId, CONTAINER_API_KEY: emulator.apiKey },
      });
      watchdogs.push(started);
      // The onstart returns at once: the watchdog runs on, detached.
      await new Promise((resolve) => started.on("exit", resolve));
    };

    it.each(["curl", "wget", "python3"] as const)(
      "destroys the instance at its deadline (an image with only %s)",
      async (tool) => {
        const created = await create({ maxLifetime: "2s", onstart: "echo started" });
        await runOnstart(created.id, tool);
        expect(await client.instances.show(Number(created.id))).toBeDefined();

        await eventually(
          "the instance destroyed by its watchdog",
          async () => (await client.instances.show(Number(created.id))) === undefined,
          20_000,
        );
        expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(created.outs.expiresAt ?? ""));
        // The watchdog's one request, with the instance's key.
        const calls = (await emulator.requests()).filter(
          (entry) => entry.method === "DELETE" && entry.path.startsWith("/api/v0/instances/"),
        );
        expect(
          calls.map((entry) => `${entry.method} ${entry.path} ${String(entry.status)}`),
        ).toEqual([`DELETE /api/v0/instances/${created.id}/ 200`]);

        // Refresh: gone, it leaves the state, as any vanished instance does.
        expect(await instanceProvider.read(providers.run, created.id, created.outs)).toEqual({});
      },
    );

    it("stops it with onExpiry stop; refresh shows it stopped, and the next up replaces it, saying why", async () => {
      const created = await create({ maxLifetime: "2s", onExpiry: "stop" });
      await runOnstart(created.id, "curl");
      await eventually(
        "the instance stopped by its watchdog",
        async () =>
          (await client.instances.show(Number(created.id)))?.intended_status === "stopped",
        20_000,
      );

      const refreshed = await instanceProvider.read(providers.run, created.id, created.outs);
      expect(refreshed.props).toMatchObject({
        state: "stopped",
        expiresAt: created.outs.expiresAt,
      });
      const lines = providers.progress.length;
      const diff = await instanceProvider.diff(
        providers.run,
        created.id,
        refreshed.props as InstanceOutputs,
        created.inputs,
      );
      expect(diff).toMatchObject({ changes: true, replaces: ["expiresAt"] });
      expect(providers.progress.slice(lines)).toEqual([
        `trainer: instance ${created.id} expired at ${created.outs.expiresAt ?? ""} ` +
          "(maxLifetime 2s): its watchdog stopped it (its disk bills until it is replaced); it " +
          "is replaced by a new one",
        // The plan's price (provider/pricing): the replacement's, on the same ask.
        expect.stringMatching(
          /^Instance trainer: \$[\d.]+\/h after its replacement, \$0\.00\/h now; deleted before its replacement: ask 31001 /,
        ),
      ]);
      // Started again by hand after the deadline, it stops itself again at once.
      await client.instances.setState(Number(created.id), "running");
      await runOnstart(created.id, "python3");
      await eventually(
        "the instance stopped again",
        async () =>
          (await client.instances.show(Number(created.id)))?.intended_status === "stopped",
        20_000,
      );
    });
  });
});

describe("maxLifetime on a NodeGroup: one deadline for every node", () => {
  const providers = useEmulator({ per: "file", bootPolls: 1, market: { seed: 1 } });
  const { emulator } = providers;

  it("gives every node's watchdog the group's deadline, in the outputs too", async () => {
    const news: NodeGroupInputs = {
      nodeCount: 2,
      offerQuery: { gpuName: "H100 SXM" },
      image: "pytorch/pytorch",
      diskGb: 40,
      onstart: "torchrun train.py",
      maxLifetime: "8h",
      onExpiry: "stop",
      createTimeoutSeconds: 120,
      pollIntervalSeconds: 0.05,
      owner: "p/dev/trainers",
      stackToken,
    };
    const checked = await groupProvider.check(providers.run, {} as never, news);
    expect(checked.failures).toEqual([]);
    const beforeMs = Date.now();
    const { outs } = await groupProvider.create(providers.run, checked.inputs as NodeGroupInputs);
    const group = outs as NodeGroupOutputs;
    const { from, to } = deadlineWithin(28800, beforeMs, Date.now());
    const deadline = Date.parse(group.expiresAt ?? "") / 1000;
    expect(deadline).toBeGreaterThanOrEqual(from);
    expect(deadline).toBeLessThanOrEqual(to);

    const expiry = {
      maxLifetimeSeconds: 28800,
      onExpiry: "stop" as const,
      deadlineEpochSeconds: deadline,
    };
    expect(group.nodes.map((node) => node.expiresAt)).toEqual([
      expiresAtOf(expiry),
      expiresAtOf(expiry),
    ]);
    const state = await emulator.state();
    for (const node of group.nodes) {
      const stored = state.instances.find((instance) => instance.id === node.instanceId);
      expect(stored?.onstart).toBe(wrapOnstart("torchrun train.py", { expiry }, emulator.url));
    }
    // A refresh sees no drift from the watchdogs.
    const read = await groupProvider.read(providers.run, group.overlayName, group);
    expect(read).toEqual({ id: group.overlayName, props: group });
    await groupProvider.delete(providers.run, group.overlayName, group);
  });
});
