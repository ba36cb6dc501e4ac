import { z } from "zod";
import type { EmulatorOptions } from "../../emulator";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { errorOf } from "./helpers";

/** Every field the description's example offer shows. */
const DOCUMENTED_OFFER_FIELDS = [
  "id", "ask_contract_id", "bundle_id", "bundled_results", "bw_nvlink", "compute_cap", "cpu_arch",
  "cpu_cores", "cpu_cores_effective", "cpu_ghz", "cpu_name", "cpu_ram", "credit_discount_max",
  "cuda_max_good", "direct_port_count", "disk_bw", "disk_name", "disk_space", "dlperf",
  "dlperf_per_dphtotal", "dph_base", "dph_total", "driver_version", "driver_vers", "duration",
  "end_date", "external", "flops_per_dphtotal", "geolocation", "geolocode", "gpu_arch",
  "gpu_display_active", "gpu_frac", "gpu_ids", "gpu_lanes", "gpu_mem_bw", "gpu_name", "gpu_ram",
  "gpu_total_ram", "gpu_max_power", "gpu_max_temp", "has_avx", "host_id", "hosting_type",
  "hostname", "inet_down", "inet_down_cost", "inet_up", "inet_up_cost", "is_bid", "logo",
  "machine_id", "min_bid", "mobo_name", "num_gpus", "os_version", "pci_gen", "pcie_bw",
  "public_ipaddr", "reliability", "reliability_mult", "rentable", "rented", "score", "start_date",
  "static_ip", "storage_cost", "storage_total_cost", "total_flops", "verification", "vericode",
  "vram_costperhour", "webpage", "vms_enabled", "expected_reliability", "is_vm_deverified",
  "resource_type", "cluster_id", "avail_vol_ask_id", "avail_vol_dph", "avail_vol_size",
  "nw_disk_min_bw", "nw_disk_max_bw", "nw_disk_avg_bw", "rn", "dph_total_adj", "reliability2",
  "discount_rate", "discounted_hourly", "discounted_dph_total", "search", "instance",
  "time_remaining", "time_remaining_isbid", "internet_up_cost_per_tb", "internet_down_cost_per_tb",
]; // prettier-ignore

const OfferSchema = z.looseObject({
  id: z.int(),
  gpu_name: z.string(),
  num_gpus: z.int(),
  gpu_ram: z.number(),
  dph_total: z.number(),
  disk_space: z.number(),
  geolocation: z.string(),
  reliability: z.number(),
  is_bid: z.boolean(),
});
const OffersSchema = z.object({ offers: z.array(OfferSchema) });

/** A market beside the seeded one: each ask differs from the others in what a test filters on. */
const ask = (id: number, fields: Record<string, unknown>) => ({
  id,
  gpuName: "RTX 4090",
  numGpus: 1,
  gpuRamMb: 24564,
  dollarsPerHour: 0.4,
  diskGb: 100,
  geolocation: "Oregon, US",
  ...fields,
});
const MARKET: EmulatorOptions["instanceAsks"] = [
  ask(1, { dollarsPerHour: 0.3, reliability: 0.95 }),
  ask(2, { numGpus: 4, dollarsPerHour: 1.6, geolocation: "Quebec, CA", reliability: 0.999 }),
  ask(3, { gpuName: "A100 SXM4", dollarsPerHour: 1.2, geolocation: "Hesse, DE" }),
  ask(4, { verification: "unverified", dollarsPerHour: 0.2 }),
  ask(5, { rented: true }),
  ask(6, { rentable: false }),
  ask(7, { external: true, dollarsPerHour: 0.3, reliability: 0.97 }),
];

