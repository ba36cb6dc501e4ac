import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { repoRoot } from "../support/repo-root";
import { useEmulator } from "../support/use-emulator";
import { withStack } from "../support/pulumi-stack";
import { dynamicResources, emulatorConfig, program } from "../support/programs";

/**
 * Stacks written by version 0.1.0 hold, in each resource's state, the provider as that version
 * serialized it: a forwarding object of seven functions that require
 * `pulumi-gpucloud/provider/resources/<name>` and `pulumi-gpucloud/provider/provider-runtime`
 * (test/fixtures/provider-shims-0.1.0.json, copied from such a state). The engine refreshes and
 * deletes with the provider saved in the outputs, so those resources must keep working after
 * an upgrade: this test gives a live stack exactly those providers (`pulumi stack import`),
 * then refreshes, updates and destroys it with the current package.
 */
const oldShims = z
  .record(z.string(), z.string())
  .parse(
    JSON.parse(
      readFileSync(path.join(repoRoot, "test", "fixtures", "provider-shims-0.1.0.json"), "utf8"),
    ),
  );

const recorder = path.join(repoRoot, "scripts", "bench", "rss-recorder.cjs");
const recordedProcess = z.object({
  argv: z.array(z.string()),
  gpucloudModules: z.array(z.string()),
});

/** The package files each dynamic-provider process of a step loaded. */
async function providerModules(log: string): Promise<string[][]> {
  for (let waited = 0; ; waited += 100) {
    const text = await readFile(log, "utf8").catch(() => "");
    const providers = text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => recordedProcess.parse(JSON.parse(line)))
      .filter((line) => line.argv.some((arg) => arg.includes("dynamic-provider")));
    if (providers.length > 0 || waited >= 3_000) return providers.map((p) => p.gpucloudModules);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const typeName = (type: string) => type.replace("pulumi-nodejs:dynamic/gpucloud:", "");

describe("a stack written by version 0.1.0", () => {
  const { emulator } = useEmulator({ per: "file" });
  let logDir: string;
  beforeAll(async () => {
    logDir = await mkdtemp(path.join(tmpdir(), "gpucloud-upgrade-"));
  });
  afterAll(async () => {
    await rm(logDir, { recursive: true, force: true });
  });

  it("refreshes, updates and destroys with the current package", async () => {
    expect(Object.keys(oldShims).sort()).toEqual(["Instance", "Secret", "Volume", "Webhook"]);
    const log = path.join(logDir, "loaded.jsonl");
    const stackProgram = (value: string) =>
      program(`
new gpucloud.Secret("token", { key: "UPGRADE_TOKEN", value: "${value}" });
new gpucloud.Webhook("hook", { url: "https://hooks.example.com/upgrade", eventTypes: ["client:low_credit"] });
new gpucloud.Volume("data", { askId: 21001 });
new gpucloud.Instance("gpu", { askId: 31001, image: "img", diskGb: 10, pollIntervalSeconds: 0.05 });
`);
    await withStack(
      {
        program: stackProgram("first"),
        config: emulatorConfig(emulator),
        env: { NODE_OPTIONS: `--require ${JSON.stringify(recorder)}`, GPUCLOUD_RSS_LOG: log },
      },
      async ({ stack, setProgram, exportState, output }) => {
        const onOutput = (text: string) => output.push(text);
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ create: 6 });

        // The state as 0.1.0 wrote it: its provider in the inputs and in the outputs.
        // Exported with its secrets encrypted, as `pulumi stack export` writes it by default.
        const exported = z
          .looseObject({
            version: z.number(),
            deployment: z.looseObject({
              resources: z.array(
                z.looseObject({
                  type: z.string(),
                  inputs: z.record(z.string(), z.unknown()).optional(),
                  outputs: z.record(z.string(), z.unknown()).optional(),
                }),
              ),
            }),
          })
          .parse(JSON.parse(await exportState(false)));
        const { deployment } = exported;
        for (const resource of deployment.resources) {
          const shim = oldShims[typeName(resource.type)];
          if (shim === undefined) continue;
          if (resource.inputs) resource.inputs["__provider"] = shim;
          if (resource.outputs) resource.outputs["__provider"] = shim;
        }
        await stack.importStack({ ...exported, deployment });
        const oldProviders = (state: string) =>
          Object.fromEntries(
            // The stack's instance sweeper came after 0.1.0: it has no old provider.
            dynamicResources(state)
              .filter((resource) => oldShims[typeName(resource.type)] !== undefined)
              .map((resource) => [
                typeName(resource.type),
                resource.outputs?.["__provider"] === oldShims[typeName(resource.type)],
              ]),
          );
        expect(oldProviders(await exportState(false))).toEqual({
          Secret: true,
          Webhook: true,
          Volume: true,
          Instance: true,
        });

        // Refresh reads every resource through the old providers alone.
        await writeFile(log, "");
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 6 });
        const refreshed = await providerModules(log);
        expect(refreshed.length).toBeGreaterThan(0);
        for (const modules of refreshed) {
          expect(modules).toEqual(
            expect.arrayContaining([
              "dist/provider/provider-runtime.js",
              "dist/provider/resources/secret.js",
              "dist/provider/resources/instance.js",
            ]),
          );
          // Only the sweeper, which has no 0.1.0 provider, loads its entry.
          expect(modules.filter((file) => file.startsWith("dist/provider/dynamic/"))).toEqual(
            expect.not.arrayContaining([
              "dist/provider/dynamic/secret.js",
              "dist/provider/dynamic/webhook.js",
              "dist/provider/dynamic/volume.js",
              "dist/provider/dynamic/instance.js",
            ]),
          );
        }
        expect(oldProviders(await exportState(false))).toEqual({
          Secret: true,
          Webhook: true,
          Volume: true,
          Instance: true,
        });

        // An update in place; the unchanged resources keep their old providers in the outputs.
        await setProgram(stackProgram("second"));
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({
          same: 5,
          update: 1,
        });
        expect((await emulator.secrets())["UPGRADE_TOKEN"]).toBe("second");
        expect(oldProviders(await exportState(false))).toEqual({
          Secret: false,
          Webhook: true,
          Volume: true,
          Instance: true,
        });

        // Destroy deletes the webhook, volume and instance through their old providers.
        expect((await stack.destroy({ onOutput })).summary.resourceChanges).toEqual({
          delete: 6,
        });
        const state = await emulator.state();
        expect(state.secrets.map((secret) => secret.key)).not.toContain("UPGRADE_TOKEN");
        expect(state.webhooks).toEqual([]);
        expect(state.volumes).toEqual([]);
        expect(state.instances).toEqual([]);
      },
    );
  });
});
