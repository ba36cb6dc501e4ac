import { z } from "zod";
import type { GpuCloudClient } from "../../provider/client";
import type { TestEmulator } from "../support/emulator";
import {
  commandOf,
  descendantsOf,
  eventually,
  interruptUpWhileBooting,
  isAlive,
  releaseLock,
  startCli,
} from "../support/interrupt";
import { withStack, type TestStack } from "../support/pulumi-stack";
import { emulatorConfig, outsideClient, program } from "../support/programs";
import { nativePluginDir } from "../support/yaml-stack";
import { useEmulator } from "../support/use-emulator";

// Multi-node training as one resource, with the real CLI against the emulator's generated
// market (physical clusters 101-104 of 6 to 11 machines; 102 has 9 H100 SXM machines).

const group = (name: string, nodeCount: number, extra = "", image = "pytorch/pytorch") =>
  program(`
const ${name} = new gpucloud.NodeGroup(${JSON.stringify(name)}, {
  nodeCount: ${nodeCount},
  offerQuery: { gpuName: "H100 SXM" },
  image: "${image}",
  diskGb: 40,
  pollIntervalSeconds: 0.2,
  ${extra}
});
exports.clusterId = ${name}.clusterId;
exports.overlayName = ${name}.overlayName;
exports.subnet = ${name}.subnet;
exports.masterAddr = ${name}.masterAddr;
exports.networkVolumeId = ${name}.networkVolumeId;
exports.nodes = ${name}.nodes;
`);

/** A YAML program of one 2-node group, served by the plugin of node_modules/.bin. */
const yamlGroup = (project: string, pollIntervalSeconds: number) => `name: ${project}
runtime: yaml
plugins:
  providers:
    - name: gpucloud
      path: ${nativePluginDir}
resources:
  trainers:
    type: gpucloud:index:NodeGroup
    properties:
      nodeCount: 2
      offerQuery:
        gpuName: H100 SXM
      image: pytorch/pytorch
      diskGb: 40
      pollIntervalSeconds: ${pollIntervalSeconds}
outputs:
  nodes: \${trainers.nodes}
`;

/** A Python program of one 2-node group on a network volume. */
const pythonGroup = (image: string, model: string) => `import pulumi
import pulumi_gpucloud as gpucloud

trainers = gpucloud.NodeGroup(
    "trainers",
    node_count=2,
    offer_query={"gpuName": "H100 SXM"},
    image="${image}",
    disk_gb=40,
    env={"MODEL": "${model}"},
    network_volume={"size_gb": 50, "mount_path": "/data"},
    poll_interval_seconds=0.2,
)
pulumi.export("nodes", trainers.nodes)
pulumi.export("masterAddr", trainers.master_addr)
`;

const nodesSchema = z.array(
  z.looseObject({ rank: z.number(), instanceId: z.number(), localIp: z.string().nullable() }),
);

/** Everything of the kinds a group is made of, on the account now. */
async function account(emulator: TestEmulator) {
  // A client of its own: a client shares a list read within 2 s, which may predate the change.
  const client = outsideClient(emulator);
  return {
    instances: (await emulator.state()).instances.map((instance) => instance.id),
    overlays: (await client.overlays.list()).map((overlay) => overlay.name),
    networkVolumes: (await client.volumes.list())
      .filter((volume) => volume.cluster_id !== null && volume.cluster_id !== undefined)
      .map((volume) => volume.id),
  };
}
const nothing = { instances: [], overlays: [], networkVolumes: [] };

/**
 * Every rank of a 3-node create rented, ranks 1 and 2 handed over (their rents answered, they
 * take the program's label while they boot) and rank 0, the create's witness, still labelled as
 * being created: the moment a kill leaves the most to prove.
 */
async function handedOverButRankZero(emulator: TestEmulator): Promise<boolean> {
  const instances = (await emulator.state()).instances;
  const creating = instances.filter((i) => (i.label ?? "").startsWith("pulumi-gpucloud:creating:"));
  return instances.length >= 3 && creating.length === 1;
}

