import { generateMarket } from "../../emulator/market/market-gen";
import { OfferQueryError } from "../../provider/client";
import { useEmulator } from "../support/use-emulator";
import { failureOf } from "./harness";

const basic = { image: "pytorch/pytorch:latest", disk: 10 };

describe("the marketplace", () => {
  const h = useEmulator({ per: "test", market: { seed: 7 } });

  it("a seeded market: hundreds of offers over GPUs, countries and machines, the same for a seed", async () => {
    const all = await h.client.searchOffers({
      verified: { in: [true, false] },
      external: { in: [true, false] },
    });
    expect(all.length).toBe(304);
    expect(new Set(all.map((o) => o.gpuName)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(all.map((o) => o.geolocation)).size).toBeGreaterThanOrEqual(10);
    expect(new Set(all.map((o) => o.machineId)).size).toBeGreaterThan(100);
    // The hand-written asks are still there, with their values.
    expect(all.find((o) => o.askId === 31001)).toMatchObject({
      gpuName: "RTX 4090",
      dollarsPerHour: 0.35,
      machineId: 41207,
    });
    expect(generateMarket({ seed: 7, instanceOffers: 300, volumeOffers: 36 })).toEqual(
      generateMarket({ seed: 7, instanceOffers: 300, volumeOffers: 36 }),
    );
    const volumes = await h.client.searchVolumeOffers({ limit: 100 });
    expect(volumes.length).toBe(39);
    // Every machine with a volume offer has instance offers.
    const machines = new Set(all.map((o) => o.machineId));
    expect(volumes.every((v) => machines.has(v.machineId))).toBe(true);
  });

  it("answers a typed query with matching offers only, cheapest first", async () => {
    const offers = await h.client.searchOffers({
      gpuName: { in: ["RTX 4090", "RTX 3090"] },
      numGpus: 1,
      gpuRamGb: { gte: 24 },
      reliability: { gte: 0.98 },
      geolocation: { notin: ["CN"] },
    });
    expect(offers.length).toBeGreaterThan(3);
    for (const offer of offers) {
      expect(["RTX 4090", "RTX 3090"]).toContain(offer.gpuName);
      expect(offer).toMatchObject({ numGpus: 1, verified: true, rented: false });
      expect(offer.gpuRamMb).toBeGreaterThanOrEqual(24000);
      expect(offer.reliability).toBeGreaterThanOrEqual(0.98);
      expect(offer.geolocation).not.toBe("CN");
    }
    const prices = offers.map((o) => o.dollarsPerHour);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    const fromString = await h.client.searchOffers(
      "gpu_name in [RTX_4090,RTX_3090] num_gpus=1 gpu_ram>=24 reliability>=0.98 geolocation notin [CN]",
    );
    expect(fromString).toEqual(offers);
  });

  it("a malformed query fails naming the field and sends nothing", async () => {
    await h.emulator.clearRequests();
    await expect(h.client.searchOffers({ gpuNmae: "x" } as never)).rejects.toThrow(OfferQueryError);
    await expect(h.client.searchOffers("num_gpus>>2")).rejects.toThrow('"num_gpus>>2"');
    expect(await h.emulator.requests()).toEqual([]);
  });

  it("a rented on-demand offer leaves the market and comes back when its instance goes", async () => {
    const [cheapest] = await h.client.searchOffers({ gpuName: "RTX 4090" });
    if (!cheapest) throw new Error("no RTX 4090 offer");
    const id = await h.client.instances.create(cheapest.askId, basic);
    const after = await h.client.searchOffers({ gpuName: "RTX 4090" });
    expect(after.map((o) => o.askId)).not.toContain(cheapest.askId);
    const again = await failureOf(h.client.instances.create(cheapest.askId, basic));
    expect(again).toMatchObject({ status: 404, code: "no_such_ask" });
    await h.client.instances.destroy(id);
    const back = await h.client.searchOffers({ gpuName: "RTX 4090" });
    expect(back[0]?.askId).toBe(cheapest.askId);
  });

  it("test controls remove an offer and change a price", async () => {
    const [first, second] = await h.client.searchOffers({ gpuName: "RTX 3090" });
    if (!first || !second) throw new Error("too few RTX 3090 offers");
    await h.emulator.removeAsk("instance", first.askId);
    expect((await h.client.searchOffers({ gpuName: "RTX 3090" }))[0]?.askId).toBe(second.askId);
    await h.emulator.changeAsk("instance", second.askId, { dollarsPerHour: 99 });
    const moved = await h.client.searchOffers({ gpuName: "RTX 3090" });
    expect(moved.at(-1)).toMatchObject({ askId: second.askId, dollarsPerHour: 99 });
  });

  it("when the search ignores a filter, the client leaves out what does not match", async () => {
    await h.emulator.setFaults({ searchIgnoresFilter: { field: "reliability" } });
    const search = await h.client.offers.searchInstances({ reliability: { gte: 0.99 } });
    expect(search.rejected.length).toBeGreaterThan(0);
    expect(search.rejected[0]?.reason).toMatch(/^reliability .* is not gte 0.99$/);
    expect(search.offers.every((o) => (o.reliability ?? 0) >= 0.99)).toBe(true);
  });

  it("an instance links a volume on its machine; another machine's ask is refused", async () => {
    const [volumeOffer] = await h.client.searchVolumeOffers({ diskSpaceGb: { gte: 100 } });
    if (!volumeOffer?.machineId) throw new Error("no volume offer");
    const { volumeId } = await h.client.volumes.acceptVolumeAsk(volumeOffer.askId, 20);
    const [here] = await h.client.searchOffers({ machineId: volumeOffer.machineId });
    const [elsewhere] = await h.client.searchOffers({ machineId: { neq: volumeOffer.machineId } });
    if (!here || !elsewhere) throw new Error("no instance offers");
    const volumeInfo = { create_new: false, volume_id: volumeId, mount_path: "/data" } as const;
    const refused = await failureOf(
      h.client.instances.create(elsewhere.askId, { ...basic, volume_info: volumeInfo }),
    );
    expect(refused.message).toContain(`is on machine ${volumeOffer.machineId}`);
    const id = await h.client.instances.create(here.askId, { ...basic, volume_info: volumeInfo });
    expect((await h.client.volumes.list())[0]?.instances).toEqual([id]);
    const shown = await h.client.instances.show(id);
    expect(shown?.volume_info).toEqual([
      { volume_id: volumeId, name: `V.${volumeId}`, mount_path: "/data" },
    ]);
  });
});
