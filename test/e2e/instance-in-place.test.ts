import { withStack } from "../support/pulumi-stack";
import { useEmulator } from "../support/use-emulator";
import { emulatorConfig } from "../support/programs";

// A new image, env and onstart on a running Instance, through the plugin from Python: the
// container is rebuilt on its machine (the TypeScript classes' template change is in
// instance-bids.test.ts), with preview saying "in place" on the instance's row.

const program = (image: string, model: string) => `import pulumi
import pulumi_gpucloud as gpucloud

gpu = gpucloud.Instance("trainer", ask_id=31001, image="${image}", disk_gb=20,
                        env={"MODEL": "${model}"}, onstart="echo serving ${model}",
                        poll_interval_seconds=0.05)
pulumi.export("instanceId", gpu.instance_id)
pulumi.export("dollarsPerHour", gpu.dollars_per_hour)
`;

describe("an Instance's container changed in place", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 2 });

  it("Python: a new image, env and onstart keep the instance, its machine and price; preview says in place", async () => {
    await withStack(
      {
        language: "python",
        program: { main: program("pytorch/pytorch:latest", "a"), project: "python-in-place" },
        config: emulatorConfig(emulator),
      },
      async ({ stack, setProgram }) => {
        const up = await stack.up();
        const id = up.outputs["instanceId"]?.value as number;
        const [before] = (await emulator.state()).instances;

        await setProgram(program("vllm/vllm-openai:v0.6.1", "b"));
        const output: string[] = [];
        const preview = await stack.preview({ onOutput: (text) => output.push(text) });
        expect(preview.changeSummary).toEqual({ same: 2, update: 1 });
        // On the instance's own row, through the plugin.
        expect(output.join("")).toMatch(
          new RegExp(
            String.raw`gpucloud:index:Instance trainer .*instance ${String(id)} is updated in ` +
              "place: the container is rebuilt on its machine",
          ),
        );

        const changed = await stack.up();
        expect(changed.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect(changed.outputs["instanceId"]?.value).toBe(id);
        expect(changed.outputs["dollarsPerHour"]?.value).toBe(up.outputs["dollarsPerHour"]?.value);
        const after = (await emulator.state()).instances;
        expect(after).toHaveLength(1);
        expect(after[0]).toMatchObject({
          id,
          offer: before?.["offer"],
          image: "vllm/vllm-openai:v0.6.1",
          env: { MODEL: "b" },
          onstart: "echo serving b",
        });
        expect((await stack.preview()).changeSummary).toEqual({ same: 3 });

        await stack.destroy();
        expect((await emulator.state()).instances).toEqual([]);
      },
    );
  });
});
