import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import type { TestEmulator } from "../support/emulator";
import { withStack, type TestStack } from "../support/pulumi-stack";
import { emulatorConfig, program } from "../support/programs";
import { repoRoot } from "../support/repo-root";
import { useEmulator } from "../support/use-emulator";

const execFileAsync = promisify(execFile);

// The plan's prices at preview, with the real CLI against the emulator's market: each billable
// resource's $/hour and the stack's total in the preview's lines and in `pulumi preview --json`
// (read by gpucloud-cost, and by the plugin's `cost` for Python), matching the prices the
// emulator answers; and the stack's cap (gpucloud:maxDollarsPerHour) failing a preview with
// nothing sent.

const figuresSchema = z.object({
  resource: z.string(),
  type: z.string(),
  op: z.string(),
  dollarsPerHourNow: z.number(),
  dollarsPerHourAfter: z.number(),
  basis: z.string(),
});
type Figures = z.infer<typeof figuresSchema>;
const previewJsonSchema = z.looseObject({
  diagnostics: z.array(z.looseObject({ message: z.string(), urn: z.string().optional() })),
});
const reportSchema = z.object({
  resources: z.array(figuresSchema),
  totalNow: z.number(),
  totalAfter: z.number(),
  change: z.number(),
  leftOut: z.array(z.string()),
});

