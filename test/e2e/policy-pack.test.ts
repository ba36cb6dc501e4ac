import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { withStack, type StackOptions, type TestStack } from "../support/pulumi-stack";
import { emulatorConfig, program } from "../support/programs";
import { repoRoot } from "../support/repo-root";
import { useEmulator } from "../support/use-emulator";

// The GPU spend policy pack as a team runs it: `pulumi preview --policy-pack <the package's
// pack> --policy-pack-config <file>`, with the real CLI, against the emulator's default market
// (asks 31001 RTX 4090 at $0.35/hour and 31004 H100 SXM at $19.50/hour among them). A plan over
// the stack budget, or renting a GPU model the config does not allow, fails the preview with a
// line naming the resource; a compliant plan passes. TypeScript programs (dynamic resources)
// and Python ones (the plugin's resources) alike. test/unit/policy-rules.test.ts holds the
// rules case by case.

/** The pack as the installed package ships it (the executable the CLI starts). */
const pack = path.join(repoRoot, "node_modules", "pulumi-gpucloud", "policy", "gpucloud-policy");

const packConfig = {
  "gpucloud-stack-budget": { maxDollarsPerHour: 2 },
  "gpucloud-allowed-gpus": { allowed: ["RTX 4090", "RTX 3090"] },
  "gpucloud-min-reliability": { minReliability: 0.9 },
  "gpucloud-max-lifetime": { enforcementLevel: "mandatory" },
};

