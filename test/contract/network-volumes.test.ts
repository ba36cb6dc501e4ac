import { GpuCloudClient, volumeMountEnv } from "../../provider/client";
import {
  type NetworkVolumeInputs,
  type NetworkVolumeOutputs,
  implementation as provider,
} from "../../provider/resources/network-volume";
import { useEmulator } from "../support/use-emulator";
import { requestsTo, summary } from "./harness";

// The NetworkVolume resource's methods against the emulator's small market: cluster 7 (machine
// 52011, instance ask 31003) lists network volume ask 25001 (1000 GB).

const CLUSTER = 7;
const NETWORK_ASK = 25001;
const ASK_IN_CLUSTER = 31003;

describe("NetworkVolume against the emulator", () => {
  let client!: GpuCloudClient;
  const providers = useEmulator({ per: "file", bootPolls: 0, market: false });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  const failuresOf = async (news: Record<string, unknown>, olds: Record<string, unknown> = {}) =>
    (
      (
        await provider.check?.(
          providers.run,
          olds as NetworkVolumeInputs,
          news as NetworkVolumeInputs,
        )
      )?.failures ?? []
    ).map((failure) => failure.reason);

  const created = async (inputs: NetworkVolumeInputs) => {
    const result = await provider.create(providers.run, inputs);
    return { id: result.id, outs: result.outs as NetworkVolumeOutputs };
  };

  it("fails check on bad input, naming the field, and sends no write", async () => {
    await emulator.clearRequests();
    expect(await failuresOf({ askId: NETWORK_ASK, sizeGb: 0 })).toEqual([
      "sizeGb: must be positive; got 0",
    ]);
    expect(await failuresOf({ askId: NETWORK_ASK, sizeGb: 2.5, name: "my data" })).toEqual([
      "sizeGb: expected a whole number, received 2.5 (sizeGb must be a whole number of GB)",
      "name: may hold only letters, digits, _ and . (the official client mounts a volume by such a name alone) (received a string of 7 characters)",
    ]);
    expect(await failuresOf({ askId: NETWORK_ASK, sizeGb: 10, name: "V.12" })).toEqual([
      "name: must not be shaped V.<number>, a volume's id",
    ]);
    expect(await failuresOf({ sizeGb: 10 })).toEqual([
      "askId: required: the id of a network volume ask (or offerQuery, a query to find one)",
    ]);
    expect(
      await failuresOf({ askId: NETWORK_ASK, offerQuery: { clusterId: CLUSTER }, sizeGb: 10 }),
    ).toEqual(["askId: give askId or offerQuery, not both"]);
    expect(await failuresOf({ offerQuery: { clusterId: "seven" }, sizeGb: 10 })).toEqual([
      expect.stringMatching(/^offerQuery: clusterId: got "seven"; expected a number/),
    ]);
    expect(await failuresOf({ askId: 99, sizeGb: 10 })).toEqual([
      "askId: no network volume ask 99 is offered",
    ]);
    expect(await failuresOf({ askId: NETWORK_ASK, sizeGb: 2000 })).toEqual([
      "sizeGb: 2000 GB is more than network volume ask 25001 has left (1000 GB disk_space)",
    ]);
    expect(await failuresOf({ askId: NETWORK_ASK, sizeGb: 1000, name: "data_1.v2" })).toEqual([]);
    expect(await emulator.writes()).toEqual([]);
  });

  it("creates by query on the cluster, reads, diffs and deletes", async () => {
    const inputs = { offerQuery: { clusterId: CLUSTER }, sizeGb: 200, name: "datasets" };
    expect(await failuresOf(inputs)).toEqual([]);
    await emulator.clearRequests();
    const volume = await created(inputs);
    const [stored] = (await emulator.state()).networkVolumes;
    expect(stored).toMatchObject({
      askId: NETWORK_ASK,
      clusterId: CLUSTER,
      sizeGb: 200,
      label: "datasets",
    });
    expect(volume).toEqual({
      id: `V.${stored?.id}`,
      outs: {
        ...inputs,
        volumeId: stored?.id,
        volumeName: `V.${stored?.id}`,
        clusterId: CLUSTER,
        offerAskId: NETWORK_ASK,
        offer: expect.objectContaining({ askId: NETWORK_ASK, clusterId: CLUSTER }) as unknown,
        // What the service's volume list reports (test/contract/budget.test.ts compares it).
        dollarsPerHour: expect.any(Number) as unknown,
      },
    });
    expect(summary(await emulator.writes())).toEqual(["PUT /api/v0/network_volumes/ 200"]);
    expect(await provider.read(providers.run, volume.id, volume.outs)).toEqual({
      id: volume.id,
      props: volume.outs,
    });

    // Size, name and ask replace; a query the volume's offer still matches changes in place.
    const diff = (news: Record<string, unknown>) =>
      provider.diff?.(providers.run, volume.id, volume.outs, { ...inputs, ...news });
    expect(await diff({})).toEqual({ changes: false, replaces: [] });
    expect(await diff({ sizeGb: 300 })).toEqual({ changes: true, replaces: ["sizeGb"] });
    expect(await diff({ name: "other" })).toEqual({ changes: true, replaces: ["name"] });
    expect(
      await diff({ offerQuery: { clusterId: CLUSTER, storageCostPerGbMonth: { lte: 1 } } }),
    ).toEqual({ changes: true, replaces: [] });
    expect(await diff({ offerQuery: { clusterId: 101 } })).toEqual({
      changes: true,
      replaces: ["offerQuery"],
    });
    await provider.delete?.(providers.run, volume.id, volume.outs);
    expect((await emulator.state()).networkVolumes).toEqual([]);
    // Gone already: done.
    await provider.delete?.(providers.run, volume.id, volume.outs);
    expect(await provider.read(providers.run, volume.id, volume.outs)).toEqual({});
  });

  it("creates by ask; a query no offer with room matches creates nothing", async () => {
    const volume = await created({ askId: NETWORK_ASK, sizeGb: 50 });
    expect(volume.outs).toMatchObject({
      askId: NETWORK_ASK,
      clusterId: CLUSTER,
      offerAskId: NETWORK_ASK,
    });
    expect(volume.outs).not.toHaveProperty("name");
    await emulator.clearRequests();
    await expect(created({ offerQuery: { clusterId: CLUSTER }, sizeGb: 5000 })).rejects.toThrow(
      "no network volume offer matches offerQuery with room for 5000 GB (1 matched but have less left); nothing was created",
    );
    expect(await emulator.writes()).toEqual([]);
    await provider.delete?.(providers.run, volume.id, volume.outs);
  });

  it("refuses to delete a volume an instance mounts, naming the instance; deletes it once it is gone", async () => {
    const volume = await created({ askId: NETWORK_ASK, sizeGb: 20 });
    const instanceId = await client.instances.create(ASK_IN_CLUSTER, {
      image: "img",
      disk: 10,
      env: volumeMountEnv(volume.outs.volumeId, "/data"),
    });
    await expect(provider.delete?.(providers.run, volume.id, volume.outs)).rejects.toThrow(
      `network volume ${volume.id} cannot be deleted: instance ${instanceId} mounts it, and the ` +
        "service deletes no mounted volume. Destroy those instances first",
    );
    expect((await emulator.state()).networkVolumes).toHaveLength(1);
    await client.instances.destroy(instanceId);
    await provider.delete?.(providers.run, volume.id, volume.outs);
    expect((await emulator.state()).networkVolumes).toEqual([]);
  });

  it("takes the volume a lost reply created, creating it once", async () => {
    await emulator.clearRequests();
    await emulator.setFaults({
      drops: {
        next: 1,
        afterHandling: true,
        methods: ["PUT"],
        paths: ["/api/v0/network_volumes/"],
      },
    });
    let volume: Awaited<ReturnType<typeof created>>;
    try {
      volume = await created({ offerQuery: { clusterId: CLUSTER }, sizeGb: 33, name: "lost" });
    } finally {
      await emulator.clearFaults();
    }
    const [stored] = (await emulator.state()).networkVolumes;
    expect(volume).toMatchObject({
      id: `V.${stored?.id}`,
      outs: { volumeId: stored?.id, clusterId: CLUSTER, sizeGb: 33, name: "lost" },
    });
    expect(requestsTo(await emulator.requests(), "PUT", "/api/v0/network_volumes/")).toEqual([
      expect.objectContaining({ status: 0 }),
    ]);
    await provider.delete?.(providers.run, volume.id, volume.outs);
  });

  it("imports by V.<id> or the number; a local volume is refused", async () => {
    // Through the provider's client: its list of volumes, shared for a moment, then knows it.
    const { volumeName, volumeId } = await providers.run.client.volumes.createNetworkVolume(
      NETWORK_ASK,
      40,
      {
        name: "by_hand",
      },
    );
    for (const id of [volumeName, String(volumeId)]) {
      const read = await provider.read(providers.run, id, undefined);
      expect(read).toEqual({
        id: volumeName,
        props: {
          offerQuery: { clusterId: CLUSTER },
          sizeGb: 40,
          name: "by_hand",
          volumeId,
          volumeName,
          clusterId: CLUSTER,
          offerAskId: NETWORK_ASK,
          offer: expect.objectContaining({ askId: NETWORK_ASK }) as unknown,
          dollarsPerHour: expect.any(Number) as unknown,
        },
        inputs: { offerQuery: { clusterId: CLUSTER }, sizeGb: 40, name: "by_hand" },
      });
      // As the engine checks an import: olds and news are the inputs read.
      const inputs = read.inputs as NetworkVolumeInputs;
      expect(await provider.check?.(providers.run, inputs, inputs)).toEqual({
        inputs,
        failures: [],
      });
      expect(
        await provider.diff?.(
          providers.run,
          volumeName,
          read.props as NetworkVolumeOutputs,
          inputs,
        ),
      ).toMatchObject({ changes: false });
    }
    const local = await providers.run.client.volumes.acceptVolumeAsk(21003, 15);
    await expect(provider.read(providers.run, local.volumeName, undefined)).rejects.toThrow(
      `volume ${local.volumeName} cannot be imported as a NetworkVolume: it is a local volume, on machine 52011 (import it as a Volume)`,
    );
    await expect(provider.read(providers.run, "vol-1", undefined)).rejects.toThrow(/V\.<number>/);
    expect(await provider.read(providers.run, "V.999999", undefined)).toEqual({});
    await client.volumes.delete(volumeId);
    await client.volumes.delete(local.volumeId);
  });
});
