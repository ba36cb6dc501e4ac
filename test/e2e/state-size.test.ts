import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { repoRoot } from "../support/repo-root";
import { useEmulator } from "../support/use-emulator";
import { withStack } from "../support/pulumi-stack";
import { dynamicResources, emulatorConfig, program } from "../support/programs";
import { mixFor, shapesProgram, stackOverhead } from "../support/scale";

// The provider a state holds (`__provider`, twice in each resource's state) must stay a reference
// to the package's entry module, never code copied by value: a copy costs kilobytes per resource
// and, were it to capture the implementation, would put dependencies (and worse, configuration)
// into the state.

const recorder = path.join(repoRoot, "scripts", "bench", "rss-recorder.cjs");
const recordedProcess = z.object({
  argv: z.array(z.string()),
  packages: z.array(z.string()),
  gpucloudModules: z.array(z.string()),
  compileCacheDir: z.string().optional(),
});

/**
 * The dynamic-provider process loads what the providers need and nothing else: not the
 * emulator, not its server framework, not the package's index (every resource and the client);
 * the program loads the resources' classes, from the bundled runtime, but not the HTTP library.
 */
async function expectLeanProcesses(log: string): Promise<void> {
  // The engine stops the provider as the step ends; its line may land just after.
  let recorded: z.infer<typeof recordedProcess>[] = [];
  const providers = () =>
    recorded.filter((line) => line.argv.some((arg) => arg.includes("dynamic-provider")));
  for (let waited = 0; providers().length === 0 && waited < 3_000; waited += 100) {
    const text = await readFile(log, "utf8").catch(() => "");
    recorded = text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => recordedProcess.parse(JSON.parse(line)));
    if (providers().length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // The program declares resources and sends no request: it never loads the HTTP client's
  // library (provider/client/transport.ts loads it at the first request).
  const programs = recorded.filter((line) =>
    line.argv.some((arg) => arg.includes(`${path.sep}cmd${path.sep}run`)),
  );
  expect(programs.length).toBeGreaterThan(0);
  for (const program of programs) {
    expect(program.packages).toContain("pulumi-gpucloud");
    expect(program.packages).not.toContain("undici");
    // The program is the user's process: the package changes nothing of how it loads code.
    expect(program.compileCacheDir).toBeUndefined();
    // The package's entry takes the API from the bundled runtime: no module of the classes,
    // the client or zod is compiled in the program.
    expect(program.gpucloudModules.sort()).toEqual([
      "dist/provider/dynamic-runtime.js",
      "dist/provider/package-entry.js",
    ]);
    expect(program.packages).not.toContain("zod");
  }
  expect(providers().length).toBeGreaterThan(0);
  for (const provider of providers()) {
    expect(provider.packages).toContain("pulumi-gpucloud");
    expect(provider.packages).toContain("undici");
    expect(provider.packages).not.toContain("fastify");
    expect(provider.gpucloudModules.filter((file) => /^dist\/emulator\//.test(file))).toEqual([]);
    expect(provider.gpucloudModules).not.toContain("dist/provider/index.js");
    // Nor of the provider process's, which the user's own dynamic resources share.
    expect(provider.compileCacheDir).toBeUndefined();
    // The entries, then the bundled runtime (provider/dynamic-runtime.ts): no module of the
    // resources, the client or zod is compiled in the process.
    expect(provider.gpucloudModules).toEqual(
      expect.arrayContaining([
        "dist/provider/dynamic/secret.js",
        "dist/provider/dynamic-runtime.js",
      ]),
    );
    expect(
      provider.gpucloudModules.filter((file) => /^dist\/provider\/(resources|client)\//.test(file)),
    ).toEqual([]);
    expect(provider.packages).not.toContain("zod");
  }
}

describe("what each resource adds to the state", () => {
  const { emulator } = useEmulator({ per: "file" });
  let logDir: string;
  beforeAll(async () => {
    logDir = await mkdtemp(path.join(tmpdir(), "gpucloud-loaded-"));
  });
  afterAll(async () => {
    await rm(logDir, { recursive: true, force: true });
  });

  it("is a require of the package's provider entry plus the resource's own fields", async () => {
    await withStack(
      {
        program: program(`
new gpucloud.Secret("secret", { key: "TOKEN", value: "abc" });
new gpucloud.Webhook("webhook", { url: "https://hooks.example.com/x", eventTypes: ["client:low_credit"] });
new gpucloud.Volume("volume", { askId: 21001 });
new gpucloud.Instance("instance", { askId: 31001, image: "img", diskGb: 10, pollIntervalSeconds: 0.05 });
// The engine's floor: a no-op dynamic resource, for scale.
new pulumi.dynamic.Resource({ async create(inputs) { return { id: "noop", outs: inputs }; } }, "noop", { value: "abc" });
`),
        config: emulatorConfig(emulator),
        teardown: "discard",
        // The benchmark's recorder: what each Node.js process of the step loaded.
        env: {
          NODE_OPTIONS: `--require ${JSON.stringify(recorder)}`,
          GPUCLOUD_RSS_LOG: path.join(logDir, "loaded.jsonl"),
          // The run's compile cache (e2e-global-setup.ts) off: whether the package turns one on
          // in the user's process is what is checked.
          NODE_DISABLE_COMPILE_CACHE: "1",
        },
      },
      async ({ stack, exportState, workDir }) => {
        await stack.up();
        await expectLeanProcesses(path.join(logDir, "loaded.jsonl"));
        // The program and the provider process each compiled the bundled runtime once and kept
        // a code cache beside it, in the project's copy of the package (every later process of
        // its kind reads it): two, as the SDK runs the two kinds with different V8 flags, which
        // a cache must match (one shared file was rewritten by each in turn).
        const cacheDir = path.join(workDir, "node_modules", "pulumi-gpucloud", "dist", "provider");
        const cacheName = new RegExp(
          `^[0-9a-f]{16}-${process.version.replace(/\./g, "\\.")}-${process.arch}-([0-9a-f]+)\\.bin$`,
        );
        const caches = await readdir(path.join(cacheDir, "dynamic-runtime.cache"));
        expect(caches).toEqual([
          expect.stringMatching(cacheName),
          expect.stringMatching(cacheName),
        ]);
        expect(new Set(caches.map((file) => cacheName.exec(file)?.[1])).size).toBe(2);
        const resources = dynamicResources(await exportState(false));
        // Four of ours, the stack's instance sweeper and the no-op floor.
        expect(resources).toHaveLength(6);
        const floor = resources.find(
          (resource) => resource.type === "pulumi-nodejs:dynamic:Resource",
        );
        const floorBytes = Buffer.byteLength(JSON.stringify(floor));
        for (const resource of resources.filter((r) => r !== floor)) {
          const provider = String(resource.outputs?.["__provider"]);
          const name = resource.type
            .replace("pulumi-nodejs:dynamic/gpucloud:", "")
            .replace(/(?<=[a-z])(?=[A-Z])/g, "-")
            .toLowerCase();
          const providerBytes = Buffer.byteLength(provider);
          const totalBytes = Buffer.byteLength(JSON.stringify(resource));
          process.stdout.write(
            `[state-size] ${resource.type}: ${totalBytes} bytes in state (no-op floor ${floorBytes}), ` +
              `of which __provider ${providerBytes} bytes (inputs and outputs each hold a copy)\n`,
          );
          // By reference: the package's entry module, required by name (the shorter of its two
          // names; states written before hold the other, which names the same module), and no
          // code by value.
          expect(provider).toBe(
            `exports.handler = () => require("pulumi-gpucloud/dynamic/${name}");`,
          );
          const requireInProject = createRequire(path.join(workDir, "index.js"));
          expect(requireInProject.resolve(`pulumi-gpucloud/provider/dynamic/${name}`)).toBe(
            requireInProject.resolve(`pulumi-gpucloud/dynamic/${name}`),
          );
          expect(resource.inputs?.["__provider"]).toBe(provider);
        }
      },
    );
  });

  // The benchmark's shapes stack stands between the floor and ours only while it is our own
  // classes with no-op providers that cost in the state what ours cost: otherwise its time says
  // nothing about where ours goes.
  it("of the benchmark's shapes stack: our classes, no-op providers by reference, no request", async () => {
    const mix = mixFor(5);
    await emulator.clearRequests();
    await withStack(
      { program: shapesProgram(mix), teardown: "discard" },
      async ({ stack, exportState }) => {
        const up = await stack.up();
        expect(up.summary.resourceChanges).toEqual({ create: 5 + stackOverhead(mix) });
        const resources = dynamicResources(await exportState(false));
        expect(resources.map((resource) => resource.type).sort()).toEqual(
          [
            "pulumi-nodejs:dynamic/gpucloud:Instance",
            "pulumi-nodejs:dynamic/gpucloud:InstanceSweeper",
            "pulumi-nodejs:dynamic/gpucloud:Secret",
            "pulumi-nodejs:dynamic/gpucloud:Secret",
            "pulumi-nodejs:dynamic/gpucloud:Volume",
            "pulumi-nodejs:dynamic/gpucloud:Webhook",
          ].sort(),
        );
        for (const resource of resources) {
          const provider = String(resource.outputs?.["__provider"]);
          expect(provider).toMatch(
            /^exports\.handler = \(\) => require\("gpucloud-bench-shapes\/shape-\d+\.js"\);$/,
          );
          expect(provider).not.toContain("pulumi-gpucloud");
        }
        // Every property the class registers is in the state, as the class declared it.
        const instance = resources.find((r) => r.type.endsWith(":Instance"));
        expect(Object.keys(instance?.outputs ?? {})).toEqual(
          expect.arrayContaining(["instanceId", "sshHost", "attempts", "offer", "owner", "image"]),
        );
      },
    );
    expect(await emulator.requests()).toEqual([]);
  });
});
