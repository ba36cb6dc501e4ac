import { z } from "zod";
import { generateMarket } from "../../emulator/market/market-gen";
import { type TestEmulator, startTestEmulator } from "../support/emulator";

const OffersSchema = z.object({
  offers: z.array(
    z.looseObject({
      id: z.int(),
      cluster_id: z.int().nullable(),
      machine_id: z.int(),
      host_id: z.int(),
      gpu_name: z.string(),
      geolocation: z.string(),
      hosting_type: z.int(),
    }),
  ),
});

/** Every generated offer, whatever the description's default filters would hide. */
const EVERYTHING = {
  verified: {},
  rentable: {},
  rented: {},
  limit: 10_000,
};

describe("physical clusters in the market", () => {
  let emulator: TestEmulator;
  afterEach(async () => {
    await emulator.close();
  });

  const offerIds = async (query: object) => {
    const reply = await emulator.call("POST", "/api/v0/bundles/", query);
    expect(reply.status).toBe(200);
    return OffersSchema.parse(reply.body)
      .offers.map((o) => o.id)
      .sort();
  };

  describe("the small market", () => {
    beforeEach(async () => {
      emulator = await startTestEmulator();
    });

    it("puts the Hesse A100 machine alone in cluster 7 and shows cluster_id on every offer", async () => {
      const { offers } = OffersSchema.parse(
        (await emulator.call("POST", "/api/v0/bundles/", {})).body,
      );
      expect(offers.map((o) => [o.id, o.cluster_id])).toEqual([
        [31001, null],
        [31002, null],
        [31003, 7],
        [31004, null],
      ]);
    });

    it.each([
      ["eq a number", { eq: 7 }, [31003]],
      ["eq the client's text", { eq: "7" }, [31003]],
      ["neq null (cluster_id!=None)", { neq: null }, [31003]],
      ["eq null (cluster_id=None)", { eq: null }, [31001, 31002, 31004]],
      ["in", { in: ["7", 8] }, [31003]],
      ["in with the client's None", { in: ["None", "7"] }, [31001, 31002, 31003, 31004]],
      ["notin with the client's None", { notin: ["None"] }, [31003]],
      ["notin a cluster", { notin: [7] }, [31001, 31002, 31004]],
      ["gte, which never holds for null", { gte: 1 }, [31003]],
    ])("filters cluster_id %s", async (_name, condition, expected) => {
      expect(await offerIds({ cluster_id: condition })).toEqual(expected);
    });

    it("serves the GPU names the official client fetches without a key", async () => {
      const reply = await emulator.call("GET", "/api/v0/gpu_names/unique/", undefined, null);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ gpu_names: ["A100 SXM4", "H100 SXM", "RTX 3090", "RTX 4090"] });
    });
  });

  describe("the generated market", () => {
    beforeEach(async () => {
      emulator = await startTestEmulator({ market: { seed: 1 } });
    });

    it("forms several clusters of 4 to 16 datacenter machines of one GPU, host and place", async () => {
      const { offers } = OffersSchema.parse(
        (await emulator.call("POST", "/api/v0/bundles/", EVERYTHING)).body,
      );
      // The market keeps its size: clusters are made of machines it already had.
      expect(offers).toHaveLength(304);
      const generated = offers.filter((o) => o.id >= 40001);
      const machines = new Map(generated.map((o) => [o.machine_id, o]));
      const byCluster = new Map<number, (typeof generated)[number][]>();
      for (const machine of machines.values()) {
        if (machine.cluster_id === null) continue;
        byCluster.set(machine.cluster_id, [...(byCluster.get(machine.cluster_id) ?? []), machine]);
      }
      expect(byCluster.size).toBeGreaterThanOrEqual(2);
      for (const members of byCluster.values()) {
        expect(members.length).toBeGreaterThanOrEqual(4);
        expect(members.length).toBeLessThanOrEqual(16);
        expect(new Set(members.map((m) => m.gpu_name)).size).toBe(1);
        expect(new Set(members.map((m) => m.host_id)).size).toBe(1);
        expect(new Set(members.map((m) => m.geolocation)).size).toBe(1);
        expect(members.every((m) => m.hosting_type === 1)).toBe(true);
        expect(["RTX A6000", "L40S", "A100 PCIE", "A100 SXM4", "H100 SXM"]).toContain(
          members[0]?.gpu_name,
        );
      }
      const clustered = [...byCluster.values()].flat().length;
      expect(clustered).toBeLessThan(machines.size / 2);

      // One cluster's offers, as `search offers cluster_id=N` asks for them.
      const [someCluster, members] = [...byCluster.entries()][0] ?? [0, []];
      const inIt = await offerIds({ ...EVERYTHING, cluster_id: { eq: String(someCluster) } });
      expect(inIt).toEqual(
        generated
          .filter((o) => members.some((m) => m.machine_id === o.machine_id))
          .map((o) => o.id)
          .sort(),
      );
    });

    it("is the same for a seed, and another seed makes other clusters", () => {
      const market = (seed: number) =>
        generateMarket({ seed, instanceOffers: 300, volumeOffers: 36 });
      const first = market(1);
      expect(market(1)).toEqual(first);
      expect(first.networkVolumeAsks.length).toBeGreaterThanOrEqual(2);
      const clusters = new Set(
        first.instanceAsks.map((a) => a.clusterId).filter((c) => c !== null),
      );
      expect(new Set(first.networkVolumeAsks.map((a) => a.clusterId))).toEqual(clusters);
      // A volume ask on a clustered machine says so too.
      for (const ask of first.volumeAsks) {
        const machine = first.instanceAsks.find((i) => i.machineId === ask.machineId);
        expect(ask.clusterId).toBe(machine?.clusterId);
      }
      expect(market(2).instanceAsks.map((a) => a.clusterId)).not.toEqual(
        first.instanceAsks.map((a) => a.clusterId),
      );
    });
  });
});
