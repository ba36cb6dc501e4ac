import { GpuCloudClient } from "../../provider/client";
import {
  implementation as instanceProvider,
  type InstanceInputs,
} from "../../provider/resources/instance";
import { useEmulator } from "../support/use-emulator";

// Instances declared with one query are created at the same moment by the engine. The
// providers' methods are called directly, as the dynamic-provider process does.
describe("instances of one run renting by the same query", () => {
  let client: GpuCloudClient;
  const query = { numGpus: 1, gpuRamGb: { gte: 16 } };
  const inputs = (name: string): InstanceInputs => ({
    offerQuery: query,
    image: "img",
    diskGb: 10,
    runtype: "ssh",
    state: "running",
    createTimeoutSeconds: 60,
    maxAttempts: 3,
    pollIntervalSeconds: 0.05,
    owner: `proj/dev/${name}`,
  });

  // A generated market: an ask is rented once, as on the service.
  const providers = useEmulator({ per: "file", bootPolls: 0, market: { seed: 3 } });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  it("rent distinct offers, the best ones, without a refused create", async () => {
    const best = (await client.searchOffers(query)).slice(0, 6).map((offer) => offer.askId);
    expect(best).toHaveLength(6);
    await emulator.clearRequests();

    const created = await Promise.all(
      ["a", "b", "c", "d", "e", "f"].map((name) =>
        instanceProvider.create(providers.run, inputs(name)),
      ),
    );

    const rented = created.map((instance) => instance.outs?.offer?.["askId"]);
    expect(new Set(rented)).toEqual(new Set(best));
    const creates = (await emulator.requests()).filter(
      (entry) => entry.method === "PUT" && entry.path.startsWith("/api/v0/asks/"),
    );
    expect(creates.map((entry) => entry.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const instance of created) expect(instance.outs?.attempts).toHaveLength(1);
  });

  it("with a query limit below the number of instances, each waits for the others' rents and searches again", async () => {
    const limited = { ...query, limit: 2 };
    await emulator.clearRequests();

    const created = await Promise.all(
      ["p", "q", "r", "s", "t"].map((name) =>
        instanceProvider.create(providers.run, { ...inputs(name), offerQuery: limited }),
      ),
    );

    const rented = created.map((instance) => instance.outs?.offer?.["askId"]);
    expect(new Set(rented).size).toBe(5);
    const creates = (await emulator.requests()).filter(
      (entry) => entry.method === "PUT" && entry.path.startsWith("/api/v0/asks/"),
    );
    expect(creates.map((entry) => entry.status)).toEqual([200, 200, 200, 200, 200]);
    for (const instance of created) expect(instance.outs?.attempts).toHaveLength(1);
  });

  it("an offer is free again once the create that claimed it ends", async () => {
    const [best] = (await client.searchOffers(query)).map((offer) => offer.askId);
    // The create that claims the best offer ends at a dead end: its one attempt's instance is
    // destroyed, and the ask is offered again.
    await emulator.queueBoots([{ status: "exited", afterPolls: 0 }]);
    await expect(
      instanceProvider.create(providers.run, { ...inputs("g"), maxAttempts: 1 }),
    ).rejects.toThrow(/no running instance/);
    expect((await client.searchOffers(query))[0]?.askId).toBe(best);

    const created = await instanceProvider.create(providers.run, inputs("h"));

    expect(created.outs?.offer?.["askId"]).toBe(best);
  });
});
