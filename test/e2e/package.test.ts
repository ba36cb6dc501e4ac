import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { request } from "undici";
import { z } from "zod";
import { tarballFromSetup } from "../support/packages";
import { withStack } from "../support/pulumi-stack";
import { program } from "../support/programs";
import { repoRoot } from "../support/repo-root";

const execFileAsync = promisify(execFile);

/** Starts the emulator through the installed package's `gpucloud-emulator` command. */
function startInstalledEmulator(projectDir: string, apiKey: string) {
  const child = spawn(
    path.join(projectDir, "node_modules", ".bin", "gpucloud-emulator"),
    ["--port", "0", "--api-key", apiKey, "--strict"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^gpucloud-emulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.on("exit", (code) => {
      reject(new Error(`gpucloud-emulator exited (${String(code)}) before listening`));
    });
  });
}

/**
 * What a program of the project gets from `pulumi-gpucloud`: the bundled runtime's API, whose
 * classes Pulumi's mocks serve as the modules' did (one sweeper for the stack, outputs resolved,
 * `instanceof` true); and, imported as an ES module, every name of the modules' index.
 */
async function expectEntryFromBundle(projectDir: string): Promise<void> {
  const mocked = `
const path = require("node:path");
const pulumi = require("@pulumi/pulumi");
const registered = [];
(async () => {
  await pulumi.runtime.setMocks({
    newResource: (args) => {
      registered.push(args.type);
      return { id: args.name + "-id", state: { ...args.inputs, instanceId: 7 } };
    },
    call: () => ({}),
  }, "project", "stack", false);
  const gpucloud = require("pulumi-gpucloud");
  const a = new gpucloud.Instance("a", { askId: 31001, image: "img", diskGb: 10 });
  new gpucloud.Instance("b", { askId: 31002, image: "img", diskGb: 10 });
  let instanceId;
  a.instanceId.apply((id) => { instanceId = id; });
  process.on("beforeExit", () => console.log(JSON.stringify({
    instanceId,
    isInstance: a instanceof gpucloud.Instance,
    modules: Object.keys(require.cache).filter((file) => file.includes("pulumi-gpucloud")).map((file) => path.basename(file)),
    registered: registered.sort(),
  })));
})();
`;
  const { stdout } = await execFileAsync(process.execPath, ["-e", mocked], { cwd: projectDir });
  expect(JSON.parse(stdout)).toEqual({
    instanceId: 7,
    isInstance: true,
    modules: ["package-entry.js", "dynamic-runtime.js"],
    registered: [
      "pulumi-nodejs:dynamic/gpucloud:Instance",
      "pulumi-nodejs:dynamic/gpucloud:Instance",
      "pulumi-nodejs:dynamic/gpucloud:InstanceSweeper",
    ],
  });
  const imported = `
import { createRequire } from "node:module";
import * as entry from "pulumi-gpucloud";
const index = createRequire(import.meta.url)("pulumi-gpucloud/provider/index");
console.log(JSON.stringify(Object.keys(index).filter((name) => !(name in entry))));
`;
  const { stdout: missing } = await execFileAsync(
    process.execPath,
    ["--input-type=module", "-e", imported],
    { cwd: projectDir },
  );
  expect(JSON.parse(missing)).toEqual([]);
}

