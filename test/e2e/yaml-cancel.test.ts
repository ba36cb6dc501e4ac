import { withStack } from "../support/pulumi-stack";
import { useEmulator } from "../support/use-emulator";
import {
  descendantsOf,
  eventually,
  interruptUpWhileBooting,
  isAlive,
  releaseLock,
  startCli,
} from "../support/interrupt";
import { emulatorConfig, stateResources } from "../support/programs";
import { nativePluginDir } from "../support/yaml-stack";

// Ctrl-C while an instance boots, in a YAML program served by the native plugin: the engine
// calls the plugin's Cancel, which stops the boot wait; the create destroys the instance it
// rented and fails, and the run ends within 15 s of the Ctrl-C with nothing left billing. And
// a YAML up killed with its plugin: the program's own InstanceSweeper (YAML runs no SDK code
// that would declare it) makes `pulumi destroy` remove what the killed create left.
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
        // The program declares no sweeper: the plugin says what that costs, once.
        const diagnostics = output.split("Diagnostics:")[1] ?? "";
        expect(diagnostics.match(/depends on no gpucloud:index:InstanceSweeper/g)).toHaveLength(1);
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

const guardedProgram = `name: yaml-killed-e2e
runtime: yaml
plugins:
  providers:
    - name: gpucloud
      path: ${nativePluginDir}
resources:
  sweeper:
    type: gpucloud:index:InstanceSweeper
  trainer:
    type: gpucloud:index:Instance
    properties:
      askId: 31001
      image: pytorch/pytorch
      diskGb: 20
      pollIntervalSeconds: 1
    options:
      dependsOn:
        - \${sweeper}
`;

describe("a YAML up killed with its plugin while an instance boots (real Pulumi CLI)", () => {
  const { emulator } = useEmulator({ per: "file", bootSeconds: 120 });

  it("leaves nothing billing after pulumi destroy, and no warning", async () => {
    await withStack(
      { language: "yaml", program: { text: guardedProgram }, config: emulatorConfig(emulator) },
      async (stack) => {
        const cli = startCli(stack, ["up", "--yes", "--skip-preview"]);
        await eventually(
          "the instance rented",
          async () => (await emulator.state()).instances.length === 1,
        );
        // A cancelled CI job whose runner kills every process of the job, the plugin included.
        const tree = descendantsOf(cli.pid);
        process.kill(-cli.pid, "SIGKILL");
        for (const pid of tree) if (isAlive(pid)) process.kill(pid, "SIGKILL");
        await cli.exited;
        await releaseLock(stack);
        expect(cli.output.join("")).not.toMatch(/depends on no gpucloud:index:InstanceSweeper/);
        // The instance boots on, recorded by no resource: only the sweeper knows it.
        const [left] = (await emulator.state()).instances;
        expect(left).toBeDefined();
        expect(
          stateResources(await stack.exportState(false)).map((resource) => resource.type),
        ).toContain("gpucloud:index:InstanceSweeper");

        const destroyed = await stack.stack.destroy();
        expect(destroyed.summary.result).toBe("succeeded");
        expect(destroyed.stdout).toContain(`destroying instance ${String(left?.id)}`);
        expect((await emulator.state()).instances).toEqual([]);
      },
    );
  }, 180_000);
});
