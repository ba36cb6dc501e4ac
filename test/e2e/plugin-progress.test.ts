import { withStack } from "../support/pulumi-stack";
import { emulatorConfig } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// Through the plugin (a Python program), an instance's progress lines reach the display in the
// order they were made: the status round's "instance N: running" before "instance N is running
// (attempt 1)" (issue 43: each line was a separate engine call, and they overtook each other).

describe("the plugin's progress lines (real Pulumi CLI)", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 3 });

  it("show an instance's boot in order, running last", async () => {
    const main = `import pulumi
import pulumi_gpucloud as gpucloud

gpu = gpucloud.Instance("gpu", ask_id=31001, image="pytorch/pytorch:latest", disk_gb=20,
                        poll_interval_seconds=0.05)
pulumi.export("instanceId", gpu.instance_id)
`;
    await withStack(
      {
        language: "python",
        program: { main, project: "plugin-progress" },
        config: emulatorConfig(emulator),
      },
      async ({ stack, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        const id = String(up.outputs["instanceId"]?.value);
        const shown = output.join("");
        const lines = [
          `attempt 1 of 3: instance ${id} from ask 31001, waiting for running`,
          `instance ${id}: running`,
          `instance ${id} is running (attempt 1)`,
        ];
        const at = lines.map((line) => shown.indexOf(line));
        expect(at.every((index) => index >= 0)).toBe(true);
        expect([...at].sort((a, b) => a - b)).toEqual(at);
        await stack.destroy({ onOutput });
      },
    );
  });
});
