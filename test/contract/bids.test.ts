import { request } from "undici";
import { GpuCloudClient, GpuCloudError } from "../../provider/client";
import {
  diffInstance,
  implementation as instanceProvider,
  instanceInputsSchema,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import type { TestEmulator } from "../support/emulator";
import { Run } from "../../provider/run/run";
import { useEmulator } from "../support/use-emulator";
import { summary } from "./harness";

const ASK = 31001; // a seeded ask
const basic = { image: "pytorch/pytorch:latest", disk: 16 };

/** The emulator's test control: a higher bid takes the instance's machine. */
async function outbid(emulator: TestEmulator, instanceId: number, dollarsPerHour: number) {
  const response = await request(`${emulator.url}/_emulator/instances/${instanceId}/outbid`, {
    method: "POST",
    body: JSON.stringify({ dollarsPerHour }),
    headers: { "content-type": "application/json" },
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) {
    throw new Error(`outbid control: HTTP ${response.statusCode} ${text}`);
  }
}

const bidOf = async (emulator: TestEmulator, instanceId: number) =>
  (await emulator.state()).instances.find((instance) => instance.id === instanceId)?.[
    "bidDollarsPerHour"
  ];

describe("the client's changeBid", () => {
  const h = useEmulator({ per: "test" });

  it("changes an interruptible instance's bid with one PUT to the bid-price endpoint", async () => {
    const id = await h.client.instances.create(ASK, { ...basic, price: 0.2 });
    await h.emulator.clearRequests();

    await h.client.instances.changeBid(id, 0.35);

    expect(summary(await h.emulator.writes())).toEqual([
      `PUT /api/v0/instances/bid_price/${id}/ 200`,
    ]);
    expect(await bidOf(h.emulator, id)).toBe(0.35);
  });

  it("is refused for an on-demand instance (400 invalid_args) and an unknown one (404)", async () => {
    const onDemand = await h.client.instances.create(ASK, basic);
    await expect(h.client.instances.changeBid(onDemand, 0.3)).rejects.toMatchObject({
      status: 400,
      code: "invalid_args",
    });
    await expect(h.client.instances.changeBid(424242, 0.3)).rejects.toMatchObject({
      status: 404,
      code: "no_such_instance",
    });
  });

  it("never sends a bid outside 0.001..32 $/hour", async () => {
    const id = await h.client.instances.create(ASK, { ...basic, price: 0.2 });
    await h.emulator.clearRequests();
    for (const price of [0, 0.0005, 32.01]) {
      const failure = h.client.instances.changeBid(id, price);
      await expect(failure).rejects.toBeInstanceOf(GpuCloudError);
      await expect(failure).rejects.toThrow(/was not sent/);
    }
    expect(await h.emulator.requests()).toEqual([]);
    await h.client.instances.changeBid(id, 32);
    expect(await bidOf(h.emulator, id)).toBe(32);
  });
});

describe("the Instance provider's bids", () => {
  let client: GpuCloudClient;
  const providers = useEmulator({ per: "file", bootPolls: 1 });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });
  beforeEach(async () => {
    for (const instance of await client.instances.list()) {
      await client.instances.destroy(instance.id);
    }
    await emulator.clearRequests();
  });

  const inputs = (fields: Record<string, unknown> = {}) =>
    instanceInputsSchema.parse({
      askId: ASK,
      image: "img",
      diskGb: 10,
      price: 0.2,
      pollIntervalSeconds: 0.05,
      owner: "p/s/gpu",
      ...fields,
    });

  async function rent(fields: Record<string, unknown> = {}): Promise<InstanceOutputs> {
    const created = await instanceProvider.create(providers.run, inputs(fields));
    if (!created.outs) throw new Error("create returned no outputs");
    await emulator.clearRequests();
    return created.outs;
  }

  async function refresh(props: InstanceOutputs) {
    const read = await instanceProvider.read?.(providers.run, String(props.instanceId), props);
    if (!read?.props) throw new Error("read found nothing");
    return read;
  }

  it("raises a bid in place: one bid change, nothing else, the same instance", async () => {
    const olds = await rent();
    const news = inputs({ price: 0.35 });
    expect(diffInstance(olds, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });

    const updated = await instanceProvider.update?.(
      providers.run,
      String(olds.instanceId),
      olds,
      news,
    );

    expect(summary(await emulator.writes())).toEqual([
      `PUT /api/v0/instances/bid_price/${olds.instanceId}/ 200`,
    ]);
    expect(updated?.outs).toMatchObject({ instanceId: olds.instanceId, price: 0.35 });
    expect(await bidOf(emulator, olds.instanceId)).toBe(0.35);
    expect((await emulator.state()).instances.map((instance) => instance.id)).toEqual([
      olds.instanceId,
    ]);
  });

  it("refreshes a running bid instance with no drift", async () => {
    const olds = await rent();
    const read = await refresh(olds);
    expect(read.inputs).toBeUndefined();
    expect(read.props).not.toHaveProperty("outbidByDollarsPerHour");
  });

  it("shows an outbid instance after refresh: stopped, the service's message, the winning price", async () => {
    const olds = await rent();
    await outbid(emulator, olds.instanceId, 0.5);

    const read = await refresh(olds);

    expect(read.props).toMatchObject({
      instanceId: olds.instanceId,
      actualStatus: "stopped",
      intendedStatus: "running",
      state: "running",
      outbidByDollarsPerHour: 0.5,
    });
    expect(read.props?.statusMessage).toMatch(/outbid/i);
    // Drift: the engine records the new outputs; the next up acts on them only when a bid it
    // may set wins (price above 0.5, or onOutbid raise): with neither it stays paused.
    expect(read.inputs).toBeDefined();
    expect(diffInstance(read.props as InstanceOutputs, inputs())).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(diffInstance(read.props as InstanceOutputs, inputs({ price: 0.6 }))).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect(await emulator.writes()).toEqual([]);
  });

  it("brings an outbid instance back when the declared bid is above the winning one", async () => {
    const olds = await rent();
    await outbid(emulator, olds.instanceId, 0.5);
    const refreshed = (await refresh(olds)).props as InstanceOutputs;
    await emulator.clearRequests();

    const updated = await instanceProvider.update?.(
      providers.run,
      String(olds.instanceId),
      refreshed,
      inputs({ price: 0.6 }),
    );

    expect(summary(await emulator.writes())).toEqual([
      `PUT /api/v0/instances/bid_price/${olds.instanceId}/ 200`,
    ]);
    expect(updated?.outs).toMatchObject({
      instanceId: olds.instanceId,
      price: 0.6,
      actualStatus: "running",
      intendedStatus: "running",
    });
    expect(updated?.outs).not.toHaveProperty("outbidByDollarsPerHour");
    expect(await bidOf(emulator, olds.instanceId)).toBe(0.6);
    // And a refresh then finds it running, no longer outbid.
    const after = await refresh(updated?.outs as InstanceOutputs);
    expect(after.props).toMatchObject({ actualStatus: "running" });
    expect(after.props).not.toHaveProperty("outbidByDollarsPerHour");
  });

  it.each([
    ["the same bid", 0.2],
    ["a bid raised, but not above the winning one", 0.5],
  ])(
    "leaves an outbid instance with %s paused (onOutbid wait), saying what it bills; the rest of the update goes on",
    async (_case, price) => {
      const olds = await rent();
      await outbid(emulator, olds.instanceId, 0.5);
      const refreshed = (await refresh(olds)).props as InstanceOutputs;
      await emulator.clearRequests();
      const from = providers.progress.length;

      const updated = await instanceProvider.update?.(
        providers.run,
        String(olds.instanceId),
        refreshed,
        inputs({ price, label: "renamed" }),
      );

      expect(providers.progress.slice(from).join("\n")).toMatch(
        new RegExp(
          String.raw`gpu: instance ${olds.instanceId} is outbid: a bid of \$0\.5/h holds its ` +
            String.raw`machine; it stays paused \(onOutbid wait\), its data kept and its disk ` +
            String.raw`billing \$[\d.]+/h meanwhile; to run it again, raise price above 0\.5`,
        ),
      );
      // The declared bid and label are sent; nothing is destroyed, and it stays outbid.
      expect(summary(await emulator.writes())).toEqual([
        ...(price === 0.2 ? [] : [`PUT /api/v0/instances/bid_price/${olds.instanceId}/ 200`]),
        `PUT /api/v0/instances/${olds.instanceId}/ 200`,
      ]);
      expect(updated?.outs).toMatchObject({ outbidByDollarsPerHour: 0.5, label: "renamed" });
      expect((await emulator.state()).instances.map((instance) => instance.id)).toEqual([
        olds.instanceId,
      ]);
      // Nothing else to do: the next diff has no change, and says it again.
      const next = updated?.outs as InstanceOutputs;
      expect(diffInstance(next, inputs({ price, label: "renamed" }))).toMatchObject({
        changes: false,
      });
    },
  );

  it("raises an outbid bid a tenth of a cent above the winning one with onOutbid raise, up to maxBidDollarsPerHour and no further", async () => {
    const olds = await rent();
    await outbid(emulator, olds.instanceId, 0.5);
    const refreshed = (await refresh(olds)).props as InstanceOutputs;
    const under = inputs({ onOutbid: "raise", maxBidDollarsPerHour: 0.45 });
    // A ceiling under the winning bid: left paused, no update (the ceiling recorded already).
    const recorded = { ...refreshed, onOutbid: "raise" as const, maxBidDollarsPerHour: 0.45 };
    expect(diffInstance(recorded, under)).toMatchObject({ changes: false });
    const raise = inputs({ onOutbid: "raise", maxBidDollarsPerHour: 0.8 });
    expect(diffInstance(refreshed, raise)).toMatchObject({ changes: true, replaces: [] });
    await emulator.clearRequests();

    const updated = await instanceProvider.update?.(
      providers.run,
      String(olds.instanceId),
      refreshed,
      raise,
    );

    expect(summary(await emulator.writes())).toEqual([
      `PUT /api/v0/instances/bid_price/${olds.instanceId}/ 200`,
    ]);
    expect(await bidOf(emulator, olds.instanceId)).toBe(0.501);
    expect(updated?.outs).toMatchObject({ actualStatus: "running", price: 0.2 });
    expect(updated?.outs).not.toHaveProperty("outbidByDollarsPerHour");
  });

  it("holds the bid a raise may set against the stack's cap at preview, before any write", async () => {
    const olds = await rent();
    await outbid(emulator, olds.instanceId, 0.5);
    const refreshed = (await refresh(olds)).props as InstanceOutputs;
    await emulator.clearRequests();
    const withCap = (maxDollarsPerHour: number) => {
      const values: Record<string, string> = {
        "gpucloud:apiKey": emulator.apiKey,
        "gpucloud:baseUrl": emulator.url,
        "gpucloud:maxDollarsPerHour": String(maxDollarsPerHour),
      };
      return new Run({ config: { get: (key) => values[key] }, progress: () => {} });
    };
    const raise = inputs({ onOutbid: "raise", maxBidDollarsPerHour: 0.8 });
    const under = withCap(0.45);
    const over = withCap(2);
    try {
      // A preview checks the resource before it diffs it (a diff without is a refresh's).
      for (const run of [under, over]) await instanceProvider.check(run, refreshed, raise);
      // Paused, it bills its disk alone: the raise's 0.501 $/h is what the cap must hold.
      await expect(
        instanceProvider.diff?.(under, String(olds.instanceId), refreshed, raise),
      ).rejects.toThrow(/expected total is \$0\.50\d*\/h, over the stack's cap of \$0\.45\/h/);
      await expect(
        instanceProvider.diff?.(over, String(olds.instanceId), refreshed, raise),
      ).resolves.toMatchObject({ changes: true, replaces: [] });
    } finally {
      await Promise.all([under.close(), over.close()]);
    }
    expect(await emulator.writes()).toEqual([]);
  });

  it("refuses a ceiling without a bid or under it, and raise without a ceiling, at check", async () => {
    const failures = async (fields: Record<string, unknown>) =>
      (
        (
          await instanceProvider.check(
            providers.run,
            {} as never,
            { askId: ASK, image: "pytorch/pytorch", diskGb: 16, ...fields } as never,
          )
        ).failures ?? []
      ).map((failure) => failure.reason);
    expect(await failures({ maxBidDollarsPerHour: 1 })).toEqual([
      "maxBidDollarsPerHour: caps a bid: give price with it",
    ]);
    expect(await failures({ price: 0.5, maxBidDollarsPerHour: 0.4 })).toEqual([
      "maxBidDollarsPerHour: must be at least price",
    ]);
    expect(await failures({ price: 0.5, onOutbid: "raise" })).toEqual([
      "onOutbid: raise needs maxBidDollarsPerHour, the highest bid it may set",
    ]);
    expect(await failures({ price: 0.5, onOutbid: "replace" })).toEqual([
      "onOutbid: replace rents another instance by offerQuery; give offerQuery (askId and askIds name machines, which the winning bid holds), or use wait or raise",
    ]);
    expect(await emulator.writes()).toEqual([]);
  });

  it("replaces an outbid instance with onOutbid replace, by its query, saying so; a price that wins it back raises instead", async () => {
    const byQuery = { askId: undefined, offerQuery: { gpuName: "RTX 4090" }, onOutbid: "replace" };
    const olds = await rent(byQuery);
    await outbid(emulator, olds.instanceId, 0.5);
    const refreshed = (await refresh(olds)).props as InstanceOutputs;
    await emulator.clearRequests();
    const from = providers.progress.length;

    const diff = await instanceProvider.diff?.(
      providers.run,
      String(olds.instanceId),
      refreshed,
      inputs(byQuery),
    );

    expect(diff).toEqual({ changes: true, replaces: ["onOutbid"], deleteBeforeReplace: false });
    expect(providers.progress.slice(from).join("\n")).toMatch(
      new RegExp(
        String.raw`gpu: instance ${olds.instanceId} is outbid: a bid of \$0\.5/h holds its ` +
          String.raw`machine; it is replaced \(onOutbid replace\): another instance is rented ` +
          String.raw`by offerQuery, within the stack's cap, and instance ${olds.instanceId} is ` +
          String.raw`destroyed, so that its disk \(\$[\d.]+/h\) bills no more`,
      ),
    );
    // A declared price above the winning bid wins the machine back in place instead.
    const winsBack = await instanceProvider.diff?.(
      providers.run,
      String(olds.instanceId),
      refreshed,
      inputs({ ...byQuery, price: 0.6 }),
    );
    expect(winsBack).toMatchObject({ changes: true, replaces: [] });
    expect(await emulator.writes()).toEqual([]);
  });

  it("leaves an outbid instance paused when its local volume cannot follow (onOutbid replace), saying why", async () => {
    const olds = await rent();
    await outbid(emulator, olds.instanceId, 0.5);
    const volume = await client.volumes.acceptVolumeAsk(21001, 15);
    const declared = {
      askId: undefined,
      offerQuery: { gpuName: "H100 SXM" },
      onOutbid: "replace",
      volume: { volumeId: volume.volumeId, mountPath: "/data" },
    };
    const refreshed = { ...((await refresh(olds)).props as InstanceOutputs), ...declared };
    await emulator.clearRequests();
    const from = providers.progress.length;

    const diff = await instanceProvider.diff?.(
      providers.run,
      String(olds.instanceId),
      refreshed as InstanceOutputs,
      inputs(declared),
    );

    expect(diff).toMatchObject({ changes: false, replaces: [] });
    expect(providers.progress.slice(from).join("\n")).toMatch(
      new RegExp(
        String.raw`onOutbid replace cannot rent another: its local volume V\.${volume.volumeId} ` +
          String.raw`stays on machine \d+, which has no free offer matching offerQuery; copy the ` +
          String.raw`volume's data .*It stays paused, its data kept`,
      ),
    );
    expect(await emulator.writes()).toEqual([]);
  });

  it("stops an outbid instance declared stopped, without touching its bid", async () => {
    const olds = await rent();
    await outbid(emulator, olds.instanceId, 0.5);
    const refreshed = (await refresh(olds)).props as InstanceOutputs;
    await emulator.clearRequests();

    const updated = await instanceProvider.update?.(
      providers.run,
      String(olds.instanceId),
      refreshed,
      inputs({ state: "stopped" }),
    );

    expect(summary(await emulator.writes())).toEqual([
      `PUT /api/v0/instances/${olds.instanceId}/ 200`,
    ]);
    expect(updated?.outs).toMatchObject({ state: "stopped", actualStatus: "stopped" });
    expect(updated?.outs).not.toHaveProperty("outbidByDollarsPerHour");
  });
});
