import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { z } from "zod";
import { withStack, type TestStack } from "../support/pulumi-stack";
import { emulatorConfig, program } from "../support/programs";
import { costOf, previewJson } from "../support/price-matrix";
import { useEmulator } from "../support/use-emulator";
import { nativePluginDir } from "../support/yaml-stack";

const execFileAsync = promisify(execFile);

// The stack's cap (gpucloud:maxDollarsPerHour) at preview, with the real CLI: a cap just under
// the plan's total fails `pulumi up` in its preview with nothing sent, not even the volume
// checked first; the cap the failure suggests lets the same `up` through; a refresh under a cap
// the stack is over still succeeds, pricing nothing, and a preview that refreshes first fails on
// it. Through the plugin, the same failure on the resource's own row, once.

const layout = program(`
const a100 = { gpuName: "A100 PCIE", numGpus: 1 };
const data = new gpucloud.Volume("data", { volumeOfferQuery: { storageCostPerGbMonth: { lte: 0.06 } }, sizeGb: 50, forInstance: { offerQuery: a100, maxDollarsPerHour: 1 } });
new gpucloud.Instance("trainer", { offerQuery: a100, maxDollarsPerHour: 1, image: "pytorch/pytorch", diskGb: 40, volume: { volumeId: data.volumeId, mountPath: "/data" }, pollIntervalSeconds: 0.2 });
new gpucloud.NodeGroup("trainers", { offerQuery: { gpuName: "H100 SXM" }, nodeCount: 2, image: "pytorch/pytorch", diskGb: 40, pollIntervalSeconds: 0.2 });
`);

/** `pulumi up --yes` as a person runs it (previewing first); its output and whether it failed. */
async function cliUp(test: TestStack): Promise<{ output: string; failed: boolean }> {
  return execFileAsync("pulumi", ["up", "--yes", "--stack", test.stack.name], {
    cwd: test.workDir,
    env: { ...process.env, ...test.cliEnv },
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    ({ stdout }) => ({ output: stdout, failed: false }),
    (error: unknown) => ({
      output: z.object({ stdout: z.string() }).parse(error).stdout,
      failed: true,
    }),
  );
}

const suggestion = /raise the cap: pulumi config set gpucloud:maxDollarsPerHour (\d+(?:\.\d+)?)/;

describe("the stack's cap at preview (real CLI)", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 1, market: { seed: 1 } });

  it("TypeScript: a cap just under the plan fails up with nothing sent; the suggested cap lets it through", async () => {
    await withStack({ program: layout, config: emulatorConfig(emulator) }, async (test) => {
      const plan = await costOf((await previewJson(test)).text, "npm");
      const justUnder = Math.floor(plan.peak * 100 - 1) / 100;
      await test.stack.setConfig("gpucloud:maxDollarsPerHour", { value: String(justUnder) });
      await emulator.clearRequests();
      const refused = await cliUp(test);
      expect(refused.failed).toBe(true);
      // Nothing was sent: not the volume, whose check came first, nor anything after.
      expect(await emulator.writes()).toEqual([]);
      const suggested = Number(suggestion.exec(refused.output)?.[1]);
      expect(suggested).toBeGreaterThanOrEqual(plan.peak);
      await test.stack.setConfig("gpucloud:maxDollarsPerHour", { value: String(suggested) });
      const through = await cliUp(test);
      expect(through.failed).toBe(false);
      expect((await emulator.state()).instances).toHaveLength(3);
      // A refresh is no plan (the engine diffs what it reads only to show what drifted): under
      // a cap lowered below what the stack runs, it still reads the stack, and prices nothing.
      await test.stack.setConfig("gpucloud:maxDollarsPerHour", { value: String(justUnder) });
      const refreshOutput: string[] = [];
      const refreshed = await test.stack.refresh({ onOutput: (text) => refreshOutput.push(text) });
      expect(refreshed.summary.result).toBe("succeeded");
      expect(refreshOutput.join("")).not.toMatch(/gpucloud: (plan|Instance|NodeGroup|Volume)\b/);
      // A preview that refreshes first still holds the cap, once it checks the program.
      await expect(test.stack.preview({ refresh: true })).rejects.toThrow(
        /gpucloud:maxDollarsPerHour: the plan's expected total is \$\d+\.\d+\/h.*, over the stack's cap of \$\d+\.\d+\/h/,
      );
    });
  }, 300_000);

  it("the plugin (YAML): the same failure, on the resource's row, before anything is sent", async () => {
    const yaml = `name: price-cap-yaml
runtime: yaml
plugins:
  providers:
    - name: gpucloud
      path: ${nativePluginDir}
resources:
  sweeper:
    type: gpucloud:index:InstanceSweeper
  trainers:
    type: gpucloud:index:NodeGroup
    properties:
      offerQuery: { gpuName: "H100 SXM" }
      nodeCount: 2
      image: pytorch/pytorch
      diskGb: 40
    options:
      dependsOn:
        - \${sweeper}
`;
    await withStack(
      {
        language: "yaml",
        program: { text: yaml },
        config: { ...emulatorConfig(emulator), "gpucloud:maxDollarsPerHour": { value: "1" } },
      },
      async (test) => {
        await emulator.clearRequests();
        const refused = await previewJson(test);
        expect(refused.failed).toBe(true);
        const diagnostics = z
          .object({
            diagnostics: z.array(
              z.looseObject({ message: z.string(), urn: z.string().optional() }),
            ),
          })
          .parse(JSON.parse(refused.text)).diagnostics;
        const failure = diagnostics.filter((one) =>
          one.message.includes("gpucloud:maxDollarsPerHour:"),
        );
        expect(failure.map((one) => one.urn)).toEqual([
          "urn:pulumi:test::price-cap-yaml::gpucloud:index:NodeGroup::trainers",
        ]);
        expect(failure[0]?.message).toMatch(
          /the plan's expected total is \$\d+\.\d+\/h, over the stack's cap of \$1\.00\/h; the largest: trainers \$\d+\.\d+\/h; nothing was sent/,
        );
        expect(await emulator.writes()).toEqual([]);
      },
    );
  }, 120_000);
});
