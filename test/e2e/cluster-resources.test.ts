import type { Stack } from "@pulumi/pulumi/automation";
import type { EmulatorState } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, expectNoLeak, program, stateResources } from "../support/programs";
import { nativePluginDir } from "../support/yaml-stack";
import { useEmulator } from "../support/use-emulator";

// Multi-node training on a physical cluster, under the real CLI: an Overlay, a NetworkVolume in
// it, and two Instances by offerQuery that join the overlay and mount the volume. The generated
// market of seed 1 has cluster 103: RTX A6000 machines, with network volume ask 26003.

const CLUSTER = 103;

const typescriptProgram = program(`
const net = new gpucloud.Overlay("train-net", { clusterId: ${CLUSTER} });
const data = new gpucloud.NetworkVolume("data", {
  offerQuery: { clusterId: net.clusterId },
  sizeGb: 500,
  name: "datasets",
});
const nodes = [0, 1].map((rank) => new gpucloud.Instance(\`node-\${rank}\`, {
  offerQuery: { gpuName: "RTX A6000" },
  image: "pytorch/pytorch",
  diskGb: 20,
  env: { RANK: String(rank) },
  overlay: net.name,
  networkVolume: { volumeId: data.volumeId, mountPath: "/data" },
  pollIntervalSeconds: 0.05,
}));
exports.overlay = net.name;
exports.subnet = net.subnet;
exports.volumeId = data.volumeId;
exports.localIps = nodes.map((node) => node.localIp);
`);

const node = (rank: number) => `
  node${rank}:
    type: gpucloud:index:Instance
    properties:
      offerQuery:
        gpuName: RTX A6000
      image: pytorch/pytorch
      diskGb: 20
      env:
        RANK: "${rank}"
      overlay: \${net.name}
      networkVolume:
        volumeId: \${data.volumeId}
        mountPath: /data
      pollIntervalSeconds: 0.05`;

const yamlProgram = `name: cluster-yaml-e2e
runtime: yaml
plugins:
  providers:
    - name: gpucloud
      path: ${nativePluginDir}
resources:
  net:
    type: gpucloud:index:Overlay
    properties:
      clusterId: ${CLUSTER}
  data:
    type: gpucloud:index:NetworkVolume
    properties:
      offerQuery:
        clusterId: \${net.clusterId}
      sizeGb: 500
      name: datasets${node(0)}${node(1)}
outputs:
  overlay: \${net.name}
  subnet: \${net.subnet}
  volumeId: \${data.volumeId}
  localIps:
    - \${node0.localIp}
    - \${node1.localIp}
`;

/** The emulator's view: both instances on the overlay, at distinct addresses, mounting the volume. */
function expectTrainingCluster(state: EmulatorState, outputs: Record<string, unknown>): void {
  const [overlay] = state.overlays;
  const [volume] = state.networkVolumes;
  expect(state.overlays).toHaveLength(1);
  expect(state.networkVolumes).toHaveLength(1);
  expect(overlay).toMatchObject({ clusterId: CLUSTER, name: outputs["overlay"] });
  expect(volume).toMatchObject({ clusterId: CLUSTER, sizeGb: 500, label: "datasets" });
  expect(outputs["subnet"]).toBe(overlay?.subnet);
  expect(outputs["volumeId"]).toBe(volume?.id);
  const prefix = (overlay?.subnet ?? "").replace(/\.0\/24$/, ".");
  const members = state.instances.map((instance) => ({
    overlayId: (instance["overlay"] as { overlayId?: number } | null)?.overlayId,
    address: (instance["overlay"] as { address?: string } | null)?.address ?? "",
    mounts: instance["mounts"],
    env: instance["env"] as Record<string, string>,
  }));
  expect(members).toHaveLength(2);
  for (const member of members) {
    expect(member.overlayId).toBe(overlay?.id);
    expect(member.address.startsWith(prefix)).toBe(true);
    expect(member.mounts).toEqual([{ volumeId: volume?.id, mountPath: "/data" }]);
  }
  expect(new Set(members.map((member) => member.address)).size).toBe(2);
  expect([...(outputs["localIps"] as string[])].sort()).toEqual(
    members.map((member) => member.address).sort(),
  );
}

/**
 * Refresh right after up shows no change, and records the overlay's members (they joined after
 * it was made): its `instanceIds` are the two instances'. That the next diff of each resource,
 * the overlay with its members recorded, finds no change is the providers' own
 * (test/contract/overlays.test.ts, cluster-instances.test.ts, network-volumes.test.ts).
 */