// The npm package as the run packed it (test/support/e2e-global-setup.ts: `npm pack` of what
// `npm test` compiled first with `tsc -p tsconfig.build.json`; in CI, a fresh clone's build). It
// was packed again here from a copy of the working tree, whose prepack compiled it once more:
// about 25 s of CPU for the same compile. What that proved beyond the run's tarball, that
// `npm pack` and an install from git (npm runs prepack for both) compile before packing, is the
// prepack script below, which runs the same compile.
const manifest = z
  .object({ scripts: z.object({ build: z.string(), prepack: z.string() }) })
  .parse(JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")));

describe("the published package", () => {
  const tarball = tarballFromSetup("GPUCLOUD_PACKED_TARBALL");

  it("compiles and bundles before it is packed (prepack), as the build does", () => {
    const compile = "tsc -p tsconfig.build.json";
    // The build's install-package.mjs bundles before it packs.
    expect(manifest.scripts.prepack).toBe(`${compile} && node scripts/bundle-dynamic-runtime.mjs`);
    expect(manifest.scripts.build).toContain(`${compile} && node scripts/install-package.mjs`);
  });

  it("holds the compiled code, its types and the emulator's command, and no sources", async () => {
    const { stdout } = await execFileAsync("tar", ["-tzf", tarball]);
    const files = stdout.trim().split("\n");
    expect(files).toEqual(
      expect.arrayContaining([
        "package/dist/provider/index.js",
        "package/dist/provider/index.d.ts",
        "package/dist/provider/resources/instance.d.ts",
        "package/dist/emulator/cli.js",
        "package/README.md",
        // The dynamic provider process's code (provider/dynamic-runtime.ts), without a cache.
        "package/dist/provider/dynamic-runtime.bundle.js",
      ]),
    );
    expect(files.filter((file) => file.includes("dynamic-runtime.cache"))).toEqual([]);
    expect(
      files.filter((file) => /\.test\.|^package\/(test|provider|emulator|scripts)\//.test(file)),
    ).toEqual([]);
    // The policy pack: its folder (no sources) and its executable, which keeps its mode.
    expect(files.filter((file) => file.startsWith("package/policy/")).sort()).toEqual([
      "package/policy/PulumiPolicy.yaml",
      "package/policy/gpucloud-policy",
      "package/policy/package.json",
    ]);
    expect(files).toContain("package/dist/policy/index.js");
    const { stdout: listing } = await execFileAsync("tar", ["-tvzf", tarball]);
    expect(listing).toMatch(/^-rwxr-xr-x .* package\/policy\/gpucloud-policy$/m);
  });

  it("deploys, under its own policy pack, and destroys from a fresh project that installed the tarball", async () => {
    const apiKey = `pack-key-${String(Date.now())}`;
    await withStack(
      {
        install: { tarball },
        program: program(`
const token = new gpucloud.Secret("token", { key: "PACKED", value: "from-the-tarball" });
const data = new gpucloud.Volume("data", { askId: 21001 });
exports.key = token.key;
exports.volumeName = data.volumeName;
`),
      },
      async ({ stack, workDir }) => {
        await expectEntryFromBundle(workDir);
        const emulator = await startInstalledEmulator(workDir, apiKey);
        try {
          await stack.setAllConfig({
            "gpucloud:apiKey": { value: apiKey, secret: true },
            "gpucloud:baseUrl": { value: emulator.url },
          });
          // The policy pack runs from the project's install, on its dependencies: in the up
          // itself, which it passes (a preview of its own would cost one more operation).
          const pack = path.join(workDir, "node_modules", "pulumi-gpucloud", "policy");
          const output: string[] = [];
          const up = await stack.up({
            policyPacks: [path.join(pack, "gpucloud-policy")],
            onOutput: (text) => output.push(text),
          });
          expect(up.summary.resourceChanges).toEqual({ create: 3 });
          expect(up.outputs["key"]?.value).toBe("PACKED");
          expect(up.outputs["volumeName"]?.value).toMatch(/^V\.\d+$/);
          expect(output.join("")).toMatch(/✅ gpucloud-policy@v0\.1\.0/);
          const destroy = await stack.destroy();
          expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
          const state = await request(`${emulator.url}/_emulator/state`);
          const body = (await state.body.json()) as { secrets: unknown[]; volumes: unknown[] };
          expect(body.secrets).toEqual([]);
          expect(body.volumes).toEqual([]);
        } finally {
          emulator.child.kill("SIGTERM");
        }
      },
    );
  });
});
