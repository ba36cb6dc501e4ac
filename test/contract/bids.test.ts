import { request } from "undici";
import { GpuCloudClient, GpuCloudError } from "../../provider/client";
import {
  diffInstance,
  implementation as instanceProvider,
  instanceInputsSchema,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import type { TestEmulator } from "../support/emulator";
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

  async function rent(): Promise<InstanceOutputs> {
    const created = await instanceProvider.create(providers.run, inputs());
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
    // Drift: the engine records the new outputs, and the next up acts on them in place.
    expect(read.inputs).toBeDefined();
    expect(diffInstance(read.props as InstanceOutputs, inputs())).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
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
    "refuses an outbid instance with %s in one line naming the fix, and destroys nothing",
    async (_case, price) => {
      const olds = await rent();
      await outbid(emulator, olds.instanceId, 0.5);
      const refreshed = (await refresh(olds)).props as InstanceOutputs;
      await emulator.clearRequests();

      const failure = instanceProvider.update?.(
        providers.run,
        String(olds.instanceId),
        refreshed,
        inputs({ price, label: "renamed" }),
      );

      await expect(failure).rejects.toThrow(
        new Error(
          `gpu: instance ${olds.instanceId} was outbid: its bid is $${price}/h and a bid of ` +
            `$0.5/h holds its machine; raise price above 0.5 to run it again (nothing was ` +
            `changed; the instance is kept, stopped)`,
        ),
      );
      // No write at all: not the bid, not the label, and never a destroy.
      expect(await emulator.writes()).toEqual([]);
      expect((await emulator.state()).instances.map((instance) => instance.id)).toEqual([
        olds.instanceId,
      ]);
      expect(await bidOf(emulator, olds.instanceId)).toBe(0.2);
    },
  );

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