describe("instance offers (POST /api/v0/bundles/)", () => {
  let emulator: TestEmulator;
  afterEach(async () => {
    await emulator.close();
  });

  describe("the seeded market", () => {
    beforeEach(async () => {
      emulator = await startTestEmulator();
    });

    it("answers every documented field, keeping the seeded asks' GPUs, prices and disks", async () => {
      const reply = await emulator.call("POST", "/api/v0/bundles/", {});
      expect(reply.status).toBe(200);
      expect(reply.headers["content-type"]).toMatch(/^application\/json/);
      const { offers } = OffersSchema.parse(reply.body);
      expect(offers.map((o) => [o.id, o.gpu_name, o.num_gpus, o.gpu_ram, o.dph_total])).toEqual([
        [31001, "RTX 4090", 1, 24564, 0.35],
        [31002, "RTX 3090", 2, 24576, 0.42],
        [31003, "A100 SXM4", 1, 81920, 1.1],
        [31004, "H100 SXM", 8, 81559, 19.5],
      ]);
      expect(offers.map((o) => o.disk_space)).toEqual([200, 500, 1000, 2000]);
      for (const offer of offers) {
        expect(Object.keys(offer).sort()).toEqual([...DOCUMENTED_OFFER_FIELDS].sort());
      }
      expect(offers[3]).toMatchObject({
        machine_id: expect.any(Number) as unknown,
        reliability: expect.any(Number) as unknown,
        verification: "verified",
        rentable: true,
        rented: false,
        external: false,
        hosting_type: 1,
        gpu_total_ram: 8 * 81559,
        gpu_ids: expect.arrayContaining([expect.any(Number)]) as unknown,
        geolocation: "Uusimaa, FI",
        is_bid: false,
        rn: 4,
      });
      expect(offers[3]?.gpu_ids).toHaveLength(8);
    });

    it("offers a seeded volume ask on the same machine as an instance ask", async () => {
      const { offers } = OffersSchema.parse(
        (await emulator.call("POST", "/api/v0/bundles/", { id: { eq: 31001 } })).body,
      );
      const volumes = z
        .object({ offers: z.array(z.looseObject({ id: z.int(), machine_id: z.int() })) })
        .parse((await emulator.call("POST", "/api/v0/volumes/search/", {})).body);
      expect(offers[0]).toMatchObject({ avail_vol_ask_id: 21001, avail_vol_size: 100 });
      expect(volumes.offers.find((v) => v.id === 21001)?.machine_id).toBe(offers[0]?.machine_id);
    });

    it("accepts the official client's default query as it sends it", async () => {
      const reply = await emulator.call("POST", "/api/v0/bundles/", {
        verified: { eq: true },
        external: { eq: false },
        rentable: { eq: true },
        rented: { eq: false },
        order: [["score", "desc"]],
        type: "on-demand",
        allocated_storage: 5.0,
        gpu_name: { eq: "RTX 4090" },
        num_gpus: { gte: "1" },
      });
      expect(reply.status).toBe(200);
      expect(OffersSchema.parse(reply.body).offers.map((o) => o.id)).toEqual([31001]);
    });
  });

  describe("a market to filter", () => {
    beforeEach(async () => {
      emulator = await startTestEmulator({ instanceAsks: MARKET });
    });

    const ids = async (query: object) => {
      const reply = await emulator.call("POST", "/api/v0/bundles/", query);
      expect(reply.status).toBe(200);
      return OffersSchema.parse(reply.body).offers.map((offer) => offer.id);
    };

    it("hides unverified, rented and unrentable offers unless the query names those fields", async () => {
      expect(await ids({})).toEqual([1, 2, 3, 7]);
      expect(await ids({ verified: { eq: false } })).toEqual([4]);
      expect(await ids({ verified: {} })).toEqual([1, 2, 3, 4, 7]);
      expect(await ids({ rented: { eq: true } })).toEqual([5]);
      expect(await ids({ rentable: { in: [true, false] } })).toEqual([1, 2, 3, 6, 7]);
      expect(await ids({ external: { eq: false } })).toEqual([1, 2, 3]);
    });

    it.each([
      ["eq", { num_gpus: { eq: 4 } }, [2]],
      ["neq", { gpu_name: { neq: "RTX 4090" } }, [3]],
      ["gt", { dph_total: { gt: 1.2 } }, [2]],
      ["gte", { dph_total: { gte: 1.2 } }, [2, 3]],
      ["lt", { reliability: { lt: 0.97 } }, [1]],
      ["lte", { reliability: { lte: 0.97 } }, [1, 7]],
      ["in", { id: { in: [1, 3, 4] } }, [1, 3]],
      ["notin", { geolocation: { notin: ["US"] } }, [2, 3]],
      ["several operators on one field", { dph_total: { gt: 0.3, lt: 1.6 } }, [3]],
      ["several fields", { gpu_name: { eq: "RTX 4090" }, dph_total: { lte: 0.3 } }, [1, 7]],
    ])("filters with %s", async (_case, query, expected) => {
      expect(await ids(query)).toEqual(expected);
    });

    it("reads values as the official client writes them", async () => {
      expect(await ids({ gpu_name: { eq: "A100_SXM4" } })).toEqual([3]);
      expect(await ids({ num_gpus: { gte: "4" } })).toEqual([2]);
      expect(await ids({ geolocation: { in: ["CA", "DE"] } })).toEqual([2, 3]);
    });

    it("orders by one or more fields, each ascending or descending, and limits", async () => {
      expect(await ids({ order: [["dph_total", "asc"]] })).toEqual([1, 7, 3, 2]);
      expect(await ids({ order: [["dph_total", "desc"]] })).toEqual([2, 3, 1, 7]);
      expect(
        await ids({
          order: [
            ["dph_total", "asc"],
            ["reliability", "desc"],
          ],
        }),
      ).toEqual([7, 1, 3, 2]);
      expect(await ids({ order: [["dph_total", "asc"]], limit: 2 })).toEqual([1, 7]);
      expect(await ids({ limit: 1 })).toEqual([1]);
    });

    it("prices by type: on-demand as listed, bid at the minimum bid, reserved with the discount", async () => {
      const offerOf = async (query: object) => {
        const reply = await emulator.call("POST", "/api/v0/bundles/", { id: { eq: 1 }, ...query });
        expect(reply.status).toBe(200);
        const [offer] = OffersSchema.parse(reply.body).offers;
        return z
          .looseObject({
            dph_total: z.number(),
            min_bid: z.number(),
            is_bid: z.boolean(),
            discount_rate: z.number(),
            credit_discount_max: z.number(),
          })
          .parse(offer);
      };
      const onDemand = await offerOf({});
      expect(onDemand).toMatchObject({ dph_total: 0.3, is_bid: false, discount_rate: 0 });
      expect(await offerOf({ type: "ondemand" })).toMatchObject({ dph_total: 0.3 });

      const bid = await offerOf({ type: "bid" });
      expect(bid.is_bid).toBe(true);
      expect(bid.dph_total).toBe(bid.min_bid);
      expect(bid.dph_total).toBeLessThan(onDemand.dph_total);

      const reserved = await offerOf({ type: "reserved" });
      expect(reserved.discount_rate).toBe(reserved.credit_discount_max);
      expect(reserved.dph_total).toBeCloseTo(0.3 * (1 - reserved.credit_discount_max), 6);

      // Storage beyond the 8 GB the listed price includes costs storage_cost per GB-month.
      const roomy = z
        .looseObject({ dph_total: z.number(), storage_cost: z.number() })
        .parse(await offerOf({ allocated_storage: 80 }));
      expect(roomy.dph_total).toBeCloseTo(0.3 + (72 * roomy.storage_cost) / 720, 6);

      // Filters see the price of the asked type.
      expect(await ids({ type: "bid", dph_total: { lte: 0.2 } })).toEqual([1, 7]);
    });

    it.each([
      ["an unknown field", { gpu_colour: { eq: "red" } }, "gpu_colour"],
      ["an unknown operator", { num_gpus: { like: 4 } }, "num_gpus"],
      ["a condition that is not an object", { num_gpus: 4 }, "num_gpus"],
      ["in without a list", { num_gpus: { in: 4 } }, "num_gpus"],
      ["gt with a list", { num_gpus: { gt: [4] } }, "num_gpus"],
      ["an order on an unknown field", { order: [["colour", "asc"]] }, "colour"],
      ["an order without a direction", { order: [["dph_total"]] }, "order"],
      ["an order in the wrong direction", { order: [["dph_total", "up"]] }, "order"],
      ["a limit of zero", { limit: 0 }, "limit"],
      ["an unknown type", { type: "spot" }, "type"],
      ["a query that is a list", [], "query"],
    ])("rejects %s with 400 invalid_args naming it", async (_case, query, named) => {
      const reply = await emulator.call("POST", "/api/v0/bundles/", query);
      expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
      expect(reply.body).toMatchObject({ msg: expect.stringContaining(named) as unknown });
    });
  });
});
