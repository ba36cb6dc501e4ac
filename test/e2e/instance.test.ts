import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, outsideClient, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

const baseArgs = {
  askId: 31001,
  image: "pytorch/pytorch:latest",
  diskGb: 20,
  pollIntervalSeconds: 0.05,
};

const instanceProgram = (args: Record<string, unknown>) =>
  program(`
const gpu = new gpucloud.Instance("gpu", ${JSON.stringify(args)});
exports.instanceId = gpu.instanceId;
exports.actualStatus = gpu.actualStatus;
exports.sshHost = gpu.sshHost;
exports.sshPort = gpu.sshPort;
exports.publicIp = gpu.publicIp;
exports.gpuRamMb = gpu.gpuRamMb;
exports.attempts = gpu.attempts;
// Inputs read back as outputs, given or not (maxLifetime is not).
exports.diskGb = gpu.diskGb;
exports.maxLifetimeReadable = typeof gpu.maxLifetime?.apply === "function";
`);

describe("Instance under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 4 });

  // One stack for what the engine adds to an Instance's life: an instance the create could not
  // destroy is recorded in the state (and replaced by the next up), the progress line printed,
  // the outputs a program reads, updates in place, refresh of one destroyed outside Pulumi. What
  // the create does with each boot (attempts, a lost reply, the deadline, a long onstart, the
  // status reads) is test/contract/instance-create.test.ts.
  it("keeps an instance it cannot destroy in the stack and replaces it; relabels in place; refresh drops one destroyed outside", async () => {
    // The first boot exits and destroy requests fail (500 is not retried): it cannot be removed.
    await emulator.queueBoots([{ status: "exited", afterPolls: 1 }]);
    await emulator.setFaults({ serverErrors: { rate: 1, status: 500, methods: ["DELETE"] } });
    await withStack(
      { program: instanceProgram(baseArgs), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, output }) => {
        const onOutput = (text: string) => output.push(text);
        await expect(stack.up({ onOutput })).rejects.toThrow(
          /instance \d+ did not reach running and could not be destroyed; it is kept in the stack/,
        );
        const [kept] = (await emulator.state()).instances;
        const exported = await stack.exportStack();
        const deployment = exported.deployment as { resources?: { id?: string }[] };
        expect((deployment.resources ?? []).map((resource) => resource.id)).toContain(
          String(kept?.id),
        );

        // The next up replaces the broken instance: a running one, and the kept one destroyed.
        await emulator.clearFaults();
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ same: 2, replace: 1 });
        const [instance] = (await emulator.state()).instances;
        expect((await emulator.state()).instances).toHaveLength(1);
        expect(instance?.id).not.toBe(kept?.id);
        expect(up.outputs["instanceId"]?.value).toBe(instance?.id);
        expect(up.outputs["actualStatus"]?.value).toBe("running");
        expect(up.outputs["sshHost"]?.value).toEqual(expect.any(String));
        expect(up.outputs["sshPort"]?.value).toEqual(expect.any(Number));
        expect(up.outputs["publicIp"]?.value).toMatch(/^192\.0\.2\./);
        expect(up.outputs["gpuRamMb"]?.value).toBe(24564);
        expect(up.outputs["attempts"]?.value).toHaveLength(1);
        expect(up.outputs["diskGb"]?.value).toBe(20);
        expect(up.outputs["maxLifetimeReadable"]?.value).toBe(true);
        expect(output.join("")).toMatch(/attempt 1 of 3: instance \d+ from ask 31001/);

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 3 });

        await setProgram(instanceProgram({ ...baseArgs, label: "training" }));
        const relabel = await stack.up({ onOutput });
        expect(relabel.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect((await emulator.state()).instances).toEqual([
          expect.objectContaining({ id: instance?.id, label: "training" }),
        ]);

        // A removed label is cleared in place (that the next diff is then steady:
        // test/contract/instance-create.test.ts).
        await setProgram(instanceProgram(baseArgs));
        const unlabel = await stack.up({ onOutput });
        expect(unlabel.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect((await emulator.state()).instances[0]?.label).toBe("");

        // Destroyed outside Pulumi: refresh drops it, up rents another.
        await outsideClient(emulator).instances.destroy(instance?.id ?? 0);
        const refresh = await stack.refresh({ onOutput });
        expect(refresh.summary.resourceChanges).toEqual({ same: 2, delete: 1 });
        const recreate = await stack.up({ onOutput });
        expect(recreate.summary.resourceChanges).toEqual({ same: 2, create: 1 });

        await stack.destroy({ onOutput });
        expect((await emulator.state()).instances).toEqual([]);
      },
    );
  });
});
