import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";

/**
 * An instance's row and a volume's row price what the offer they were rented from asks for the
 * same disk, by the service's formulas (emulator/README.md, "Prices"): storage_total_cost =
 * storage_cost × GB / 720, dph_total = dph_base + storage_total_cost.
 */

const ASK_ID = 41001;
const DISK_GB = 40;
/** Every price of the ask distinct, so that no field can pass for another. */
const ASK = {
  id: ASK_ID,
  gpuName: "RTX 4090",
  numGpus: 2,
  gpuRamMb: 24564,
  dollarsPerHour: 0.9,
  minBidDollarsPerHour: 0.41,
  storageCostPerGbMonth: 0.27,
  inetUpCostPerGb: 0.011,
  inetDownCostPerGb: 0.007,
  creditDiscountMax: 0.25,
  diskGb: 500,
  geolocation: "Oregon, US",
};

const Breakdown = z.object({
  gpuCostPerHour: z.number(),
  diskHour: z.number(),
  totalHour: z.number(),
});
const Priced = z.looseObject({
  dph_base: z.number(),
  dph_total: z.number(),
  storage_cost: z.number(),
  storage_total_cost: z.number(),
  inet_up_cost: z.number(),
  inet_down_cost: z.number(),
  min_bid: z.number(),
  credit_discount_max: z.number(),
  search: Breakdown,
});
const Row = Priced.extend({ instance: Breakdown, actual_status: z.string().nullable() });

/** Equal to 6 decimals: offers round to the micro-dollar, rows do not. */
const near = (value: number) => expect.closeTo(value, 6) as unknown;

const PRICE_FIELDS = [
  "dph_base",
  "dph_total",
  "storage_cost",
  "storage_total_cost",
  "inet_up_cost",
  "inet_down_cost",
  "min_bid",
  "credit_discount_max",
] as const;

describe("prices: offers, instances and volumes agree", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator({ instanceAsks: [ASK] });
  });
  afterEach(async () => {
    await emulator.close();
  });

  const offer = async (query: object) => {
    const reply = await emulator.call("POST", "/api/v0/bundles/", {
      id: { eq: ASK_ID },
      allocated_storage: DISK_GB,
      ...query,
    });
    return Priced.parse(z.object({ offers: z.array(z.unknown()) }).parse(reply.body).offers[0]);
  };
  const rent = async (body: object) => {
    const reply = await emulator.call("PUT", `/api/v0/asks/${String(ASK_ID)}/`, {
      image: "img",
      disk: DISK_GB,
      ...body,
    });
    return z.object({ new_contract: z.int() }).parse(reply.body).new_contract;
  };
  const row = async (id: number) =>
    Row.parse(
      z
        .object({ instances: z.unknown() })
        .parse((await emulator.call("GET", `/api/v0/instances/${String(id)}/`)).body).instances,
    );
  const expectSamePrices = (shown: z.infer<typeof Priced>, offered: z.infer<typeof Priced>) => {
    for (const field of PRICE_FIELDS) {
      expect([field, shown[field]]).toEqual([field, near(offered[field])]);
    }
    expect(shown.search).toEqual({
      gpuCostPerHour: near(offered.search.gpuCostPerHour),
      diskHour: near(offered.search.diskHour),
      totalHour: near(offered.search.totalHour),
    });
  };

  it("an on-demand instance's row prices what its offer asks for its disk", async () => {
    const offered = await offer({});
    const storage = (ASK.storageCostPerGbMonth * DISK_GB) / 720;
    // The formulas themselves, on the offer.
    expect(offered.storage_cost).toBe(ASK.storageCostPerGbMonth);
    expect(offered.storage_total_cost).toBeCloseTo(storage, 6);
    expect(offered.dph_total).toBeCloseTo(offered.dph_base + offered.storage_total_cost, 6);
    // The listed price includes 8 GB of storage.
    expect(offered.dph_total).toBeCloseTo(
      ASK.dollarsPerHour + (ASK.storageCostPerGbMonth * (DISK_GB - 8)) / 720,
      6,
    );
    expect(offered.search).toMatchObject({
      gpuCostPerHour: offered.dph_base,
      diskHour: offered.storage_total_cost,
    });

    const id = await rent({});
    const loading = await row(id);
    expectSamePrices(loading, offered);
    // Charged now: storage from the create, the GPU only while it runs (the billing guide).
    expect(loading.instance).toMatchObject({
      gpuCostPerHour: 0,
      diskHour: near(storage),
    });
    const running = await row(id);
    expect(running.actual_status).toBe("running");
    expect(running.instance.gpuCostPerHour).toBeCloseTo(offered.dph_base, 6);
    expect(running.instance.totalHour).toBeCloseTo(offered.dph_total, 6);
    await emulator.call("PUT", `/api/v0/instances/${String(id)}/`, { state: "stopped" });
    const stopped = await row(id);
    expect(stopped.instance).toMatchObject({
      gpuCostPerHour: 0,
      totalHour: near(storage),
    });
    expectSamePrices(stopped, offered);
  });

  it("an interruptible instance's row prices its bid as the offer prices the minimum bid", async () => {
    const offered = await offer({ type: "bid" });
    expect(offered.min_bid).toBe(ASK.minBidDollarsPerHour);
    const atMinimum = await row(await rent({ price: ASK.minBidDollarsPerHour }));
    expectSamePrices(atMinimum, offered);

    const higher = await row(await rent({ price: 0.6 }));
    expect(higher.dph_total - atMinimum.dph_total).toBeCloseTo(0.6 - ASK.minBidDollarsPerHour, 6);
    expect(higher.storage_total_cost).toBeCloseTo(offered.storage_total_cost, 6);
  });

  it("a volume's row prices what its volume offer asks for its size, local or network", async () => {
    const size = 70;
    const OfferList = z.object({
      offers: z.array(
        z.looseObject({ id: z.int(), storage_cost: z.number(), storage_total_cost: z.number() }),
      ),
    });
    const offerOf = async (path: string, id: number) => {
      const reply = await emulator.call("POST", path, { allocated_storage: size });
      const found = OfferList.parse(reply.body).offers.find((o) => o.id === id);
      expect(found?.storage_total_cost).toBeCloseTo(((found?.storage_cost ?? NaN) * size) / 720, 6);
      return found;
    };
    const local = await offerOf("/api/v0/volumes/search/", 21001);
    const network = await offerOf("/api/v0/network_volumes/search/", 25001);

    expect((await emulator.call("PUT", "/api/v0/volumes/", { id: 21001, size })).status).toBe(200);
    const created = await emulator.call("PUT", "/api/v0/network_volumes/", { id: 25001, size });
    expect(created.status).toBe(200);
    const listed = z
      .object({
        volumes: z.array(z.looseObject({ ask_id: z.int(), storage_total_cost: z.number() })),
      })
      .parse((await emulator.call("GET", "/api/v0/volumes/?owner=me")).body).volumes;
    const costOf = (askId: number) => listed.find((v) => v.ask_id === askId)?.storage_total_cost;
    expect(costOf(21001)).toBe(local?.storage_total_cost);
    expect(costOf(25001)).toBe(network?.storage_total_cost);
  });
});
