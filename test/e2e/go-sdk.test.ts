import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "../support/repo-root";
import { emulatorConfig, stateResources } from "../support/programs";
import { withStack } from "../support/pulumi-stack";
import { packageVersion } from "../../provider/native/server";
import { useEmulator } from "../support/use-emulator";
import { nativePluginDir } from "../support/yaml-stack";

const execFileAsync = promisify(execFile);

// The Go SDK, generated from the native plugin's schema by `npm run gen-sdks` and committed in
// sdk/go (test/e2e/sdk-drift.test.ts keeps it current), compiled with Go, and
// examples/go-workspace run by the real CLI through the Go language host that setup builds.
const exampleDir = path.join(repoRoot, "examples", "go-workspace");
const sdkDir = path.join(repoRoot, "sdk", "go");
const exampleReplace = "=> ../../sdk/go";
const examplePath = "path: ../../node_modules/.bin";

async function run(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { cwd, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(
      `${command} ${args.join(" ")} (in ${cwd}) failed:\n${stdout ?? ""}${stderr ?? ""}`,
    );
  }
}

describe("the Go SDK generated from the native plugin's schema", () => {
  let root!: string;
  let programDir!: string;
  const { emulator } = useEmulator({ per: "file", bootPolls: 1 });
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "gpucloud-go-sdk-"));
    programDir = path.join(root, "go-workspace");
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("compiles, with examples/go-workspace (a Secret, a Volume, an Instance)", async () => {
    const secret = await readFile(path.join(sdkDir, "gpucloud", "secret.go"), "utf8");
    expect(secret).toContain('ctx.RegisterResource("gpucloud:index:Secret"');
    // The schema's secret flag reaches the SDK: the value is wrapped secret before it is sent.
    expect(secret).toContain("pulumi.ToSecret(args.Value)");
    const instance = await readFile(path.join(sdkDir, "gpucloud", "instance.go"), "utf8");
    expect(instance).toContain("OfferQuery ");
    expect(await readFile(path.join(sdkDir, "go.mod"), "utf8")).toMatch(
      /^module github\.com\/pulumi-gpucloud\/pulumi-gpucloud\/sdk\/go$/m,
    );
    // The plugin a Go program asks the engine for: this release of gpucloud.
    expect(
      JSON.parse(await readFile(path.join(sdkDir, "gpucloud", "pulumi-plugin.json"), "utf8")),
    ).toEqual({
      resource: true,
      name: "gpucloud",
      version: packageVersion(),
      server: "github://api.github.com/pulumi-gpucloud",
    });
    // Type-checked (and vetted) without writing into the checkout.
    await run("go", ["vet", "./..."], sdkDir);

    // The example, as it would sit beside the SDK: its `replace` and the plugin's folder point
    // at the committed SDK and at the repository's node_modules/.bin.
    await cp(exampleDir, programDir, { recursive: true });
    const goMod = await readFile(path.join(programDir, "go.mod"), "utf8");
    expect(goMod).toContain(exampleReplace);
    await writeFile(path.join(programDir, "go.mod"), goMod.replace(exampleReplace, `=> ${sdkDir}`));
    const project = await readFile(path.join(programDir, "Pulumi.yaml"), "utf8");
    expect(project).toContain(examplePath);
    await writeFile(
      path.join(programDir, "Pulumi.yaml"),
      project.replace(examplePath, `path: ${nativePluginDir}`),
    );
    // go.sum as committed is complete: nothing is added to it (-mod=readonly).
    await run(
      "go",
      ["build", "-mod=readonly", "-o", path.join(root, "go-workspace-bin"), "."],
      programDir,
    );

    // The queries are typed: a misspelled field (GpuRamGB for GpuRamGb) does not compile.
    const misspelled = path.join(root, "go-misspelled");
    await cp(programDir, misspelled, { recursive: true });
    const main = await readFile(path.join(misspelled, "main.go"), "utf8");
    expect(main).toContain("GpuRamGb:");
    await writeFile(path.join(misspelled, "main.go"), main.replace("GpuRamGb:", "GpuRamGB:"));
    await expect(run("go", ["vet", "-mod=readonly", "."], misspelled)).rejects.toThrow(
      /unknown field GpuRamGB in struct literal of type gpucloud\.OfferQueryArgs/,
    );
  });

  it("runs examples/go-workspace with the Go language host: up, refresh, destroy", async () => {
    const hfToken = "hf_go-e2e.Token-123";
    const config = {
      ...emulatorConfig(emulator),
      "go-workspace:hfToken": { value: hfToken, secret: true },
      "go-workspace:pollIntervalSeconds": { value: "0.2" },
    };
    await withStack(
      { language: "go", program: { dir: programDir }, config, stackName: "go" },
      async ({ stack, exportState }) => {
        const up = await stack.up();
        // The stack, the secret, the volume, the instance and the stack's sweeper.
        expect(up.summary.resourceChanges).toEqual({ create: 5 });
        const state = await emulator.state();
        expect(await emulator.secrets()).toEqual({ HF_TOKEN: hfToken });
        expect(state.volumes).toHaveLength(1);
        expect(state.instances).toEqual([expect.objectContaining({ label: "go-workspace" })]);
        // The instance mounts the volume the example adds (placed on its machine: forInstance).
        expect(state.instances[0]?.["volume"]).toEqual({
          volumeId: state.volumes[0]?.id,
          mountPath: "/workspace/data",
        });
        expect(up.outputs["secretKey"]?.value).toBe("HF_TOKEN");
        expect(up.outputs["instanceId"]?.value).toBe(state.instances[0]?.id);
        expect(up.outputs["volumeName"]?.value).toBe(`V.${String(state.volumes[0]?.id)}`);
        expect(up.outputs["userId"]?.value).toBe(state.user.id);

        const refresh = await stack.refresh();
        expect(refresh.summary.resourceChanges).toEqual({ same: 5 });

        // The token is in state only as a secret, and the types are the plugin's own.
        const encrypted = await exportState(false);
        expect(encrypted).not.toContain(hfToken);
        expect(encrypted).toContain('"type": "gpucloud:index:Instance"');
        // The SDK declares the stack's sweeper, with the token the instance carries: its delete
        // at destroy sweeps what a killed up left (python-ownership.test.ts plays that).
        const sweeper = stateResources(encrypted).find(
          (resource) => resource.type === "gpucloud:index:InstanceSweeper",
        );
        expect(sweeper?.outputs?.["stackToken"]).toEqual(expect.any(String));
        expect(state.instances[0]?.["env"]).toMatchObject({
          PULUMI_GPUCLOUD_STACK: sweeper?.outputs?.["stackToken"],
        });

        const destroy = await stack.destroy();
        expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
        expect(await emulator.secrets()).toEqual({});
      },
    );
  });
});
