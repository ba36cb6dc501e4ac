import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { repoRoot } from "../support/repo-root";
import { useEmulator } from "../support/use-emulator";
import { interruptUpWhileBooting } from "../support/interrupt";
import { emulatorConfig, expectNoLeak, outsideClient, stateResources } from "../support/programs";
import { withStack } from "../support/pulumi-stack";
import { nativePluginDir } from "../support/yaml-stack";

// Python programs through the generated SDK (sdk/python) and the Python language host that
// setup builds, driven by the real CLI against the emulator.

const exampleDir = path.join(repoRoot, "examples", "python-workspace");

describe("Python programs (pulumi_gpucloud, real Pulumi CLI)", () => {
  const { emulator } = useEmulator({ per: "file", bootPolls: 1 });
  let scratch!: string;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "gpucloud-python-example-"));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("runs examples/python-workspace: up, refresh with no changes, destroy leaving nothing, no secret in plaintext", async () => {
    // The example as a user has it, with the plugin of this checkout's node_modules/.bin.
    const programDir = path.join(scratch, "python-workspace");
    await cp(exampleDir, programDir, { recursive: true });
    const project = await readFile(path.join(programDir, "Pulumi.yaml"), "utf8");
    await writeFile(
      path.join(programDir, "Pulumi.yaml"),
      `${project}plugins:\n  providers:\n    - name: gpucloud\n      path: ${nativePluginDir}\n`,
    );
    const hfToken = "hf_python-e2e.Token-42";
    const config = {
      ...emulatorConfig(emulator),
      "python-workspace:hfToken": { value: hfToken, secret: true },
      "python-workspace:pollIntervalSeconds": { value: "0.2" },
    };
    await withStack(
      { language: "python", program: { dir: programDir }, config, stackName: "py" },
      async ({ stack, exportState }) => {
        const output: string[] = [];
        const onOutput = (line: string) => output.push(line);
        const up = await stack.up({ onOutput });
        // The stack, the secret, the volume, the instance and the stack's sweeper.
        expect(up.summary.resourceChanges).toEqual({ create: 5 });
        const state = await emulator.state();
        expect(await emulator.secrets()).toEqual({ HF_TOKEN: hfToken });
        expect(state.volumes).toHaveLength(1);
        expect(state.instances).toEqual([expect.objectContaining({ label: "python-workspace" })]);
        // The instance mounts the volume the example adds (placed on its machine: forInstance).
        expect(state.instances[0]?.["volume"]).toEqual({
          volumeId: state.volumes[0]?.id,
          mountPath: "/workspace/data",
        });
        const [instance] = state.instances;
        expect(up.outputs["secretKey"]?.value).toBe("HF_TOKEN");
        expect(up.outputs["instanceId"]?.value).toBe(instance?.id);
        expect(up.outputs["volumeName"]?.value).toBe(`V.${String(state.volumes[0]?.id)}`);
        expect(up.outputs["userId"]?.value).toBe(state.user.id);
        expect(up.outputs["gpuRamMb"]?.value).toBeGreaterThanOrEqual(24_000);
        // The program's snake_case arguments reached the service under the API's names.
        expect(instance?.["env"]).toMatchObject({
          DATA_VOLUME: `V.${String(state.volumes[0]?.id)}`,
          REQUIRED_SECRETS: "HF_TOKEN",
        });

        const refresh = await stack.refresh({ onOutput });
        expect(refresh.summary.resourceChanges).toEqual({ same: 5 });
        const preview = await stack.preview({ onOutput });
        expect(preview.changeSummary).toEqual({ same: 5 });

        // The types are the plugin's own; the token and the API key are in state only encrypted.
        const encrypted = await exportState(false);
        expect(stateResources(encrypted).map((resource) => resource.type)).toEqual(
          expect.arrayContaining([
            "gpucloud:index:Secret",
            "gpucloud:index:Volume",
            "gpucloud:index:Instance",
          ]),
        );
        expectNoLeak([encrypted, ...output], [hfToken, emulator.apiKey]);

        const destroy = await stack.destroy({ onOutput });
        expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
        const after = await emulator.state();
        expect(after.instances).toEqual([]);
        expect(after.volumes).toEqual([]);
        expect(await emulator.secrets()).toEqual({});
        expectNoLeak(output, [hfToken, emulator.apiKey]);
      },
    );
  });

  it("pulumi import of an instance made by hand: recorded without a write, the program's next up changes nothing; then typed queries (OfferQueryArgs, snake_case dicts) find and rent what the camelCase dicts of before do", async () => {
    const instanceId = await outsideClient(emulator).instances.create(31001, {
      image: "pytorch/pytorch:latest",
      disk: 20,
      label: "by-hand",
    });
    const main = `import pulumi
import pulumi_gpucloud as gpucloud

gpu = gpucloud.Instance("gpu", ask_id=31001, image="pytorch/pytorch:latest", disk_gb=20, label="by-hand")
pulumi.export("instanceId", gpu.instance_id)
`;
    // Typed queries, added to the program once the import is proven.
    const typedQueries = `
gpus = ["RTX 4090", "RTX 3090"]
# The camelCase dict programs wrote before the typed query (taken as ever; mypy wants the typed forms).
camel = gpucloud.get_offers(query={"gpuName": {"in": gpus}, "gpuRamGb": {"gte": 24}})
# A function takes the plain classes (OfferQuery), a resource the Args ones (OfferQueryArgs).
typed = gpucloud.get_offers(
    query=gpucloud.OfferQuery(gpu_name=gpucloud.QueryText(in_=gpus), gpu_ram_gb=gpucloud.QueryNumber(gte=24))
)
snake: gpucloud.OfferQueryDict = {"gpu_name": {"in_": gpus}, "gpu_ram_gb": {"gte": 24}}
snaked = gpucloud.get_offers(query=snake)
typed_gpu = gpucloud.Instance(
    "typed",
    offer_query=gpucloud.OfferQueryArgs(
        gpu_name=gpucloud.QueryTextArgs(in_=gpus), gpu_ram_gb=gpucloud.QueryNumberArgs(gte=24)
    ),
    image="pytorch/pytorch",
    disk_gb=20,
)
pulumi.export("camel", [offer.ask_id for offer in camel.offers])
pulumi.export("typed", [offer.ask_id for offer in typed.offers])
pulumi.export("snake", [offer.ask_id for offer in snaked.offers])
pulumi.export("rented", typed_gpu.offer.apply(lambda offer: offer.ask_id if offer else None))
`;
    await withStack(
      {
        language: "python",
        program: { main, project: "python-import-e2e" },
        config: emulatorConfig(emulator),
        stackName: "imported",
      },
      async ({ stack, workDir }) => {
        const output: string[] = [];
        const onOutput = (line: string) => output.push(line);
        await emulator.clearRequests();
        const imported = await stack.import({
          resources: [{ type: "gpucloud:index:Instance", name: "gpu", id: String(instanceId) }],
          protect: false,
          generateCode: false,
          onOutput,
        });
        expect(imported.summary.resourceChanges).toEqual({ create: 1, import: 1 });
        expect(output.join("")).not.toContain("failed to validate");
        expect(await emulator.writes()).toEqual([]);

        // The program declares the stack's sweeper, which the import did not: made, sending nothing.
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ same: 2, create: 1 });
        expect(up.outputs["instanceId"]?.value).toBe(instanceId);
        expect(await emulator.writes()).toEqual([]);
        expect((await emulator.state()).instances.map((found) => found.id)).toEqual([instanceId]);

        // The same stack's program, with the typed queries beside the imported instance: one
        // more up instead of a stack of their own.
        await writeFile(path.join(workDir, "__main__.py"), main + typedQueries);
        const typed = await stack.up({ onOutput });
        expect(typed.summary.resourceChanges).toEqual({ same: 3, create: 1 });
        const camel = typed.outputs["camel"]?.value as number[];
        expect(camel.length).toBeGreaterThan(1);
        expect(typed.outputs["typed"]?.value).toEqual(camel);
        expect(typed.outputs["snake"]?.value).toEqual(camel);
        // The cheapest matching offer, as the camelCase search answered it.
        expect(typed.outputs["rented"]?.value).toBe(camel[0]);

        await stack.destroy({ onOutput });
        expect((await emulator.state()).instances).toEqual([]);
      },
    );
  });
});

describe("Ctrl-C in a Python program while an instance boots", () => {
  // Boots take two minutes: only the Ctrl-C ends the create early.
  const { emulator } = useEmulator({ per: "file", bootSeconds: 120 });

  it("destroys the booting instance and ends the run within 15 s", async () => {
    const main = `import pulumi_gpucloud as gpucloud

gpucloud.Instance("trainer", ask_id=31001, image="pytorch/pytorch", disk_gb=20, poll_interval_seconds=1)
`;
    await withStack(
      {
        language: "python",
        program: { main, project: "python-cancel-e2e" },
        config: emulatorConfig(emulator),
      },
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
        expect(stateResources(await exportState(false)).map((r) => r.type)).not.toContain(
          "gpucloud:index:Instance",
        );
        process.stderr.write(`python-cancel: Ctrl-C to the CLI's exit: ${tookMs} ms\n`);
      },
    );
  }, 180_000);
});