async function refreshUnchanged(
  stack: Stack,
  exportState: () => Promise<string>,
  resources: number,
  onOutput: (text: string) => void,
): Promise<void> {
  const refresh = await stack.refresh({ onOutput });
  expect(refresh.summary.resourceChanges).toEqual({ same: resources });
  const recorded = stateResources(await exportState());
  const overlay = recorded.find((resource) => resource.urn.includes("Overlay"));
  const instanceIds = recorded
    .filter((resource) => resource.urn.includes("Instance::"))
    .map((resource) => resource.outputs?.["instanceId"]);
  expect(instanceIds).toHaveLength(2);
  expect([...((overlay?.outputs?.["instanceIds"] ?? []) as number[])].sort()).toEqual(
    [...(instanceIds as number[])].sort(),
  );
}

function expectNothingLeft(state: EmulatorState): void {
  expect({
    instances: state.instances,
    overlays: state.overlays,
    networkVolumes: state.networkVolumes,
  }).toEqual({ instances: [], overlays: [], networkVolumes: [] });
}

describe("Overlay, NetworkVolume and Instances on a cluster (real Pulumi CLI)", () => {
  const { emulator } = useEmulator({ per: "test", market: { seed: 1 }, bootPolls: 0 });

  it("TypeScript: preview writes nothing; up joins both to the overlay and mounts the volume; refresh records the members; destroy", async () => {
    await withStack(
      { program: typescriptProgram, config: emulatorConfig(emulator) },
      async ({ stack, preview, output, exportState }) => {
        const onOutput = (text: string) => output.push(text);
        // The instances' overlay does not exist yet: the preview knows this program declares it.
        await preview();
        expect(await emulator.writes()).toEqual([]);

        const up = await stack.up({ onOutput });
        // The stack, the instance sweeper, the overlay, the volume and two instances.
        expect(up.summary.resourceChanges).toEqual({ create: 6 });
        const outputs = Object.fromEntries(
          Object.entries(up.outputs).map(([name, { value }]) => [name, value as unknown]),
        );
        expectTrainingCluster(await emulator.state(), outputs);
        expect(outputs["overlay"]).toMatch(/^train-net-[0-9a-f]{7}$/);

        await refreshUnchanged(stack, exportState, 6, onOutput);

        // The instances go before the volume they mount (the program references it).
        const destroy = await stack.destroy({ onOutput });
        expect(destroy.summary.resourceChanges).toEqual({ delete: 6 });
        expectNothingLeft(await emulator.state());
        expectNoLeak(output, [emulator.apiKey]);
      },
    );
  });

  it("YAML with the native plugin: preview writes nothing; up, refresh records the members, destroy", async () => {
    await withStack(
      {
        language: "yaml",
        program: { text: yamlProgram },
        config: emulatorConfig(emulator),
        stackName: "cluster",
      },
      async ({ stack, exportState }) => {
        const output: string[] = [];
        const onOutput = (text: string) => output.push(text);
        await stack.preview({ onOutput });
        expect(await emulator.writes()).toEqual([]);

        const up = await stack.up({ onOutput });
        // The stack, the overlay, the volume and two instances (the provider is not counted).
        expect(up.summary.resourceChanges).toEqual({ create: 5 });
        const outputs = Object.fromEntries(
          Object.entries(up.outputs).map(([name, { value }]) => [name, value as unknown]),
        );
        expectTrainingCluster(await emulator.state(), outputs);
        expect(outputs["overlay"]).toMatch(/^net-[0-9a-f]{7}$/);

        await refreshUnchanged(stack, exportState, 5, onOutput);

        const destroy = await stack.destroy({ onOutput });
        expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
        expectNothingLeft(await emulator.state());
        expectNoLeak(output, [emulator.apiKey]);
      },
    );
  });
});

/**
 * Bad cluster input where the engine matters: the overlay is declared in the same program, and the
 * Instance's check sees the name the Overlay's check chose. The other bad cluster input fails
 * check alone (test/contract/bad-input.test.ts).
 */
const instanceBase = `image: "pytorch/pytorch", diskGb: 20`;

describe("bad cluster input fails in one line naming the field, with no write", () => {
  // The small market: cluster 7 is machine 52011 alone; ask 31001 is in no cluster.
  const { emulator } = useEmulator({ per: "test", market: false });

  it("an Instance's explicit ask in another cluster than its overlay declared alongside", async () => {
    const says =
      /askId: ask 31001 is on machine 41207, in no cluster, but overlay net-[0-9a-f]{7} is on cluster 7: rent on a machine of cluster 7/;
    await withStack(
      {
        program: program(`
const net = new gpucloud.Overlay("net", { clusterId: 7 });
new gpucloud.Instance("gpu", { askId: 31001, ${instanceBase}, overlay: net.name });`),
        config: emulatorConfig(emulator),
      },
      async ({ preview, output }) => {
        await preview().then(
          () => output.push("the preview passed"),
          () => undefined,
        );
        const text = output.join("");
        expect(text).not.toContain("the preview passed");
        expect(text.split("\n")).toContainEqual(expect.stringMatching(says));
        expect(text).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m);
      },
    );
    expect(await emulator.writes()).toEqual([]);
  });
});
