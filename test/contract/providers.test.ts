import { GpuCloudClient } from "../../provider/client";
import { implementation as instanceProvider } from "../../provider/resources/instance";
import { implementation as secretProvider } from "../../provider/resources/secret";
import { implementation as volumeProvider } from "../../provider/resources/volume";
import { implementation as webhookProvider } from "../../provider/resources/webhook";
import { unknownValue } from "../../provider/shared/validation";
import { useEmulator } from "../support/use-emulator";

// The providers' methods called directly against the emulator, as the dynamic-provider process
// calls them (whole programs under the real CLI are in test/e2e).
describe("resource providers against the emulator", () => {
  const providers = useEmulator({ per: "file", bootPolls: 1 });
  const { emulator } = providers;

  it("Secret: check normalises, create, read, update, read masked drift, delete", async () => {
    const checked = await secretProvider.check?.(providers.run, {} as never, {
      key: "db_url",
      value: "v-1",
    });
    expect(checked).toEqual({ inputs: { key: "DB_URL", value: "v-1" }, failures: [] });
    const created = await secretProvider.create(providers.run, { key: "DB_URL", value: "v-1" });
    expect(created.id).toBe("DB_URL");
    expect(created.outs).toEqual({ key: "DB_URL", value: "v-1" });
    const recorded = { key: "DB_URL", value: "v-1" };
    // Found as recorded: no inputs, so the engine keeps the recorded ones.
    expect(await secretProvider.read(providers.run, "DB_URL", recorded)).toEqual({
      id: "DB_URL",
      props: { key: "DB_URL", value: "v-1" },
    });
    // Emptied (as if outside this stack): drift, with the inputs the next up compares with.
    await secretProvider.update?.(providers.run, "DB_URL", recorded, { key: "DB_URL", value: "" });
    expect(await secretProvider.read(providers.run, "DB_URL", recorded)).toEqual({
      id: "DB_URL",
      props: { key: "DB_URL", value: "" },
      inputs: { key: "DB_URL", value: "" },
    });
    await secretProvider.update?.(providers.run, "DB_URL", recorded, {
      key: "DB_URL",
      value: "v-2",
    });
    expect(await emulator.secrets()).toEqual({ DB_URL: "v-2" });
    await secretProvider.delete?.(providers.run, "DB_URL", { key: "DB_URL", value: "v-2" });
    expect(await secretProvider.read(providers.run, "DB_URL", recorded)).toEqual({});
  });

  it("Secret: takes over its own secret when the create's reply is lost, sending the create once", async () => {
    await emulator.clearRequests();
    await emulator.setFaults({ drops: { next: 1, afterHandling: true, methods: ["POST"] } });
    try {
      const created = await secretProvider.create(providers.run, {
        key: "LOST_TOKEN",
        value: "v-1",
      });
      expect(created).toEqual({ id: "LOST_TOKEN", outs: { key: "LOST_TOKEN", value: "v-1" } });
    } finally {
      await emulator.clearFaults();
    }
    expect((await emulator.secrets())["LOST_TOKEN"]).toBe("v-1");
    const posts = (await emulator.requests()).filter((entry) => entry.method === "POST");
    expect(posts).toEqual([expect.objectContaining({ status: 0 })]);
    await secretProvider.delete(providers.run, "LOST_TOKEN", { key: "LOST_TOKEN", value: "v-1" });
  });

  it("Secret: refuses a key the account already has, sending no create", async () => {
    await providers.client.secrets.create("THEIR_TOKEN", "theirs");
    await emulator.clearRequests();
    await expect(
      secretProvider.create(providers.run, { key: "THEIR_TOKEN", value: "ours" }),
    ).rejects.toThrow(/secret THEIR_TOKEN already exists in the account/);
    expect((await emulator.secrets())["THEIR_TOKEN"]).toBe("theirs");
    expect(await emulator.writes()).toEqual([]);
    await providers.client.secrets.delete("THEIR_TOKEN");
  });

  it("Webhook: a removed name is cleared on the service, and read and diff then see no change", async () => {
    const named = {
      url: "https://hooks.example.com/gpu",
      eventTypes: ["client:low_credit"],
      name: "alerts",
    };
    const created = await webhookProvider.create(providers.run, named);
    if (created.outs === undefined) throw new Error("create returned no outputs");
    const { name: _name, ...unnamed } = named;
    const updated = await webhookProvider.update?.(
      providers.run,
      created.id,
      created.outs,
      unnamed,
    );
    const outs = updated?.outs;
    if (outs === undefined) throw new Error("update returned no outputs");
    expect((await emulator.state()).webhooks[0]?.name).toBeNull();
    const read = await webhookProvider.read(providers.run, created.id, outs);
    expect(read.props).toEqual(outs);
    expect(
      await webhookProvider.diff(providers.run, created.id, read.props ?? outs, unnamed),
    ).toMatchObject({
      changes: false,
    });
    await webhookProvider.delete(providers.run, created.id, outs);
  });

  it("Volume: takes the volume a lost reply created, accepting the ask once", async () => {
    await emulator.clearRequests();
    await emulator.setFaults({ drops: { next: 1, afterHandling: true, methods: ["PUT"] } });
    try {
      const created = await volumeProvider.create(providers.run, { askId: 21001, sizeGb: 33 });
      const [volume] = (await emulator.state()).volumes;
      expect(created).toEqual({
        id: `V.${String(volume?.id)}`,
        outs: {
          askId: 21001,
          offerAskId: 21001,
          machineId: 41207,
          sizeGb: 33,
          volumeName: `V.${String(volume?.id)}`,
          volumeId: volume?.id,
          dollarsPerHour: expect.any(Number) as unknown,
        },
      });
    } finally {
      await emulator.clearFaults();
    }
    const accepts = (await emulator.requests()).filter((entry) => entry.method === "PUT");
    expect(accepts).toEqual([expect.objectContaining({ status: 0 })]);
    await volumeProvider.delete?.(providers.run, "", {
      askId: 21001,
      sizeGb: 33,
      volumeName: "",
      volumeId: (await emulator.state()).volumes[0]?.id ?? 0,
    });
    expect((await emulator.state()).volumes).toEqual([]);
  });

  it("Volume: a lost reply never takes a network volume another create made meanwhile", async () => {
    await providers.run.reads.volumeIdsBefore();
    // Made during the run, outside this create (as a NetworkVolume or a NodeGroup makes one).
    const client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
    const network = await client.volumes.createNetworkVolume(25001, 34);
    // The accept is lost before the service sees it: no local volume exists.
    await emulator.setFaults({
      drops: { next: 1, methods: ["PUT"], paths: ["/api/v0/volumes/"] },
    });
    try {
      await expect(
        volumeProvider.create(providers.run, { askId: 21001, sizeGb: 34 }),
      ).rejects.toThrow(/0 new volume\(s\) of 34 GB appeared/);
    } finally {
      await emulator.clearFaults();
    }
    expect((await emulator.state()).networkVolumes.map((volume) => volume.id)).toEqual([
      network.volumeId,
    ]);
    expect((await emulator.state()).volumes).toEqual([]);
    await client.volumes.delete(network.volumeId);
  });

  it("leaves inputs that are not known yet for the real run", async () => {
    const checked = await instanceProvider.check?.(
      providers.run,
      {} as never,
      {
        askId: unknownValue,
        image: "img",
        diskGb: 10,
      } as never,
    );
    expect(checked?.failures).toEqual([]);
  });

  it("Instance: does not rent again once the deadline has passed", async () => {
    await emulator.clearRequests();
    await emulator.queueBoots([{ status: "exited", afterPolls: 1 }]);
    // Each request takes 400 ms: the first attempt outlives the 0.5 s deadline.
    await emulator.setFaults({ latencyMs: 400 });
    try {
      await expect(
        instanceProvider.create(providers.run, {
          askId: 31001,
          image: "img",
          diskGb: 10,
          runtype: "ssh",
          state: "running",
          createTimeoutSeconds: 0.5,
          maxAttempts: 3,
          pollIntervalSeconds: 0.05,
        }),
      ).rejects.toThrow(/the 0.5 s createTimeoutSeconds deadline passed/);
    } finally {
      await emulator.clearFaults();
    }
    const requests = await emulator.requests();
    expect(requests.filter((entry) => entry.path.startsWith("/api/v0/asks/"))).toHaveLength(1);
    expect((await emulator.state()).instances).toEqual([]);
  });
});
