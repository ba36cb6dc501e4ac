import { environmentOf, GpuCloudClient } from "../../provider/client";
import { stackTokenVariable } from "../../provider/renting/identity";
import {
  implementation as instanceProvider,
  type InstanceInputs,
} from "../../provider/resources/instance";
import {
  implementation as groupProvider,
  type NodeGroupInputs,
} from "../../provider/resources/node-group";
import { implementation as networkVolumeProvider } from "../../provider/resources/network-volume";
import { implementation as volumeProvider } from "../../provider/resources/volume";
import { Run } from "../../provider/run/run";
import type { TestEmulator } from "../support/emulator";
import { useEmulator } from "../support/use-emulator";

// The stack's cap at `up` (gpucloud:maxDollarsPerHour): the providers' methods, called directly
// as the provider process does, against the emulator, in runs configured with a cap.
describe("the stack's cap at up", () => {
  const stackToken = "budget-contract-stack-token-01";
  const otherStackToken = "budget-contract-other-stack-02";
  const inputs = (name: string, token = stackToken): InstanceInputs => ({
    askId: 31001,
    image: "img",
    diskGb: 10,
    runtype: "ssh",
    state: "running",
    createTimeoutSeconds: 60,
    maxAttempts: 2,
    pollIntervalSeconds: 0.05,
    owner: `proj/dev/${name}`,
    stackToken: token,
  });

  // The seeded asks alone, each rentable any number of times: every instance costs the same.
  const providers = useEmulator({ per: "test", bootPolls: 1, market: false });
  const { emulator } = providers;
  let client: GpuCloudClient;
  const runs: Run[] = [];
  beforeEach(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });
  afterEach(async () => {
    await Promise.all(runs.splice(0).map((run) => run.close()));
  });

  /** A run configured for the emulator with the stack's cap, as the engine configures one. */
  const runWithCap = (on: TestEmulator, maxDollarsPerHour: number): Run => {
    const values: Record<string, string> = {
      "gpucloud:apiKey": on.apiKey,
      "gpucloud:baseUrl": on.url,
      "gpucloud:maxDollarsPerHour": String(maxDollarsPerHour),
    };
    const run = new Run({ config: { get: (key) => values[key] }, progress: () => {} });
    runs.push(run);
    return run;
  };
  /** What the service quotes ask 31001 at for a 10 GB disk, $/hour. */
  const priceOf31001 = async () => {
    const [row] = await client.instances.searchOffers({
      id: { eq: 31001 },
      allocated_storage: 10,
    });
    if (row?.dph_total == null) throw new Error("ask 31001 is not offered");
    return row.dph_total;
  };
  const rentsSent = async () =>
    (await emulator.requests()).filter(
      (entry) => entry.method === "PUT" && entry.path.startsWith("/api/v0/asks/"),
    );

  it("ten creates at once under a cap that admits seven rent seven; three fail sending nothing", async () => {
    const price = await priceOf31001();
    // The stack already runs one instance, which counts; another stack's never does.
    const mine = await instanceProvider.create(providers.run, inputs("before"));
    const theirs = await instanceProvider.create(providers.run, inputs("theirs", otherStackToken));
    const run = runWithCap(emulator, price * 8.5);
    await emulator.clearRequests();

    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, index) =>
        instanceProvider.create(run, inputs(`web-${index}`)),
      ),
    );

    const created = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const refused = outcomes.flatMap((outcome) =>
      outcome.status === "rejected" ? [String(outcome.reason)] : [],
    );
    expect(created).toHaveLength(7);
    expect(refused).toHaveLength(3);
    for (const message of refused) {
      expect(message).toMatch(/over its cap gpucloud:maxDollarsPerHour/);
      expect(message).toMatch(/pulumi config set gpucloud:maxDollarsPerHour/);
      expect(message).not.toContain("\n");
    }
    // Exactly seven rents reached the service: the refused ones sent none.
    const rents = await rentsSent();
    expect(rents.map((entry) => entry.status)).toEqual(Array(7).fill(200));
    // The account holds the stack's eight and the other stack's one, nothing else.
    const ids = new Set((await client.instances.list()).map((instance) => instance.id));
    const expected = [
      Number(mine.id),
      Number(theirs.id),
      ...created.map((outcome) => Number(outcome.value.id)),
    ];
    expect(ids).toEqual(new Set(expected));
  });

  it("a destroy of the run lowers the stack's total; an ask not offered holds nothing", async () => {
    const price = await priceOf31001();
    const run = runWithCap(emulator, price * 1.5);
    const first = await instanceProvider.create(run, inputs("a"));
    await expect(instanceProvider.create(run, inputs("b"))).rejects.toThrow(/over its cap/);
    if (first.outs === undefined) throw new Error("the create recorded no outputs");
    await instanceProvider.delete(run, first.id, first.outs);
    // An ask the search does not offer is not rented (its price cannot be held), nor held.
    await expect(instanceProvider.create(run, { ...inputs("c"), askId: 39999 })).rejects.toThrow();
    const second = await instanceProvider.create(run, inputs("d"));
    expect(second.outs?.instanceId).toBeGreaterThan(0);
  });

  it("a create by query that the cap refuses does not move on to a pricier offer", async () => {
    const run = runWithCap(emulator, 0.05);
    await emulator.clearRequests();
    const byQuery = { ...inputs("cheap"), askId: undefined, offerQuery: { numGpus: 1 } };
    await expect(instanceProvider.create(run, byQuery)).rejects.toThrow(
      /^cheap: renting ask \d+ at \$[\d.]+\/h would take the stack to .* over its cap gpucloud:maxDollarsPerHour \$0\.05\/h/,
    );
    const requests = await emulator.requests();
    expect(requests.filter((entry) => entry.method === "PUT")).toEqual([]);
    // One search to choose, one to price the offer for the disk: no second offer is tried.
    expect(requests.filter((entry) => entry.path === "/api/v0/bundles/")).toHaveLength(2);
  });

  it("outputs dollarsPerHour as the service reports it, after create and after read", async () => {
    const price = await priceOf31001();
    const created = await instanceProvider.create(providers.run, inputs("web"));
    expect(created.outs?.dollarsPerHour).toBeCloseTo(price, 6);
    const shown = await client.instances.show(Number(created.id));
    // As the service reports it, at its precision (six decimals: never a float's noise).
    expect(created.outs?.dollarsPerHour).toBe(Math.round((shown?.dph_total ?? NaN) * 1e6) / 1e6);

    // The service's price changes (the ask repriced): refresh follows it.
    await emulator.control("PATCH", "/_emulator/asks/instance/31001", { dollarsPerHour: 0.5 });
    const read = await instanceProvider.read(providers.run, created.id, created.outs);
    const after = await client.instances.show(Number(created.id));
    expect(read.props?.dollarsPerHour).toBe(Math.round((after?.dph_total ?? NaN) * 1e6) / 1e6);
  });

  it("Volume and NetworkVolume output dollarsPerHour as the service reports it", async () => {
    const volume = await volumeProvider.create(providers.run, { askId: 21001, sizeGb: 50 });
    const network = await networkVolumeProvider.create(providers.run, {
      askId: 25001,
      sizeGb: 100,
    });
    const listed = await client.volumes.list();
    const reported = (id: number | undefined) =>
      listed.find((row) => row.id === id)?.storage_total_cost;
    expect(volume.outs?.dollarsPerHour).toBeGreaterThan(0);
    expect(volume.outs?.dollarsPerHour).toBe(reported(volume.outs?.volumeId));
    expect(network.outs?.dollarsPerHour).toBeGreaterThan(0);
    expect(network.outs?.dollarsPerHour).toBe(reported(network.outs?.volumeId));
    const readVolume = await volumeProvider.read(providers.run, volume.id, volume.outs);
    expect(readVolume.props?.dollarsPerHour).toBe(reported(volume.outs?.volumeId));
    const readNetwork = await networkVolumeProvider.read(providers.run, network.id, network.outs);
    expect(readNetwork.props?.dollarsPerHour).toBe(reported(network.outs?.volumeId));
  });

  describe("a NodeGroup", () => {
    const groupToken = "budget-contract-group-token-3";
    const group = {
      nodeCount: 4,
      offerQuery: { gpuName: "H100 SXM" },
      image: "pytorch/pytorch",
      diskGb: 40,
      createTimeoutSeconds: 120,
      pollIntervalSeconds: 0.05,
      owner: "proj/dev/trainers",
      stackToken: groupToken,
    } satisfies NodeGroupInputs;
    // The generated market, whose clusters hold groups.
    const market = useEmulator({ per: "test", bootPolls: 1, market: { seed: 1 } });

    it("whose nodes would break the cap sends no rent and makes nothing", async () => {
      const marketClient = market.client;
      const offers = await marketClient.searchOffers({ gpuName: "H100 SXM" });
      const cheapest = Math.min(...offers.map((offer) => offer.dollarsPerHour));
      // Room for about two nodes, not four.
      const run = runWithCap(market.emulator, cheapest * 2.5);
      await market.emulator.clearRequests();

      await expect(groupProvider.create(run, group)).rejects.toThrow(
        /renting 4 nodes at .* over its cap gpucloud:maxDollarsPerHour/,
      );
      const writes = (await market.emulator.requests()).filter((entry) => entry.method !== "GET");
      expect(writes.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
        "POST /api/v0/bundles/",
      ]);
    });

    it("growing past the cap sends no rent and leaves the group as it was", async () => {
      const created = await groupProvider.create(market.run, { ...group, nodeCount: 2 });
      if (created.outs === undefined) throw new Error("the create recorded no outputs");
      // Room for what runs and one more node at most, not two.
      const total = created.outs.dollarsPerHour ?? 0;
      const cheapest = Math.min(
        ...(await market.client.searchOffers({ gpuName: "H100 SXM" })).map((o) => o.dollarsPerHour),
      );
      const run = runWithCap(market.emulator, total + cheapest * 1.5);
      await market.emulator.clearRequests();

      await expect(
        groupProvider.update?.(run, created.id, created.outs, { ...group, nodeCount: 4 }),
      ).rejects.toThrow(/renting 2 nodes at .* over its cap gpucloud:maxDollarsPerHour/);
      const rents = (await market.emulator.requests()).filter(
        (entry) => entry.method === "PUT" && entry.path.startsWith("/api/v0/asks/"),
      );
      expect(rents).toEqual([]);
      const ids = (await market.client.instances.list()).map((instance) => instance.id);
      expect(new Set(ids)).toEqual(new Set(created.outs.nodes.map((node) => node.instanceId)));
    });

    it("outputs each node's price and GPU, and the group's total, after create and read", async () => {
      const created = await groupProvider.create(market.run, group);
      const nodes = created.outs?.nodes ?? [];
      expect(nodes).toHaveLength(4);
      let total = 0;
      for (const node of nodes) {
        const shown = await market.client.instances.show(node.instanceId);
        expect(node.dollarsPerHour).toBe(Math.round((shown?.dph_total ?? NaN) * 1e6) / 1e6);
        expect(node.gpuName).toBe("H100 SXM");
        total += shown?.dph_total ?? 0;
      }
      expect(created.outs?.dollarsPerHour).toBeCloseTo(total, 6);
      const read = await groupProvider.read(market.run, created.id, created.outs);
      expect(read.props?.dollarsPerHour).toBeCloseTo(total, 6);
      expect(read.props?.nodes.map((node) => node.dollarsPerHour)).toEqual(
        nodes.map((node) => node.dollarsPerHour),
      );
      if (created.outs !== undefined) {
        await groupProvider.delete(market.run, created.id, created.outs);
      }
    });
  });

  it("never counts instances without the stack's token", async () => {
    const price = await priceOf31001();
    await instanceProvider.create(providers.run, inputs("other", otherStackToken));
    const run = runWithCap(emulator, price * 1.5);
    const created = await instanceProvider.create(run, inputs("mine"));
    const mine = (await client.instances.list()).filter(
      (instance) => environmentOf(instance)[stackTokenVariable] === stackToken,
    );
    expect(mine.map((instance) => instance.id)).toEqual([Number(created.id)]);
  });
});