describe("the GPU spend policy pack (real Pulumi CLI)", () => {
  const { emulator } = useEmulator({ per: "file", bootPolls: 0 });
  let configDir = "";
  let configFile = "";

  beforeAll(async () => {
    configDir = await mkdtemp(path.join(tmpdir(), "gpucloud-policy-config-"));
    configFile = path.join(configDir, "policy-config.json");
    await writeFile(configFile, JSON.stringify(packConfig));
  });
  afterAll(() => rm(configDir, { recursive: true, force: true }));

  /** The service's credentials in the CLI's environment, which the analyzer inherits. */
  const credentials = () => ({
    GPUCLOUD_API_KEY: emulator.apiKey,
    GPUCLOUD_BASE_URL: emulator.url,
  });

  /** The preview's output with the pack, and whether it passed. */
  async function previewWithPack(stack: TestStack, config = configFile) {
    const output: string[] = [];
    try {
      await stack.stack.preview({
        policyPacks: [pack],
        policyPackConfigs: [config],
        onOutput: (text) => output.push(text),
      });
      return { passed: true, output: output.join("") };
    } catch (error) {
      return { passed: false, output: output.join("") + String(error) };
    }
  }

  async function expectPreview(
    options: StackOptions,
    passes: boolean,
    lines: readonly (string | RegExp)[],
    then?: (stack: TestStack) => Promise<void>,
  ) {
    await withStack({ config: emulatorConfig(emulator), ...options }, async (stack) => {
      const { passed, output } = await previewWithPack(stack);
      for (const line of lines) expect(output).toMatch(line);
      // The output, when the preview did not end as it should, says why.
      expect(passed === passes ? "as expected" : output).toBe("as expected");
      await then?.(stack);
    });
  }

  const tsInstance = (name: string, fields: string) =>
    `new gpucloud.Instance(${JSON.stringify(name)}, { image: "pytorch/pytorch", diskGb: 20, ` +
    `pollIntervalSeconds: 0.05, ${fields} });`;

  describe("a TypeScript stack", () => {
    it("passes a compliant plan, priced from the offers, then from the state once deployed", async () => {
      const body = tsInstance(
        "trainer",
        'offerQuery: { gpuName: "RTX 4090", reliability: { gte: 0.95 } }, ' +
          'maxDollarsPerHour: 1, maxLifetime: "8h"',
      );
      await expectPreview(
        { program: program(body), env: credentials() },
        true,
        [/✅ gpucloud-policy@v0\.1\.0/],
        async (stack) => {
          // Deployed, the instance is priced by what its state recorded.
          await stack.stack.up();
          const tight = path.join(configDir, "tight.json");
          await writeFile(
            tight,
            JSON.stringify({ "gpucloud-stack-budget": { maxDollarsPerHour: 0.01 } }),
          );
          const { passed, output } = await previewWithPack(stack, tight);
          expect(output).toMatch(
            /Instance "trainer" \$\d+\.\d\d\/hour \(instance \d+: as recorded\)/,
          );
          expect(passed).toBe(false);
        },
      );
    });

    it("blocks a plan over the budget, bounded by the caps without credentials", async () => {
      // Three instances capped at $0.90/hour: $2.70/hour at most, over the $2 budget.
      const body = ["a", "b", "c"]
        .map((name) =>
          tsInstance(
            name,
            'offerQuery: { gpuName: "RTX 4090", reliability: { gte: 0.95 } }, ' +
              'maxDollarsPerHour: 0.9, maxLifetime: "8h"',
          ),
        )
        .join("\n");
      await expectPreview(
        { program: program(body) },
        false,
        [
          /mandatory.*gpucloud-stack-budget/,
          /the plan costs \$2\.70\/hour, over the stack budget of \$2\.00\/hour/,
          /Instance "a" \$0\.90\/hour \(its cap\)/,
        ],
        async (stack) => {
          // The budget made advisory: the same plan passes, warned.
          const advisory = path.join(configDir, "advisory.json");
          const budget = { maxDollarsPerHour: 2, enforcementLevel: "advisory" };
          await writeFile(advisory, JSON.stringify({ "gpucloud-stack-budget": budget }));
          const { passed, output } = await previewWithPack(stack, advisory);
          expect(output).toMatch(/advisory.*gpucloud-stack-budget/);
          expect(output).toMatch(/the plan costs \$2\.70\/hour/);
          expect(passed ? "passed" : output).toBe("passed");
        },
      );
    });

    it("blocks a disallowed GPU, by query and by ask, and an instance without a lifetime", async () => {
      const body = [
        tsInstance(
          "big",
          'offerQuery: { gpuName: "A100 SXM4", reliability: { gte: 0.95 } }, ' +
            'maxDollarsPerHour: 1.5, maxLifetime: "1h"',
        ),
        tsInstance("h100", "askId: 31004"),
      ].join("\n");
      await expectPreview({ program: program(body), env: credentials() }, false, [
        /mandatory.*gpucloud-allowed-gpus/,
        /Instance "big": GPU model A100 SXM4 is not allowed \(allowed: RTX 4090, RTX 3090\); set offerQuery\.gpuName to an allowed model/,
        /Instance "h100": ask 31004 is a H100 SXM, not an allowed GPU model/,
        /Instance "h100" has no maxLifetime/,
        // Priced by the service: the H100's $19.50/hour is over the budget too.
        /the plan costs \$\d+\.\d\d\/hour, over the stack budget of \$2\.00\/hour: Instance "h100" \$19\.50\/hour \(ask 31004 at \$19\.4972\/h \+ 20 GB disk at \$0\.25\/GB-month\)/,
      ]);
    });
  });

  describe("a Python stack", () => {
    const python = (body: string) =>
      ({
        language: "python",
        program: { main: `import pulumi_gpucloud as gpucloud\n\n${body}\n`, project: "py-policy" },
      }) as const;
    const pyInstance = (name: string, fields: string) =>
      `gpucloud.Instance(${JSON.stringify(name)}, image="pytorch/pytorch", disk_gb=20, ${fields})`;

    it("passes a compliant plan", async () => {
      const body = pyInstance(
        "trainer",
        'offer_query={"gpuName": "RTX 4090", "reliability": {"gte": 0.95}}, ' +
          'max_dollars_per_hour=1, max_lifetime="8h"',
      );
      await expectPreview({ ...python(body), env: credentials() }, true, [
        /✅ gpucloud-policy@v0\.1\.0/,
      ]);
    });

    it("blocks a plan over the budget and a disallowed GPU, of an Instance and a NodeGroup", async () => {
      const body = [
        pyInstance(
          "cheap",
          'offer_query={"gpuName": "RTX 4090", "reliability": {"gte": 0.95}}, ' +
            'max_dollars_per_hour=1, max_lifetime="8h"',
        ),
        pyInstance(
          "big",
          'offer_query={"gpuName": "H100 SXM", "reliability": {"gte": 0.95}}, ' +
            'max_dollars_per_hour=25, max_lifetime="8h"',
        ),
        'gpucloud.NodeGroup("cluster", node_count=2, image="pytorch/pytorch", disk_gb=20, ' +
          'offer_query={"gpuName": "H100 SXM", "reliability": {"gte": 0.95}}, ' +
          'max_dollars_per_hour=20, max_lifetime="8h")',
      ].join("\n");
      await expectPreview(python(body), false, [
        /Instance "big": GPU model H100 SXM is not allowed/,
        /NodeGroup "cluster": GPU model H100 SXM is not allowed/,
        // Without credentials, each is bounded by its cap; the group's by nodeCount caps.
        /the plan costs \$66\.00\/hour, over the stack budget of \$2\.00\/hour: NodeGroup "cluster" \$40\.00\/hour \(2 × its cap\), Instance "big" \$25\.00\/hour \(its cap\), Instance "cheap" \$1\.00\/hour \(its cap\)/,
      ]);
    });
  });
});
