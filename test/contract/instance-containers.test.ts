import {
  diffInstance,
  implementation as instanceProvider,
  instanceInputsSchema,
  type InstanceInputs,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import { readOnstart } from "../../provider/shared/expiry-watchdog";
import { useEmulator } from "../support/use-emulator";

// A change of what runs in an Instance's container, made in place: the same instance on the
// same machine, at the same price (resources/instance/container.ts).

const ASK = 31001; // a seeded ask

describe("an Instance's container changed in place", () => {
  const providers = useEmulator({ per: "test", bootPolls: 1 });
  const { emulator } = providers;

  const inputs = (fields: Record<string, unknown>) =>
    instanceInputsSchema.parse({
      askId: ASK,
      image: "pytorch/pytorch",
      diskGb: 20,
      runtype: "ssh",
      pollIntervalSeconds: 0.05,
      owner: "p/s/gpu",
      ...fields,
    });

  async function created(fields: Record<string, unknown>) {
    const made = await instanceProvider.create(providers.run, inputs(fields));
    await emulator.clearRequests();
    return { id: made.id, olds: made.outs as InstanceOutputs };
  }

  const writes = async () => (await emulator.writes()).map((w) => `${w.method} ${w.path}`);

  it("rebuilds on a new image, env and onstart: one write, the same instance and price, the watchdog's deadline kept", async () => {
    const { id, olds } = await created({
      env: { MODEL: "a", DROPPED: "1" },
      onstart: "echo one",
      maxLifetime: "8h",
    });
    const news = inputs({
      image: "vllm/vllm-openai:v0.6.1",
      env: { MODEL: "b" },
      onstart: "echo two",
      maxLifetime: "8h",
    });
    expect(diffInstance(olds, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });

    const updated = await instanceProvider.update?.(providers.run, id, olds, news);

    expect(await writes()).toEqual([
      `PUT /api/v0/instances/update_template/${String(olds.instanceId)}/`,
    ]);
    expect(updated?.outs).toMatchObject({
      instanceId: olds.instanceId,
      image: "vllm/vllm-openai:v0.6.1",
      env: { MODEL: "b" },
      onstart: "echo two",
      actualStatus: "running",
      dollarsPerHour: olds.dollarsPerHour,
      expiresAt: olds.expiresAt,
    });
    const [instance] = (await emulator.state()).instances;
    expect(instance).toMatchObject({ id: olds.instanceId, image: "vllm/vllm-openai:v0.6.1" });
    // What the program dropped is gone; the watchdog wraps the new onstart, same deadline.
    expect(instance?.["env"]).toEqual({ MODEL: "b" });
    const onstart = readOnstart(String(instance?.["onstart"]));
    expect((onstart.expiry?.deadlineEpochSeconds ?? 0) * 1000).toBe(
      Date.parse(olds.expiresAt ?? ""),
    );
  });

  it("reboots on a new restartTrigger and recycles on a new recycleTrigger; a first value does nothing", async () => {
    const { id, olds } = await created({});
    const first = inputs({ restartTrigger: "1", recycleTrigger: "1" });
    const recorded = await instanceProvider.update?.(providers.run, id, olds, first);
    expect(await writes()).toEqual([]);

    const rebooted = await instanceProvider.update?.(
      providers.run,
      id,
      recorded?.outs as InstanceOutputs,
      inputs({ restartTrigger: "2", recycleTrigger: "1" }),
    );
    await instanceProvider.update?.(
      providers.run,
      id,
      rebooted?.outs as InstanceOutputs,
      inputs({ restartTrigger: "2", recycleTrigger: "2" }),
    );
    expect(await writes()).toEqual([
      `PUT /api/v0/instances/reboot/${String(olds.instanceId)}/`,
      `PUT /api/v0/instances/recycle/${String(olds.instanceId)}/`,
    ]);
    expect((await emulator.state()).instances.map((i) => i.id)).toEqual([olds.instanceId]);
  });

  it("says at preview why a change replaces, and that one in place is in place", async () => {
    const { id, olds } = await created({});
    const said = async (news: ReturnType<typeof inputs>) => {
      const from = providers.progress.length;
      await instanceProvider.diff?.(providers.run, id, olds, news);
      return providers.progress.slice(from).join("\n");
    };
    expect(await said(inputs({ diskGb: 40, image: "vllm/vllm-openai" }))).toContain(
      `instance ${String(olds.instanceId)} is replaced: diskGb (the disk's size is fixed at rent)`,
    );
    expect(
      await said(inputs({ image: "vllm/vllm-openai", replaceOnChanges: ["image"] })),
    ).toContain("is replaced: image (replaceOnChanges asks for it)");
    const inPlace = await said(inputs({ image: "vllm/vllm-openai" }));
    expect(inPlace).toContain(`instance ${String(olds.instanceId)} is updated in place`);
    expect(inPlace).not.toContain("is replaced");
    expect(await writes()).toEqual([]);
  });

  it("passes args to the entrypoint at create and changes them in place, quoted as a shell reads them", async () => {
    const { id, olds } = await created({ runtype: "args", args: ["--model", "Qwen/Qwen3-8B"] });
    const [launched] = (await emulator.state()).instances;
    expect(launched?.["args"]).toEqual(["--model", "Qwen/Qwen3-8B"]);

    const news = inputs({ runtype: "args", args: ["--prompt", "it's $HOME", "--port=8000"] });
    expect(diffInstance(olds, news)).toMatchObject({ changes: true, replaces: [] });
    await instanceProvider.update?.(providers.run, id, olds, news);

    expect(await writes()).toEqual([
      `PUT /api/v0/instances/update_template/${String(olds.instanceId)}/`,
    ]);
    const [rebuilt] = (await emulator.state()).instances;
    expect(rebuilt).toMatchObject({
      id: olds.instanceId,
      args: ["--prompt", "it's $HOME", "--port=8000"],
    });
  });

  it("refuses args without runtype args at check, naming the field and sending nothing", async () => {
    const news = { askId: ASK, image: "pytorch/pytorch", diskGb: 20, args: ["--secret-ish"] };
    const checked = await instanceProvider.check(
      providers.run,
      {} as InstanceInputs,
      news as unknown as InstanceInputs,
    );
    // One line naming the field (`property` empty: the engine would print the value).
    expect((checked.failures ?? []).map((failure) => [failure.property, failure.reason])).toEqual([
      [
        "",
        'args: the image\'s entrypoint takes arguments only with runtype "args"; set runtype: "args", or run the commands in onstart',
      ],
    ]);
    expect(JSON.stringify(checked.failures)).not.toContain("--secret-ish");
    expect(await emulator.writes()).toEqual([]);
  });
});