/** `pulumi preview --json` in the stack's folder: its document, and whether it failed. */
async function previewJson(test: TestStack): Promise<{ text: string; failed: boolean }> {
  return execFileAsync("pulumi", ["preview", "--json", "--stack", test.stack.name], {
    cwd: test.workDir,
    env: { ...process.env, ...test.cliEnv },
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    ({ stdout }) => ({ text: stdout, failed: false }),
    (error: unknown) => ({
      text: z.object({ stdout: z.string() }).parse(error).stdout,
      failed: true,
    }),
  );
}

/** The priced lines of a preview's diagnostics: figures and plan lines. */
function pricedLines(text: string) {
  const messages = previewJsonSchema
    .parse(JSON.parse(text))
    .diagnostics.map((diagnostic) => diagnostic.message.trim());
  const figures = messages
    .filter((message) => message.startsWith("gpucloud: cost "))
    .map((message) => figuresSchema.parse(JSON.parse(message.slice("gpucloud: cost ".length))));
  return { messages, figures, plans: messages.filter((m) => m.startsWith("gpucloud: plan: ")) };
}

/** A command that reads the preview's JSON on stdin. */
async function report(command: string, args: string[], input: string): Promise<string> {
  const child = execFileAsync(command, args);
  child.child.stdin?.end(input);
  return (await child).stdout;
}

/** What the emulator answers for an ask rented with `diskGb` of disk. */
async function askPrice(emulator: TestEmulator, askId: number, diskGb: number): Promise<number> {
  const reply = await emulator.call("POST", "/api/v0/bundles/", {
    id: { eq: askId },
    allocated_storage: diskGb,
  });
  const offers = z
    .object({ offers: z.array(z.object({ dph_total: z.number() })) })
    .parse(reply.body);
  return offers.offers[0]?.dph_total ?? Number.NaN;
}

/** A volume ask's $/hour for `sizeGb`, as the emulator's volume search answers it. */
async function volumePrice(emulator: TestEmulator, askId: number, sizeGb: number) {
  const reply = await emulator.call("POST", "/api/v0/volumes/search/", {
    id: { eq: askId },
    allocated_storage: sizeGb,
  });
  const offers = z
    .object({ offers: z.array(z.object({ storage_total_cost: z.number() })) })
    .parse(reply.body);
  return offers.offers[0]?.storage_total_cost ?? Number.NaN;
}

/** The `nodeCount` cheapest offers of a cluster's H100 SXM machines, with the group's disk. */
async function clusterPrice(
  emulator: TestEmulator,
  clusterId: number,
  nodeCount: number,
  diskGb: number,
): Promise<number> {
  const reply = await emulator.call("POST", "/api/v0/bundles/", {
    gpu_name: { eq: "H100 SXM" },
    cluster_id: { eq: clusterId },
    rentable: { eq: true },
    rented: { eq: false },
    allocated_storage: diskGb,
    order: [["dph_total", "asc"]],
    limit: 1000,
  });
  const offers = z
    .object({ offers: z.array(z.object({ dph_total: z.number() })) })
    .parse(reply.body);
  return offers.offers.slice(0, nodeCount).reduce((sum, offer) => sum + offer.dph_total, 0);
}

const askOf = (basis: string) => Number(/ask (\d+)/.exec(basis)?.[1]);
const clusterOf = (basis: string) => Number(/in cluster (\d+)/.exec(basis)?.[1]);
const sum = (figures: readonly Figures[]) =>
  figures.reduce((total, one) => total + one.dollarsPerHourAfter, 0);

const workspace = program(`
const data = new gpucloud.Volume("data", {
  volumeOfferQuery: { diskSpaceGb: { gte: 100 }, reliability: { gte: 0.95 } },
  sizeGb: 50,
});
const trainer = new gpucloud.Instance("trainer", {
  offerQuery: { gpuName: { in: ["RTX 4090", "RTX 3090"] }, gpuRamGb: { gte: 24 } },
  maxDollarsPerHour: 1,
  image: "pytorch/pytorch",
  diskGb: 40,
  env: { DATA_VOLUME: data.volumeName },
});
const trainers = new gpucloud.NodeGroup("trainers", {
  nodeCount: 2,
  offerQuery: { gpuName: "H100 SXM" },
  image: "pytorch/pytorch",
  diskGb: 40,
});
`);

describe("the plan's prices at preview (real CLI)", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 1, market: { seed: 1 } });

  it("TypeScript: each billable resource's $/hour and the totals, as the emulator prices them; gpucloud-cost reads the same", async () => {
    await withStack({ program: workspace, config: emulatorConfig(emulator) }, async (test) => {
      const { text, failed } = await previewJson(test);
      expect(failed).toBe(false);
      const { messages, figures, plans } = pricedLines(text);
      // In the order the engine checks them (the instance waits for the volume's name).
      expect(figures.map((one) => one.op)).toEqual(["create", "create", "create"]);
      const [volume, instance, group] = ["Volume", "Instance", "NodeGroup"].map((type) =>
        figures.find((one) => one.type === type),
      ) as [Figures, Figures, Figures];
      expect(volume.dollarsPerHourAfter).toBeCloseTo(
        await volumePrice(emulator, askOf(volume.basis), 50),
        5,
      );
      expect(instance.dollarsPerHourAfter).toBeCloseTo(
        await askPrice(emulator, askOf(instance.basis), 40),
        5,
      );
      expect(group.dollarsPerHourAfter).toBeCloseTo(
        await clusterPrice(emulator, clusterOf(group.basis), 2, 40),
        5,
      );
      // The lines a person reads: each resource's, and the plan's after each.
      expect(messages).toContainEqual(
        expect.stringMatching(
          /^gpucloud: trainer: \$\d+\.\d+\/h \(.*\) after this change: offerQuery: ask \d+ at/,
        ),
      );
      expect(messages).toContainEqual(
        expect.stringMatching(
          /^gpucloud: trainers: \$\d+\.\d+\/h after this change: 2 nodes × \$\d+\.\d+(–\$\d+\.\d+)?\/h in cluster \d+, 40 GB disk each$/,
        ),
      );
      const total = sum(figures);
      const plan =
        /^gpucloud: plan: \$(\d+\.\d+)\/h after this change, \$0\.00\/h now, \+\$(\d+\.\d+)\/h; bandwidth is billed per byte and left out$/.exec(
          plans.at(-1) ?? "",
        );
      expect(Number(plan?.[1])).toBeCloseTo(total, 4);
      expect(Number(plan?.[2])).toBeCloseTo(total, 4);
      const cost = reportSchema.parse(
        JSON.parse(
          await report(process.execPath, [path.join(repoRoot, "dist/bin/gpucloud-cost.js")], text),
        ),
      );
      expect(cost.resources).toEqual(figures);
      expect(cost.totalAfter).toBeCloseTo(total, 9);
      expect(cost.totalNow).toBe(0);
      expect(cost.leftOut).toEqual(["bandwidth (billed per byte)"]);
      expect(await emulator.writes()).toEqual([]);
    });
  });

  it("TypeScript: a plan over gpucloud:maxDollarsPerHour fails at preview, naming total, cap and items, with nothing sent", async () => {
    await withStack(
      {
        program: workspace,
        config: { ...emulatorConfig(emulator), "gpucloud:maxDollarsPerHour": { value: "1.5" } },
      },
      async (test) => {
        const { text, failed } = await previewJson(test);
        expect(failed).toBe(true);
        const { messages } = pricedLines(text);
        expect(messages).toContainEqual(
          expect.stringMatching(
            /gpucloud:maxDollarsPerHour: the plan's expected total is \$\d+\.\d+\/h, over the stack's cap of \$1\.50\/h; the largest: trainers \$\d+\.\d+\/h(, \w+ \$\d+\.\d+\/h)*; nothing was sent\. Rent less, or raise the cap: pulumi config set gpucloud:maxDollarsPerHour \d+(\.\d+)?$/,
          ),
        );
        // `pulumi up` previews first: its preview fails and nothing is sent. (Automation API's
        // up skips the preview: there the create-time cap holds.)
        const up = await execFileAsync("pulumi", ["up", "--yes", "--stack", test.stack.name], {
          cwd: test.workDir,
          env: { ...process.env, ...test.cliEnv },
        }).then(
          () => "",
          (error: unknown) => z.object({ stdout: z.string() }).parse(error).stdout,
        );
        expect(up).toMatch(/over the stack's cap of \$1\.50\/h/);
        expect(await emulator.writes()).toEqual([]);
      },
    );
  });

  it("Python (the plugin): each resource's $/hour on its own row, the totals, and the plugin's `cost`; an existing stack's prices now; the cap fails its preview", async () => {
    await withStack(
      {
        language: "python",
        program: {
          project: "plan-prices-python",
          main: `import pulumi
import pulumi_gpucloud as gpucloud

trainer = gpucloud.Instance(
    "trainer",
    ask_id=31001,
    image="pytorch/pytorch",
    disk_gb=40,
    poll_interval_seconds=0.2,
)
trainers = gpucloud.NodeGroup(
    "trainers",
    node_count=2,
    offer_query={"gpuName": "H100 SXM"},
    image="pytorch/pytorch",
    disk_gb=40,
    poll_interval_seconds=0.2,
)
`,
        },
        config: emulatorConfig(emulator),
      },
      async (test) => {
        const plugin = path.join(repoRoot, "node_modules", ".bin", "pulumi-resource-gpucloud");
        const first = await previewJson(test);
        expect(first.failed).toBe(false);
        const { figures, plans } = pricedLines(first.text);
        const diagnostics = previewJsonSchema.parse(JSON.parse(first.text)).diagnostics;
        // Each line is on its resource's row: the diagnostic's URN is the resource's.
        for (const one of figures) {
          expect(one.resource).toMatch(/^urn:pulumi:test::plan-prices-python::gpucloud:index:/);
          const line = diagnostics.find((d) => d.message.includes(JSON.stringify(one.basis)));
          expect(line?.urn).toBe(one.resource);
        }
        const instance = figures.find((one) => one.type === "Instance");
        const group = figures.find((one) => one.type === "NodeGroup");
        expect(instance?.dollarsPerHourAfter).toBeCloseTo(await askPrice(emulator, 31001, 40), 5);
        expect(group?.dollarsPerHourAfter).toBeCloseTo(
          await clusterPrice(emulator, clusterOf(group?.basis ?? ""), 2, 40),
          5,
        );
        const total = sum(figures);
        expect(plans.at(-1)).toMatch(
          /^gpucloud: plan: \$\d+\.\d+\/h after this change, \$0\.00\/h now/,
        );
        const cost = reportSchema.parse(JSON.parse(await report(plugin, ["cost"], first.text)));
        expect(cost.totalAfter).toBeCloseTo(total, 9);
        expect(await report(plugin, ["cost", "--markdown"], first.text)).toMatch(
          /^this change: \+\$\d+\.\d+\/h \(\$\d+\.\d+\/h after, \$0\.00\/h now\); bandwidth \(billed per byte\) left out\n$/,
        );

        // Deployed, then previewed again: each resource costs now what it costs after.
        await test.stack.up();
        const again = pricedLines((await previewJson(test)).text);
        expect(again.figures.map((one) => one.op).sort()).toEqual(["same", "same"]);
        for (const one of again.figures) {
          expect(one.dollarsPerHourNow).toBeGreaterThan(0);
          expect(one.dollarsPerHourAfter).toBe(one.dollarsPerHourNow);
        }
        expect(again.plans.at(-1)).toMatch(/, \+\$0\.00\/h; bandwidth is billed per byte/);

        // A cap under what the stack costs: the preview fails on the plugin's side too.
        await test.stack.setConfig("gpucloud:maxDollarsPerHour", { value: "0.5" });
        await emulator.clearRequests();
        const capped = await previewJson(test);
        expect(capped.failed).toBe(true);
        expect(pricedLines(capped.text).messages).toContainEqual(
          expect.stringMatching(
            /gpucloud:maxDollarsPerHour: the plan's expected total is \$[\d.]+\/h, over the stack's cap of \$0\.50\/h; the largest: trainers \$[\d.]+\/h/,
          ),
        );
        expect(await emulator.writes()).toEqual([]);
        await test.stack.removeConfig("gpucloud:maxDollarsPerHour");
        await test.stack.destroy();
      },
    );
  });

  it("TypeScript, an existing stack: a replacement costs its new ask after, the recorded price now, and both while it runs; the cap counts both", async () => {
    const instance = (askId: number) =>
      program(`
new gpucloud.Instance("gpu", { askId: ${askId}, image: "pytorch/pytorch", diskGb: 40, pollIntervalSeconds: 0.2 });
`);
    await withStack(
      { program: instance(31001), config: emulatorConfig(emulator) },
      async (test) => {
        // Read before the rent: a rented ask leaves the market.
        const recorded = await askPrice(emulator, 31001, 40);
        await test.stack.up();
        await test.setProgram(instance(31002));
        const { figures, plans } = pricedLines((await previewJson(test)).text);
        expect(figures).toEqual([
          expect.objectContaining({ resource: "gpucloud-e2e/test/gpu", op: "replace" }),
        ]);
        const [gpu] = figures as [Figures];
        expect(gpu.dollarsPerHourNow).toBeCloseTo(recorded, 5);
        expect(gpu.dollarsPerHourAfter).toBeCloseTo(await askPrice(emulator, 31002, 40), 5);
        expect(plans.at(-1)).toMatch(
          /^gpucloud: plan: \$[\d.]+\/h after this change \(\$[\d.]+\/h while replacements run side by side\), \$[\d.]+\/h now, \+\$[\d.]+\/h;/,
        );
        // Between the new price and both together: over the cap only while both run.
        await test.stack.setConfig("gpucloud:maxDollarsPerHour", {
          value: (gpu.dollarsPerHourAfter + 0.1).toFixed(2),
        });
        await emulator.clearRequests();
        const capped = await previewJson(test);
        expect(capped.failed).toBe(true);
        expect(pricedLines(capped.text).messages).toContainEqual(
          expect.stringMatching(
            /over the stack's cap .*while replacements run side by side|while replacements run side by side.*over the stack's cap/,
          ),
        );
        expect(await emulator.writes()).toEqual([]);
      },
    );
  });
});
