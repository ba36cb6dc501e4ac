import {
  commandOf,
  descendantsOf,
  eventually,
  interruptUpWhileBooting,
  isAlive,
  releaseLock,
  type RunningCli,
  startCli,
} from "../support/interrupt";
import { type TestStack, withStack } from "../support/pulumi-stack";
import { dynamicResources, emulatorConfig, outsideClient, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// A `pulumi up` interrupted while an instance boots: killed (a cancelled CI job) or Ctrl-C. An
// instance bills by the hour, so none may be left that no stack records, and after a Ctrl-C
// nothing more is rented.

const trainer = (image: string, extra = "", askId = 31001) =>
  program(`
const trainer = new gpucloud.Instance("trainer", {
  askIds: [${askId}],
  image: ${JSON.stringify(image)},
  diskGb: 20,
  pollIntervalSeconds: 0.2,
  createTimeoutSeconds: 300,
  ${extra}
});
exports.instanceId = trainer.instanceId;
exports.actualStatus = trainer.actualStatus;
exports.intendedStatus = trainer.intendedStatus;
`);

const OWNER_VARIABLE = "PULUMI_GPUCLOUD_OWNER";
const STACK_VARIABLE = "PULUMI_GPUCLOUD_STACK";

describe("Instance under interrupted runs (real Pulumi CLI)", () => {
  const { emulator } = useEmulator({ per: "test" });

  const instanceIds = async () => (await emulator.state()).instances.map((i) => i.id);
  const imageOf = async (id: number) =>
    (await emulator.state()).instances.find((i) => i.id === id)?.["image"];

  /** Starts `pulumi up` and returns once `count` instances exist on the account. */
  async function upUntilRented(stack: TestStack, count: number): Promise<RunningCli> {
    const cli = startCli(stack, ["up", "--yes", "--skip-preview"]);
    await eventually(
      `${count} instance(s) rented`,
      async () => (await instanceIds()).length >= count,
    );
    return cli;
  }

  const providersOf = (cli: RunningCli) =>
    descendantsOf(cli.pid).filter((pid) => commandOf(pid).includes("dynamic-provider"));

  /** Kills the CLI's process group, as a cancelled CI job does; its plugins live on. */
  async function killCli(stack: TestStack, cli: RunningCli): Promise<number[]> {
    const providers = providersOf(cli);
    expect(providers.length).toBeGreaterThan(0);
    process.kill(-cli.pid, "SIGKILL");
    await cli.exited;
    await releaseLock(stack);
    return providers;
  }

  /** Kills the CLI and every process below it: nothing of the run can clean up. */
  async function killEverything(stack: TestStack, cli: RunningCli): Promise<void> {
    const tree = descendantsOf(cli.pid);
    process.kill(-cli.pid, "SIGKILL");
    for (const pid of tree) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    await cli.exited;
    await releaseLock(stack);
  }

  it("killed, then up: the killed run's provider cleans up and exits, and one instance runs; a replacement killed in between ends with exactly one instance, of the new image; stopped outside Pulumi, refresh and up start it again in place, and up stops it in place", async () => {
    await emulator.queueBoots([{ status: "running", afterSeconds: 600 }]);
    await withStack(
      { program: trainer("img-a"), config: emulatorConfig(emulator) },
      async (stack) => {
        const providers = await killCli(stack, await upUntilRented(stack, 1));
        // The provider notices its engine is gone, destroys what it rented, and exits.
        await eventually("the killed run's providers to exit", () =>
          providers.every((pid) => !isAlive(pid)),
        );
        expect(await instanceIds()).toEqual([]);

        const up = await stack.stack.up({ onOutput: (text) => stack.output.push(text) });
        expect(await instanceIds()).toEqual([up.outputs["instanceId"]?.value]);
        expect(up.outputs["actualStatus"]?.value).toBe("running");
        const [original] = await instanceIds();

        // A replacement killed in between. Another ask, so that the new instance is created
        // before the old one is destroyed.
        await stack.setProgram(trainer("img-b", "", 31002));
        await emulator.queueBoots([{ status: "running", afterSeconds: 10 }]);
        await killEverything(stack, await upUntilRented(stack, 2));
        const replaced = await stack.stack.up({ onOutput: (text) => stack.output.push(text) });
        const ids = await instanceIds();
        expect(ids).toHaveLength(1);
        expect(ids).not.toContain(original);
        expect(replaced.outputs["instanceId"]?.value).toBe(ids[0]);
        expect(await imageOf(ids[0] ?? 0)).toBe("img-b");

        // The instance, once up has run uninterrupted: stopped outside Pulumi, refresh shows
        // it and up starts it again, in place; declared stopped, up stops it in place. (An
        // instance created stopped: test/contract/instance-create.test.ts.)
        const said: string[] = [];
        const onOutput = (text: string) => said.push(text);
        const [id] = ids;
        await outsideClient(emulator).instances.setState(id ?? 0, "stopped");
        const drift = await stack.stack.refresh({ onOutput });
        expect(drift.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        const restored = await stack.stack.up({ onOutput });
        expect(restored.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect(restored.outputs["actualStatus"]?.value).toBe("running");
        expect(await instanceIds()).toEqual([id]);
        await stack.setProgram(trainer("img-b", `state: "stopped",`, 31002));
        const stopped = await stack.stack.up({ onOutput });
        expect(stopped.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect(stopped.outputs["actualStatus"]?.value).toBe("stopped");
        expect(stopped.outputs["intendedStatus"]?.value).toBe("stopped");
        expect(await instanceIds()).toEqual([id]);
        // The engine also sends Cancel when it closes each finished operation's providers:
        // nothing in flight then, nothing said.
        expect(said.join("")).not.toMatch(/Ctrl-C/);

        await stack.stack.destroy({ onOutput: (text) => stack.output.push(text) });
        expect(await instanceIds()).toEqual([]);
      },
    );
  });

  it("Ctrl-C while an instance boots: it is destroyed at once, nothing is rented after, nothing recorded; then killed with its providers, destroy: the stack's instances are gone, no other", async () => {
    const outside = outsideClient(emulator);
    const others: number[] = [];
    // Without the Ctrl-C it would run 6 s after its rent, and be recorded.
    await emulator.queueBoots([{ status: "running", afterSeconds: 6 }]);
    await withStack(
      { program: trainer("img-a"), config: emulatorConfig(emulator) },
      async (stack) => {
        const { rentedId, code, tookMs, output, rentsAfter } = await interruptUpWhileBooting(
          stack,
          emulator,
        );
        expect(code).not.toBe(0);
        expect(output).toMatch(/gpucloud: Ctrl-C: nothing more is rented/);
        expect(output).toContain(
          `trainer: cancelled: instance ${String(rentedId)} destroyed; nothing is left running`,
        );
        expect(rentsAfter).toEqual([]);
        expect(tookMs).toBeLessThan(15_000);
        expect(await instanceIds()).toEqual([]);
        const recorded = dynamicResources(await stack.exportState(false))
          .map((resource) => resource.outputs?.["instanceId"])
          .filter((id) => id !== undefined);
        expect(recorded).toEqual([]);
        process.stderr.write(`typescript-cancel: Ctrl-C to the CLI's exit: ${tookMs} ms\n`);

        // Then a run killed with its providers, beside instances that are not the stack's.
        const otherToken = "6fa459ea-ee8a-4ca4-894e-db77e160355e";
        others.push(
          await outside.instances.create(31001, {
            image: "img",
            disk: 10,
            env: { [OWNER_VARIABLE]: "gpucloud-e2e/other-stack/trainer" },
          }),
          // A namesake stack's (same project, stack and resource names, another backend), both
          // being created and handed over; and one rented before stack tokens existed.
          await outside.instances.create(31001, {
            image: "img",
            disk: 10,
            label: `pulumi-gpucloud:creating:${otherToken}`,
            env: { [OWNER_VARIABLE]: "gpucloud-e2e/test/trainer", [STACK_VARIABLE]: otherToken },
          }),
          await outside.instances.create(31001, {
            image: "img",
            disk: 10,
            env: { [OWNER_VARIABLE]: "gpucloud-e2e/test/trainer", [STACK_VARIABLE]: otherToken },
          }),
          await outside.instances.create(31001, {
            image: "img",
            disk: 10,
            env: { [OWNER_VARIABLE]: "gpucloud-e2e/test/trainer" },
          }),
          await outside.instances.create(31001, { image: "img", disk: 10 }),
        );
        await emulator.queueBoots([{ status: "running", afterSeconds: 600 }]);
        await killEverything(stack, await upUntilRented(stack, others.length + 1));
        expect(await instanceIds()).toHaveLength(others.length + 1);

        // The state records no instance (its create was pending): the sweeper finds it.
        await stack.stack.destroy({ onOutput: (text) => stack.output.push(text) });
        expect(await instanceIds()).toEqual(others);
      },
    );
    for (const id of others) await outside.instances.destroy(id);
  });

  it("killed while the second attempt boots, then up: the booting one is adopted, none left over", async () => {
    await emulator.queueBoots([
      { status: "exited", afterPolls: 1 },
      { status: "running", afterSeconds: 12 },
    ]);
    await withStack(
      { program: trainer("img-a"), config: emulatorConfig(emulator), teardown: "discard" },
      async (stack) => {
        const cli = startCli(stack, ["up", "--yes", "--skip-preview"]);
        await eventually("the second attempt rented", async () =>
          (await instanceIds()).some((id) => id > 1000001),
        );
        await killEverything(stack, cli);
        const [leftover] = await instanceIds();

        const up = await stack.stack.up({ onOutput: (text) => stack.output.push(text) });
        expect(await instanceIds()).toEqual([leftover]);
        expect(up.outputs["instanceId"]?.value).toBe(leftover);
        expect(stack.output.join("")).toMatch(
          /trainer: adopting instance \d+, rented by an interrupted run/,
        );
      },
    );
  });
});
