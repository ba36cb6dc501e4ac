import { withStack } from "../support/pulumi-stack";
import { useEmulator } from "../support/use-emulator";
import { interruptUpWhileBooting } from "../support/interrupt";
import { emulatorConfig } from "../support/programs";
import { nativePluginDir } from "../support/yaml-stack";

// Ctrl-C while an instance boots, in a YAML program served by the native plugin: the engine
// calls the plugin's Cancel, which stops the boot wait; the create destroys the instance it
// rented and fails, and the run ends within 15 s of the Ctrl-C with nothing left billing.
const program = `name: yaml-cancel-e2e
runtime: yaml
plugins:
  providers:
    - name: gpucloud
      path: ${nativePluginDir}
resources:
  trainer:
    type: gpucloud:index:Instance
    properties:
      askId: 31001
      image: pytorch/pytorch
      diskGb: 20
      pollIntervalSeconds: 1
`;

describe("Ctrl-C with the native plugin (real Pulumi CLI, YAML)", () => {
  // Boots take two minutes: only the Ctrl-C ends the create early.
  const { emulator } = useEmulator({ per: "file", bootSeconds: 120 });

  it("destroys the booting instance and ends the run within 15 s", async () => {
    await withStack(
      { language: "yaml", program: { text: program }, config: emulatorConfig(emulator) },
      async ({ workDir, cliEnv, exportState }) => {
        const { rentedId, code, tookMs, output } = await interruptUpWhileBooting(
          { workDir, cliEnv },
          emulator,
        );
        expect(code).not.toBe(0);
        expect(output).toMatch(/cancelling/);
        expect(output).toContain(
          `trainer: cancelled: instance ${String(rentedId)} destroyed; nothing is left running`,
        );
        expect(tookMs).toBeLessThan(15_000);
        expect((await emulator.state()).instances).toEqual([]);
        // Nothing recorded but the stack and the provider.
        const state = JSON.parse(await exportState(false)) as {
          deployment: { resources?: { type: string }[] };
        };
        expect((state.deployment.resources ?? []).map((resource) => resource.type)).not.toContain(
          "gpucloud:index:Instance",
        );
        process.stderr.write(`yaml-cancel: Ctrl-C to the CLI's exit: ${tookMs} ms\n`);
      },
    );
  }, 180_000);
});
