import type { Stack } from "@pulumi/pulumi/automation";
import type { TestEmulator } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, outsideClient, stateResources } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// The stack's cap at `up` (gpucloud:maxDollarsPerHour), with the real Pulumi CLI: ten instances
// declared at once under a cap that admits seven. `up` fails naming the cap, no more than seven
// are rented, every one of them is in the stack's state with the price the service reports,
// and destroy leaves nothing.
describe("the stack's cap at up (real Pulumi CLI)", () => {
  // The seeded asks alone, each rentable any number of times: every instance costs the same.
  const { emulator } = useEmulator({ per: "test", bootPolls: 1, market: false });

  /** What the service quotes ask 31001 at for a 10 GB disk, $/hour. */
  const quote = async (on: TestEmulator): Promise<number> => {
    const [row] = await outsideClient(on).instances.searchOffers({
      id: { eq: 31001 },
      allocated_storage: 10,
    });
    if (row?.dph_total == null) throw new Error("ask 31001 is not offered");
    return row.dph_total;
  };

  const configWithCap = (on: TestEmulator, cap: number) => ({
    ...emulatorConfig(on),
    "gpucloud:maxDollarsPerHour": { value: String(cap) },
  });

  /** Runs `up`, which must fail; its output, for the assertions. */
  const failingUp = async (stack: Stack): Promise<string> => {
    const output: string[] = [];
    // Parallel above the count: every create runs at once.
    const up = stack.up({ parallel: 16, onOutput: (text) => output.push(text) });
    await expect(up).rejects.toThrow();
    return output.join("");
  };

  /** What the account holds against what the stack's state records, and the prices. */
  const expectStateHoldsTheAccount = async (exported: string) => {
    const instances = stateResources(exported).filter(
      (resource) =>
        resource.type === "gpucloud:index:Instance" ||
        resource.type === "pulumi-nodejs:dynamic/gpucloud:Instance",
    );
    const account = await outsideClient(emulator).instances.list();
    expect(account.length).toBeGreaterThan(0);
    expect(account.length).toBeLessThanOrEqual(7);
    const recorded = instances.map((resource) => Number(resource.outputs?.["instanceId"]));
    expect(new Set(recorded)).toEqual(new Set(account.map((instance) => instance.id)));
    for (const resource of instances) {
      const shown = account.find((i) => i.id === Number(resource.outputs?.["instanceId"]));
      // As the service reports it, to its six decimals.
      expect(resource.outputs?.["dollarsPerHour"]).toBe(
        Math.round((shown?.dph_total ?? NaN) * 1e6) / 1e6,
      );
    }
    return account.length;
  };

  const refused =
    /over its cap gpucloud:maxDollarsPerHour|gpucloud:maxDollarsPerHour: the plan's expected total is \$[\d.]+\/h, over the stack's cap/;

  it("TypeScript: ten instances at once under a cap admitting seven", async () => {
    const price = await quote(emulator);
    const body = `
for (let index = 0; index < 10; index++) {
  new gpucloud.Instance("worker-" + index, {
    askId: 31001, image: "img", diskGb: 10, pollIntervalSeconds: 0.05,
  });
}
`;
    await withStack(
      {
        program: `"use strict";\nconst gpucloud = require("pulumi-gpucloud");\n${body}`,
        config: configWithCap(emulator, price * 7.5),
      },
      async ({ stack, exportState }) => {
        const output = await failingUp(stack);
        // The Automation API's up skips the preview: the eighth is refused at its check (the
        // plan's total) or, when its check ran before the others', at its rent (the stack's).
        expect(output).toMatch(refused);
        expect(output).toMatch(/pulumi config set gpucloud:maxDollarsPerHour/);
        const rented = await expectStateHoldsTheAccount(await exportState());
        expect(rented).toBe(7);

        await stack.destroy();
        expect(await outsideClient(emulator).instances.list()).toEqual([]);
      },
    );
  });

  it("Python: ten instances at once under a cap admitting seven", async () => {
    const price = await quote(emulator);
    const main = `import pulumi
import pulumi_gpucloud as gpucloud

for index in range(10):
    gpucloud.Instance(f"worker-{index}", ask_id=31001, image="img", disk_gb=10,
                      poll_interval_seconds=0.05)
`;
    await withStack(
      {
        language: "python",
        program: { main, project: "python-budget" },
        config: configWithCap(emulator, price * 7.5),
      },
      async ({ stack, exportState }) => {
        const output = await failingUp(stack);
        expect(output).toMatch(refused);
        const rented = await expectStateHoldsTheAccount(await exportState());
        expect(rented).toBe(7);

        await stack.destroy();
        expect(await outsideClient(emulator).instances.list()).toEqual([]);
      },
    );
  });
});
