import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { GpuCloudClient, overlayJoinEnv, volumeMountEnv } from "../../provider/client";
import { secretOf } from "../../provider/native/secrets";
import { configurePlugin, importThrough, type Plugin, startPlugin } from "../support/native-plugin";
import { useEmulator } from "../support/use-emulator";

// `pulumi import` of an overlay, a network volume and an instance on them, made by hand, through
// the built plugin (Read with no properties, then Check and Diff as the engine's import step
// sends them): the inputs read pass check unchanged and diff with no change, so that a program
// declaring them changes nothing.

jest.setTimeout(60_000);

const CLUSTER = 7;

describe("pulumi import of cluster resources through the native plugin", () => {
  const { emulator } = useEmulator({ per: "file", bootPolls: 0, market: false });
  let client!: GpuCloudClient;
  let plugin!: Plugin;
  beforeAll(async () => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });
  beforeEach(async () => {
    plugin = await startPlugin();
    await configurePlugin(plugin, emulator);
  });
  afterEach(async () => {
    await plugin.stop();
    expect(plugin.stderr()).not.toContain(emulator.apiKey);
  });

  it("imports an overlay by id or name, a network volume, and an instance on both", async () => {
    const overlay = await client.overlays.create(CLUSTER, "hand-net");
    for (const id of [String(overlay.overlay_id), "hand-net"]) {
      const imported = await importThrough(plugin, "Overlay", "net", id);
      expect(imported).toMatchObject({
        id: String(overlay.overlay_id),
        inputs: { clusterId: CLUSTER, name: "hand-net" },
        outs: { overlayId: overlay.overlay_id, subnet: overlay.internal_subnet, instanceIds: [] },
        failures: [],
        changes: provproto.DiffResponse.DiffChanges.DIFF_NONE,
      });
      // The name stays the service's: the plugin adds only the resource's name, as the class does.
      expect(imported.checked).toEqual({
        clusterId: CLUSTER,
        name: "hand-net",
        resourceName: "net",
      });
    }

    const { volumeName, volumeId } = await client.volumes.createNetworkVolume(25001, 64, {
      name: "shards",
    });
    const volume = await importThrough(plugin, "NetworkVolume", "data", volumeName);
    expect(volume).toMatchObject({
      id: volumeName,
      inputs: { offerQuery: { clusterId: CLUSTER }, sizeGb: 64, name: "shards" },
      outs: { volumeId, volumeName, clusterId: CLUSTER },
      failures: [],
      changes: provproto.DiffResponse.DiffChanges.DIFF_NONE,
    });

    const instanceId = await client.instances.create(31003, {
      image: "img",
      disk: 10,
      env: { A: "1", ...overlayJoinEnv("hand-net"), ...volumeMountEnv(volumeId, "/data") },
    });
    // Running (its first show is provisioning): it has addresses.
    await client.instances.show(instanceId);
    const instance = await importThrough(plugin, "Instance", "gpu", String(instanceId));
    expect(instance.failures).toEqual([]);
    expect(instance.changes).toBe(provproto.DiffResponse.DiffChanges.DIFF_NONE);
    expect(instance.inputs).toMatchObject({
      askId: 31003,
      overlay: "hand-net",
      networkVolume: { volumeId, mountPath: "/data" },
    });
    expect(instance.inputs).not.toHaveProperty("volume");
    // The -n and -v entries are no variables of the program's.
    expect(instance.inputs["env"]).toEqual(secretOf({ A: "1" }));
    expect(instance.outs["localIp"]).toMatch(/^10\.\d+\.0\.1$/);

    await expect(importThrough(plugin, "NetworkVolume", "bad", "V.abc")).rejects.toThrow(
      /V\.<number>/,
    );
    await client.instances.destroy(instanceId);
    await client.volumes.delete(volumeId);
    await client.overlays.delete(overlay.overlay_id);
  });
});
