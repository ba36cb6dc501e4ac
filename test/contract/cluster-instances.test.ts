import { environmentOf, GpuCloudClient } from "../../provider/client";
import { implementation as instanceProvider } from "../../provider/resources/instance";
import { specOf } from "../../provider/renting/identity";
import type { InstanceInputs, InstanceOutputs } from "../../provider/resources/instance/inputs";
import { inSubnet } from "../../provider/shared/addresses";
import { localIpOf } from "../../provider/renting/placement";
import {
  type NetworkVolumeOutputs,
  implementation as networkVolumeProvider,
} from "../../provider/resources/network-volume";
import {
  type OverlayInputs,
  type OverlayOutputs,
  implementation as overlayProvider,
} from "../../provider/resources/overlay";
import { unknownValue } from "../../provider/shared/validation";
import { useEmulator } from "../support/use-emulator";

// Instances on an overlay and mounting a network volume, against the emulator's small market:
// cluster 7 is machine 52011 alone (instance ask 31003, network volume ask 25001); ask 31001
// is on machine 41207, in no cluster.

const CLUSTER = 7;
const ASK_IN_CLUSTER = 31003;
const ASK_OUTSIDE = 31001;

describe("Instance on an overlay, mounting a network volume", () => {
  let client!: GpuCloudClient;
  const providers = useEmulator({ per: "file", bootPolls: 0, market: false });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  const base = { image: "pytorch/pytorch", diskGb: 20, pollIntervalSeconds: 0.05 };

  const checked = async (news: Record<string, unknown>, olds: Record<string, unknown> = {}) => {
    const result = await instanceProvider.check?.(
      providers.run,
      olds as InstanceInputs,
      news as InstanceInputs,
    );
    return {
      inputs: (result?.inputs ?? {}) as InstanceInputs,
      failures: (result?.failures ?? []).map((failure) => failure.reason),
    };
  };

  it("picks the overlay address for localIp", () => {
    const shown = "10.0.7.2 10.101.0.3 172.17.0.1\n";
    expect(localIpOf(shown, "10.101.0.0/24")).toBe("10.101.0.3");
    expect(localIpOf(shown, undefined)).toBe("10.0.7.2");
    expect(localIpOf(shown, "10.140.0.0/24")).toBe("10.0.7.2");
    expect(localIpOf(null, "10.101.0.0/24")).toBeNull();
    expect(inSubnet("10.100.0.254", "10.100.0.0/24")).toBe(true);
    expect(inSubnet("10.100.1.1", "10.100.0.0/24")).toBe(false);
    expect(inSubnet("10.100.1.1", "not a subnet")).toBe(false);
  });

  it("fails check at preview, naming the field and both clusters, with no write", async () => {
    const overlay = await client.overlays.create(CLUSTER, "existing-net");
    const local = await client.volumes.acceptVolumeAsk(21001, 15);
    await emulator.clearRequests();
    const failures = async (news: Record<string, unknown>) =>
      (await checked({ ...base, ...news })).failures;

    expect(await failures({ askId: ASK_IN_CLUSTER, overlay: "Existing Net" })).toEqual([
      "overlay: may hold only lowercase letters, digits and - (instances join an overlay by its name, and the official client drops any other) (received a string of 12 characters)",
    ]);
    expect(await failures({ offerQuery: {}, overlay: "nope" })).toEqual([
      "overlay: no overlay named nope on the account: declare it with a gpucloud Overlay and give its name output (overlay: net.name), so that the instance is created after it",
    ]);
    expect(await failures({ askId: ASK_OUTSIDE, overlay: overlay.name })).toEqual([
      `askId: ask ${ASK_OUTSIDE} is on machine 41207, in no cluster, but overlay existing-net is on cluster 7: rent on a machine of cluster 7 (with offerQuery, the search is pinned to it)`,
    ]);
    expect(
      await failures({ askIds: [ASK_IN_CLUSTER, ASK_OUTSIDE], overlay: overlay.name }),
    ).toEqual([
      expect.stringMatching(/^askIds: ask 31001 is on machine 41207, in no cluster, but overlay/),
    ]);
    expect(await failures({ askId: ASK_IN_CLUSTER, overlay: overlay.name })).toEqual([]);
    expect(
      await failures({ askId: ASK_IN_CLUSTER, networkVolume: { volumeId: 999, mountPath: "/d" } }),
    ).toEqual([
      "networkVolume.volumeId: no volume 999 (V.999) on the account: give a NetworkVolume's volumeId",
    ]);
    expect(
      await failures({
        askId: ASK_IN_CLUSTER,
        networkVolume: { volumeId: local.volumeId, mountPath: "/d" },
      }),
    ).toEqual([
      `networkVolume: ${local.volumeName} is a local volume, on machine 41207: link it with volume, or give a NetworkVolume's volumeId here`,
    ]);
    expect(
      await failures({ askId: ASK_IN_CLUSTER, networkVolume: { volumeId: 5, mountPath: "data" } }),
    ).toEqual([
      "networkVolume.mountPath: must be an absolute path of letters, digits, _, . and /, e.g. /data (received a string of 4 characters)",
    ]);
    expect(await failures({ askId: ASK_IN_CLUSTER, overlay: overlay.name, runtype: "vm" })).toEqual(
      [
        "overlay: a VM cannot join an overlay: overlay networks are for container instances (runtype ssh, jupyter or args)",
      ],
    );
    // The service's volume guide: volumes are for docker instances only.
    const vm = { askId: ASK_IN_CLUSTER, runtype: "vm" };
    const noVolumeOnVm =
      "a VM cannot mount a volume: volumes are for container instances (runtype ssh, jupyter or args)";
    expect(await failures({ ...vm, networkVolume: { volumeId: 999, mountPath: "/d" } })).toContain(
      `networkVolume: ${noVolumeOnVm}`,
    );
    expect(
      await failures({ ...vm, volume: { volumeId: local.volumeId, mountPath: "/d" } }),
    ).toContain(`volume: ${noVolumeOnVm}`);
    // Not known yet at preview: left for the real run.
    expect(
      await failures({
        askId: ASK_OUTSIDE,
        networkVolume: { volumeId: unknownValue, mountPath: "/data" },
        overlay: unknownValue,
      }),
    ).toEqual([]);
    expect(await emulator.writes()).toEqual([]);
    await client.overlays.delete(overlay.overlay_id);
    await client.volumes.delete(local.volumeId);
  });

  it("takes an overlay this run declares, before it exists, with its cluster", async () => {
    const declared = await overlayProvider.check?.(providers.run, {} as OverlayInputs, {
      clusterId: CLUSTER,
      name: "declared-net",
      resourceName: "net",
    });
    expect(declared?.failures).toEqual([]);
    const failures = async (news: Record<string, unknown>) =>
      (await checked({ ...base, ...news })).failures;
    expect(await failures({ offerQuery: {}, overlay: "declared-net" })).toEqual([]);
    expect(await failures({ askId: ASK_OUTSIDE, overlay: "declared-net" })).toEqual([
      expect.stringMatching(
        /^askId: ask 31001 is on machine 41207, in no cluster, but overlay declared-net is on cluster 7/,
      ),
    ]);
    expect((await client.overlays.list()).map((overlay) => overlay.name)).toEqual([]);
  });

  it("a create by query that finds no offer in the cluster names the cluster, what pins it, and the cap", async () => {
    const overlay = await overlayProvider.create(providers.run, {
      clusterId: CLUSTER,
      name: "capped-net",
    });
    const inputs = await checked({
      ...base,
      offerQuery: { gpuName: { neq: "none" } },
      maxDollarsPerHour: 0.01,
      overlay: "capped-net",
    });

    const message = await instanceProvider.create(providers.run, inputs.inputs).then(
      () => "created",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );

    expect(message).toContain(
      "no offer matching offerQuery in cluster 7 (where overlay capped-net is) costs at most " +
        "maxDollarsPerHour $0.01/h; the cheapest match there is $1.1/h (ask 31003, 1x A100 SXM4)",
    );
    // The file's other tests count the overlays.
    await client.overlays.delete((overlay.outs as OverlayOutputs).overlayId);
  });

  it("rents by query in the cluster, joins the overlay and mounts the volume at create", async () => {
    const overlay = await overlayProvider
      .create(providers.run, { clusterId: CLUSTER, name: "train-net" })
      .then(({ id, outs }) => ({ id, outs: outs as OverlayOutputs }));
    const volume = await networkVolumeProvider
      .create(providers.run, { offerQuery: { clusterId: CLUSTER }, sizeGb: 100 })
      .then(({ id, outs }) => ({ id, outs: outs as NetworkVolumeOutputs }));
    const { volumeId } = volume.outs;
    const declared = {
      ...base,
      offerQuery: { gpuName: { neq: "none" } },
      env: { RANK: "0" },
      overlay: "train-net",
      networkVolume: { volumeId, mountPath: "/data" },
    };
    const first = await checked(declared);
    expect(first.failures).toEqual([]);
    const created = await instanceProvider.create(providers.run, first.inputs);
    const outs = created.outs as InstanceOutputs;
    const second = await instanceProvider
      .create(providers.run, first.inputs)
      .then(({ id, outs: secondOuts }) => ({ id, outs: secondOuts as InstanceOutputs }));

    const state = await emulator.state();
    const members = state.instances.map((instance) => ({
      id: instance.id,
      overlay: instance["overlay"],
      mounts: instance["mounts"],
    }));
    const subnet = overlay.outs.subnet as string;
    expect(members).toEqual([
      {
        id: Number(created.id),
        overlay: { overlayId: overlay.outs.overlayId, address: outs.localIp },
        mounts: [{ volumeId, mountPath: "/data" }],
      },
      {
        id: Number(second.id),
        overlay: { overlayId: overlay.outs.overlayId, address: second.outs.localIp },
        mounts: [{ volumeId, mountPath: "/data" }],
      },
    ]);
    expect(inSubnet(outs.localIp ?? "", subnet)).toBe(true);
    expect(inSubnet(second.outs.localIp ?? "", subnet)).toBe(true);
    expect(outs.localIp).not.toEqual(second.outs.localIp);
    // Rented in the cluster: the query was pinned to it.
    expect(outs.offer?.askId).toBe(ASK_IN_CLUSTER);
    // The create's env carried the entries, as the official client sends them.
    expect(state.instances[0]?.["env"]).toMatchObject({
      RANK: "0",
      "-n train-net": "1",
      [`-v V.${volumeId}:/data`]: "1",
    });
    // The recorded env is the program's.
    expect(outs.env).toEqual({ RANK: "0" });

    // Refresh: found as recorded.
    expect(await instanceProvider.read(providers.run, created.id, outs)).toEqual({
      id: created.id,
      props: outs,
    });
    // Either change replaces.
    const diff = (news: Partial<InstanceInputs>) =>
      instanceProvider.diff?.(providers.run, created.id, outs, { ...first.inputs, ...news });
    expect(await diff({})).toMatchObject({ changes: false, replaces: [] });
    expect(await diff({ overlay: "other-net" })).toMatchObject({
      changes: true,
      replaces: ["overlay"],
    });
    expect(await diff({ networkVolume: { volumeId, mountPath: "/mnt" } })).toMatchObject({
      changes: true,
      replaces: ["networkVolume"],
    });
    // An instance on another overlay or mounting another volume is never adopted for this one.
    expect(specOf({ ...first.inputs, overlay: "other-net" })).not.toEqual(specOf(first.inputs));
    expect(specOf({ ...first.inputs, networkVolume: { volumeId, mountPath: "/mnt" } })).not.toEqual(
      specOf(first.inputs),
    );
    const { overlay: _overlay, networkVolume: _networkVolume, ...plain } = first.inputs;
    expect(specOf(plain)).toEqual(specOf({ ...plain, overlay: undefined }));

    // Imported: the entries come back as overlay and networkVolume, never as env.
    const imported = await instanceProvider.read(providers.run, created.id, undefined);
    expect(imported.inputs).toMatchObject({
      askId: ASK_IN_CLUSTER,
      env: { RANK: "0" },
      overlay: "train-net",
      networkVolume: { volumeId, mountPath: "/data" },
    });
    expect(imported.inputs).not.toHaveProperty("volume");
    expect(imported.props?.localIp).toBe(outs.localIp);
    const importedInputs = imported.inputs as InstanceInputs;
    const recheck = await checked(importedInputs, importedInputs);
    expect(recheck.failures).toEqual([]);
    expect(
      await instanceProvider.diff?.(
        providers.run,
        created.id,
        imported.props as InstanceOutputs,
        recheck.inputs,
      ),
    ).toMatchObject({ changes: false });

    // The volume outlives its instances only once they are gone.
    await expect(
      networkVolumeProvider.delete?.(providers.run, volume.id, volume.outs),
    ).rejects.toThrow(`instance ${created.id}, ${second.id} mount it`);
    await instanceProvider.delete?.(providers.run, created.id, outs);
    await instanceProvider.delete?.(providers.run, second.id, second.outs);
    await networkVolumeProvider.delete?.(providers.run, volume.id, volume.outs);
    await overlayProvider.delete?.(providers.run, overlay.id, overlay.outs);
    const after = await emulator.state();
    expect([after.instances, after.overlays, after.networkVolumes]).toEqual([[], [], []]);
  });

  it("imports an instance that joined an overlay after its create, with that overlay", async () => {
    const overlay = await client.overlays.create(CLUSTER, "later-net");
    const instanceId = await client.instances.create(ASK_IN_CLUSTER, { image: "img", disk: 10 });
    await client.instances.show(instanceId);
    await client.overlays.join("later-net", instanceId);
    const shown = await client.instances.show(instanceId);
    expect(environmentOf(shown ?? { id: 0 })).toEqual({});
    const imported = await instanceProvider.read(providers.run, String(instanceId), undefined);
    expect(imported.inputs).toMatchObject({ overlay: "later-net" });
    expect(imported.props?.localIp).toMatch(/^10\.\d+\.0\.1$/);
    await client.instances.destroy(instanceId);
    await client.overlays.delete(overlay.overlay_id);
  });
});
