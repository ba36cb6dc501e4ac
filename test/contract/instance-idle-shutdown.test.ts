import { GpuCloudClient } from "../../provider/client";
import {
  implementation as instanceProvider,
  instanceInputsSchema,
  type InstanceInputs,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import { readOnstart } from "../../provider/shared/expiry-watchdog";
import { useEmulator } from "../support/use-emulator";
import { eventually } from "./serverless-support";

// idleShutdown against an emulator that runs each instance's onstart (`runOnstart`), its
// stand-in nvidia-smi reporting what the test sets: the instance's own watchdog destroys or
// stops it once idle for the period, with no Pulumi process involved, and leaves a busy one.
// Then what a change of the rule does: a rebuild of the container in place.

jest.setTimeout(90_000);

const ASK = 31001; // a seeded ask: one RTX 4090
const OTHER_ASK = 31002;
const stackToken = "idle-contract-token-01";

describe("idleShutdown: the instance's own watchdog", () => {
  let client: GpuCloudClient;
  const providers = useEmulator({ per: "file", runOnstart: true, bootPolls: 1 });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  const create = async (askId: number, fields: Record<string, unknown>) => {
    const news = instanceInputsSchema.parse({
      askId,
      image: "pytorch/pytorch",
      diskGb: 10,
      pollIntervalSeconds: 0.05,
      owner: `p/dev/trainer-${String(askId)}`,
      stackToken,
      ...fields,
    });
    const checked = await instanceProvider.check(providers.run, {} as never, news);
    expect(checked.failures).toEqual([]);
    const { id, outs } = await instanceProvider.create(
      providers.run,
      checked.inputs as InstanceInputs,
    );
    if (outs === undefined) throw new Error("create recorded no outputs");
    return {
      id: Number(id),
      outs,
      inputs: checked.inputs as InstanceInputs,
      createdMs: Date.now(),
    };
  };

  it("destroys an idle instance and leaves a busy one, until it too is idle for the period (then stopped)", async () => {
    // The busy one first, so that its period ends before the idle one's.
    const busy = await create(OTHER_ASK, { idleShutdown: { after: "3s", action: "stop" } });
    await emulator.setGpuUtilization(busy.id, 60);
    const idleRentedMs = Date.now();
    const idle = await create(ASK, { idleShutdown: { after: "3s" }, onstart: "echo started" });

    await eventually(
      "the idle instance destroyed by its own watchdog",
      async () => (await client.instances.show(idle.id)) === undefined,
      30_000,
    );
    // Not before the period: its watchdog started after the rent was asked for, and counts in
    // the whole seconds of `date +%s`, so 3 s of its clock are more than 2 s of this one.
    expect(Date.now() - idleRentedMs).toBeGreaterThan(2000);
    const calls = (await emulator.requests()).filter(
      (entry) => entry.method !== "GET" && entry.instanceKey === true,
    );
    // One call, with the instance's own key: its watchdog's.
    expect(calls.map((entry) => `${entry.method} ${entry.path} ${String(entry.status)}`)).toEqual([
      `DELETE /api/v0/instances/${String(idle.id)}/ 200`,
    ]);
    // A negative needs its window: the busy one's period and one more look (1 s apart) have
    // passed since its watchdog started (before its create returned); at 60% it runs on.
    while (Date.now() < busy.createdMs + 3000 + 1500) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await client.instances.show(busy.id)).toMatchObject({
      actual_status: "running",
      intended_status: "running",
    });

    // Idle from now: its watchdog stops it (action stop) once the period has passed.
    const idleFromMs = Date.now();
    await emulator.setGpuUtilization(busy.id, 0);
    await eventually(
      "the busy instance stopped once idle",
      async () => (await client.instances.show(busy.id))?.intended_status === "stopped",
      30_000,
    );
    // The period counts from its last busy look, at most a look (1 s) before the change, in the
    // whole seconds of the watchdog's `date +%s` (up to 1 s more): 3 s less 2 s at most.
    expect(Date.now() - idleFromMs).toBeGreaterThanOrEqual(1000);
    await instanceProvider.delete(providers.run, String(busy.id), busy.outs);
  });

  it("changes the rule by rebuilding the container in place; the same rule written otherwise changes nothing on the service", async () => {
    const created = await create(ASK, {
      maxLifetime: "8h",
      idleShutdown: { after: "30m" },
      onstart: "echo hi",
    });
    const olds: InstanceOutputs = created.outs;
    const onstartOf = async () =>
      (await emulator.state()).instances.find((instance) => instance.id === created.id)?.onstart ??
      "";
    expect(readOnstart(await onstartOf())).toMatchObject({
      onstart: "echo hi",
      expiry: { maxLifetimeSeconds: 28800, onExpiry: "destroy" },
      idle: { afterSeconds: 1800, action: "destroy" },
    });

    // Written otherwise: recorded, nothing sent.
    const same = {
      ...created.inputs,
      idleShutdown: { after: "1800s", action: "destroy" as const },
    };
    expect(
      await instanceProvider.diff(providers.run, String(created.id), olds, same),
    ).toMatchObject({ changes: true, replaces: [] });
    await emulator.clearRequests();
    const recorded = await instanceProvider.update?.(providers.run, String(created.id), olds, same);
    expect(await emulator.writes()).toEqual([]);
    expect(recorded?.outs).toMatchObject({ idleShutdown: same.idleShutdown });

    // A new rule: the same instance, its container rebuilt with the new watchdog, the deadline kept.
    const news = { ...created.inputs, idleShutdown: { after: "2h", action: "stop" as const } };
    const lines = providers.progress.length;
    const diff = await instanceProvider.diff(providers.run, String(created.id), olds, news);
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    expect(providers.progress.slice(lines).join("\n")).toContain(
      `instance ${String(created.id)} is updated in place: the container is rebuilt`,
    );
    const updated = await instanceProvider.update?.(providers.run, String(created.id), olds, news);
    expect(updated?.outs).toMatchObject({
      instanceId: created.id,
      idleShutdown: news.idleShutdown,
      expiresAt: olds.expiresAt,
    });
    expect(readOnstart(await onstartOf())).toMatchObject({
      onstart: "echo hi",
      expiry: { deadlineEpochSeconds: Date.parse(olds.expiresAt ?? "") / 1000 },
      idle: { afterSeconds: 7200, action: "stop" },
    });

    // Import gives the rule back, as a program writes it.
    const imported = await instanceProvider.read(providers.run, String(created.id), undefined);
    expect(imported.inputs).toMatchObject({ idleShutdown: { after: "2h", action: "stop" } });
    await instanceProvider.delete(
      providers.run,
      String(created.id),
      updated?.outs as InstanceOutputs,
    );
  });
});