describe("NodeGroup (real Pulumi CLI)", () => {
  let client!: GpuCloudClient;
  const { emulator } = useEmulator({ per: "test", bootPolls: 2, market: { seed: 1 } });
  beforeEach(() => {
    client = outsideClient(emulator);
  });
  const onOutput = (stack: TestStack) => (text: string) => stack.output.push(text);

  it("a 4-node group: one cluster, one overlay with distinct addresses, ranks 0-3, one network volume; refresh sees no change; a new image and env rebuild it in place, said by up; destroy leaves nothing", async () => {
    await withStack(
      {
        program: group("trainers", 4, `networkVolume: { sizeGb: 100, mountPath: "/data" },`),
        config: emulatorConfig(emulator),
      },
      async (stack) => {
        const up = await stack.stack.up({ onOutput: onOutput(stack) });
        const nodes = nodesSchema.parse(up.outputs["nodes"]?.value);
        expect(nodes.map((node) => node.rank)).toEqual([0, 1, 2, 3]);
        const instances = (await emulator.state()).instances;
        expect(instances.map((instance) => instance.id).sort()).toEqual(
          nodes.map((node) => node.instanceId).sort(),
        );
        const overlays = await client.overlays.list();
        expect(overlays).toHaveLength(1);
        const [overlay] = overlays;
        expect(overlay?.name).toBe(up.outputs["overlayName"]?.value);
        expect(overlay?.cluster_id).toBe(up.outputs["clusterId"]?.value);
        expect(overlay?.instances?.slice().sort()).toEqual(
          nodes.map((node) => node.instanceId).sort(),
        );
        const subnet = String(up.outputs["subnet"]?.value);
        const prefix = subnet.split(".").slice(0, 3).join(".");
        const addresses = nodes.map((node) => node.localIp);
        expect(new Set(addresses).size).toBe(4);
        for (const address of addresses) expect(address?.startsWith(`${prefix}.`)).toBe(true);
        expect(up.outputs["masterAddr"]?.value).toBe(nodes[0]?.localIp);
        const volumes = (await account(emulator)).networkVolumes;
        expect(volumes).toEqual([up.outputs["networkVolumeId"]?.value]);

        // (That the next diff of the same program sees no change after a refresh is the
        // provider's: test/contract/node-groups.test.ts.)
        const refresh = await stack.stack.refresh({ onOutput: onOutput(stack) });
        expect(refresh.summary.resourceChanges).toMatchObject({ same: 3 });

        // A new image and env: every node's container rebuilt on its machine, in place. The
        // diff's line is said at up as at preview (the diff runs in both).
        const volume = `networkVolume: { sizeGb: 100, mountPath: "/data" },`;
        await stack.setProgram(
          group("trainers", 4, `${volume} env: { MODEL: "b" },`, "vllm/vllm-openai:v0.6.1"),
        );
        const said: string[] = [];
        const changed = await stack.stack.up({ onOutput: (text) => said.push(text) });
        stack.output.push(...said);
        expect(changed.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect(said.join("")).toContain("the group's 4 nodes are updated in place (image, env");
        // The same instances, ranks and overlay addresses; what runs in them is new.
        const placed = (list: z.infer<typeof nodesSchema>) =>
          list.map((node) => [node.rank, node.instanceId, node.localIp]);
        expect(placed(nodesSchema.parse(changed.outputs["nodes"]?.value))).toEqual(placed(nodes));
        const rebuilt = (await emulator.state()).instances;
        expect(rebuilt).toHaveLength(4);
        for (const instance of rebuilt) {
          expect(instance).toMatchObject({ image: "vllm/vllm-openai:v0.6.1", env: { MODEL: "b" } });
        }
        expect((await account(emulator)).networkVolumes).toEqual(volumes);

        await stack.stack.destroy({ onOutput: onOutput(stack) });
        expect(await account(emulator)).toEqual(nothing);
      },
    );
  });

  it("interrupted while its nodes boot: Ctrl-C takes the group apart, renting nothing more; killed, the killed run's provider takes it apart; killed with its providers, the next up does; a killed resize leaves the group as it was", async () => {
    await withStack(
      {
        program: group("trainers", 3, `networkVolume: { sizeGb: 100, mountPath: "/data" },`),
        config: emulatorConfig(emulator),
      },
      async (stack) => {
        // Ctrl-C: rank 0 runs 8 s after its rent, the others at once: the Ctrl-C comes while it
        // boots.
        await emulator.queueBoots([{ status: "running", afterSeconds: 8 }]);
        const { code, tookMs, output, rentsAfter } = await interruptUpWhileBooting(
          stack,
          emulator,
          3,
        );
        expect(code).not.toBe(0);
        // Said on the screen at the moment of the Ctrl-C.
        expect(output).toMatch(/gpucloud: Ctrl-C: nothing more is rented/);
        expect(output).toMatch(
          /The group was taken apart: every node, the overlay \S+ and network volume V\.\d+ are gone/,
        );
        expect(rentsAfter).toEqual([]);
        expect(tookMs).toBeLessThan(15_000);
        expect(await account(emulator)).toEqual(nothing);

        // Every node of each of the two killed runs boots for ten minutes: only the kill ends
        // them (the three ranks are rented at once, each run's three taking three of these).
        const longBoot = { status: "running", afterSeconds: 600 } as const;
        await emulator.queueBoots(Array.from({ length: 6 }, () => longBoot));
        const cli = startCli(stack, ["up", "--yes", "--skip-preview"]);
        await eventually("every rank rented, all but rank 0 handed over", () =>
          handedOverButRankZero(emulator),
        );
        const providers = descendantsOf(cli.pid).filter((pid) =>
          commandOf(pid).includes("dynamic-provider"),
        );
        process.kill(-cli.pid, "SIGKILL");
        await cli.exited;
        await releaseLock(stack);
        await eventually("the killed run's providers to exit", () =>
          providers.every((pid) => !isAlive(pid)),
        );
        expect(await account(emulator)).toEqual(nothing);

        // Killed with everything below it: nothing of the run cleans up. (That the next destroy
        // removes it, the stack's InstanceSweeper, is the engine path of
        // instance-interrupted.test.ts's killed run and destroy, and the sweeper's work on a
        // group's leftovers is test/contract/node-groups.test.ts's.)
        const run = startCli(stack, ["up", "--yes", "--skip-preview"]);
        await eventually("every rank rented again, all but rank 0 handed over", () =>
          handedOverButRankZero(emulator),
        );
        const tree = descendantsOf(run.pid);
        process.kill(-run.pid, "SIGKILL");
        for (const pid of tree) if (isAlive(pid)) process.kill(pid, "SIGKILL");
        await run.exited;
        await releaseLock(stack);
        const left = await account(emulator);
        expect(left.instances.length).toBeGreaterThan(0);
        expect(left.overlays).toHaveLength(1);
        expect(left.networkVolumes).toHaveLength(1);

        // The next up removes what the killed run left, then makes the group.
        const up = await stack.stack.up({ onOutput: onOutput(stack) });
        const nodes = nodesSchema.parse(up.outputs["nodes"]?.value);
        const now = await account(emulator);
        expect(now.instances.sort()).toEqual(nodes.map((node) => node.instanceId).sort());
        expect(now.overlays).toEqual([up.outputs["overlayName"]?.value]);
        for (const id of left.instances) expect(now.instances).not.toContain(id);
        expect(now.networkVolumes).toEqual([up.outputs["networkVolumeId"]?.value]);
        expect(left.networkVolumes).not.toEqual(now.networkVolumes);

        // A resize killed while its new rank boots: the killed run's provider destroys it; the
        // next up adds it.
        const before = nodes.map((node) => node.instanceId);
        await stack.setProgram(
          group("trainers", 4, `networkVolume: { sizeGb: 100, mountPath: "/data" },`),
        );
        await emulator.queueBoots([longBoot]);
        const resizing = startCli(stack, ["up", "--yes", "--skip-preview"]);
        await eventually(
          "rank 3 rented",
          async () => (await emulator.state()).instances.length >= 4,
        );
        const resizers = descendantsOf(resizing.pid).filter((pid) =>
          commandOf(pid).includes("dynamic-provider"),
        );
        process.kill(-resizing.pid, "SIGKILL");
        await resizing.exited;
        await releaseLock(stack);
        await eventually("the killed resize's providers to exit", () =>
          resizers.every((pid) => !isAlive(pid)),
        );
        // The group as it was: nothing the killed resize rented is left billing.
        expect((await account(emulator)).instances.sort()).toEqual(before.sort());
        const resized = await stack.stack.up({ onOutput: onOutput(stack) });
        const grown = nodesSchema.parse(resized.outputs["nodes"]?.value);
        expect(grown.map((node) => node.rank)).toEqual([0, 1, 2, 3]);
        expect((await account(emulator)).instances.sort()).toEqual(
          grown.map((node) => node.instanceId).sort(),
        );

        await stack.stack.destroy({ onOutput: onOutput(stack) });
        expect(await account(emulator)).toEqual(nothing);
      },
    );
  });

  it("YAML: Ctrl-C while the nodes boot takes the group apart and the run ends within 15 s; the next up makes it", async () => {
    await withStack(
      {
        language: "yaml",
        program: {
          text: yamlGroup("node-group-yaml", 1),
        },
        config: emulatorConfig(emulator),
      },
      async ({ workDir, cliEnv, stack, setProgram }) => {
        await emulator.queueBoots([{ status: "running", afterSeconds: 600 }]);
        const { code, tookMs, output, rentsAfter } = await interruptUpWhileBooting(
          { workDir, cliEnv },
          emulator,
          2,
        );
        expect(code).not.toBe(0);
        expect(output).toMatch(/taken apart/);
        expect(rentsAfter).toEqual([]);
        expect(tookMs).toBeLessThan(15_000);
        expect(await account(emulator)).toEqual(nothing);

        // The YAML program declares the same type as TypeScript's and Python's.
        await setProgram(yamlGroup("node-group-yaml", 0.2));
        const up = await stack.up();
        expect(nodesSchema.parse(up.outputs["nodes"]?.value)).toHaveLength(2);
        await stack.destroy();
        expect(await account(emulator)).toEqual(nothing);
      },
    );
  });

  it("Python: the same type through the plugin; a new image and env rebuild both nodes in place, said on the group's own row", async () => {
    await withStack(
      {
        language: "python",
        program: { project: "node-group-python", main: pythonGroup("pytorch/pytorch", "a") },
        config: emulatorConfig(emulator),
      },
      async ({ stack, setProgram }) => {
        const up = await stack.up();
        // Python's output types export their fields under Python's names.
        const pythonNodes = z.array(
          z.looseObject({ instance_id: z.number(), local_ip: z.string() }),
        );
        const nodes = pythonNodes.parse(up.outputs["nodes"]?.value);
        expect(nodes).toHaveLength(2);
        expect(up.outputs["masterAddr"]?.value).toBe(nodes[0]?.local_ip);

        // A new image and env rebuild both nodes in place, said on the group's own row (by the
        // diff, which up runs as preview does).
        await setProgram(pythonGroup("vllm/vllm-openai:v0.6.1", "b"));
        const said: string[] = [];
        const changed = await stack.up({ onOutput: (text) => said.push(text) });
        expect(changed.summary.resourceChanges).toEqual({ same: 2, update: 1 });
        expect(said.join("")).toMatch(
          /gpucloud:index:NodeGroup trainers .*the group's 2 nodes are updated in place/,
        );
        const ids = (list: z.infer<typeof pythonNodes>) => list.map((node) => node.instance_id);
        expect(ids(pythonNodes.parse(changed.outputs["nodes"]?.value))).toEqual(ids(nodes));
        for (const instance of (await emulator.state()).instances) {
          expect(instance).toMatchObject({ image: "vllm/vllm-openai:v0.6.1", env: { MODEL: "b" } });
        }
        await stack.destroy();
        expect(await account(emulator)).toEqual(nothing);
      },
    );
  });
});
