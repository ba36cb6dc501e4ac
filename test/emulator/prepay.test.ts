import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { createInstance, errorOf, pollUntilRunning } from "./helpers";

/**
 * Reserved instances (emulator/README.md, "Prepaid (reserved) instances"): a prepay draws the
 * account's credit into an on-demand instance, whose row then shows the discount the deposit's
 * months buy (the default schedule scaled to the host's `credit_discount_max`), and whose
 * meters bill at the discounted rates.
 */

const Breakdown = z.object({ totalHour: z.number(), discountedTotalPerHour: z.number() });
const RowSchema = z.object({
  instances: z.object({
    dph_total: z.number(),
    credit_balance: z.number().nullable(),
    credit_discount: z.number().nullable(),
    credit_discount_max: z.number(),
    instance: Breakdown,
  }),
});
const PrepaidSchema = z.object({
  success: z.literal(true),
  timescale: z.number(),
  discount_rate: z.number(),
});
const HOUR = 3600;

describe("prepaid (reserved) instances", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
    await emulator.control("PUT", "/_emulator/user", { credit: 10_000 });
  });
  afterEach(async () => {
    await emulator.close();
  });

  const prepayPath = (id: number) => `/api/v0/instances/prepay/${String(id)}/`;
  const row = async (id: number) =>
    RowSchema.parse((await emulator.call("GET", `/api/v0/instances/${String(id)}/`)).body)
      .instances;
  const credit = async () =>
    z
      .object({ credit: z.number() })
      .parse((await emulator.call("GET", "/api/v0/users/current/")).body).credit;

  it("discounts by the months the deposit covers, up to the host's maximum at 6 months", async () => {
    const { call } = emulator;
    const id = await createInstance(call);
    await pollUntilRunning(call, id);
    const listed = await row(id);
    expect(listed).toMatchObject({ credit_balance: null, credit_discount: null });
    const max = listed.credit_discount_max;
    const total = listed.dph_total;

    // One month at half the maximum (the guide's 20% of a 0.4 maximum): 720 h at the discounted price.
    const month = total * 720 * (1 - max / 2);
    const first = PrepaidSchema.parse((await call("PUT", prepayPath(id), { amount: month })).body);
    expect(first.discount_rate).toBeCloseTo(max / 2, 5);
    expect(first.timescale).toBeCloseTo(1, 4);
    const shown = await row(id);
    expect(shown.dph_total).toBe(total);
    expect(shown.credit_discount).toBeCloseTo(max / 2, 5);
    // Drawn down by the hour since the deposit (the clock runs).
    expect(shown.credit_balance).toBeCloseTo(month, 3);
    expect(shown.instance.discountedTotalPerHour).toBeCloseTo(total * (1 - max / 2), 6);
    expect(await credit()).toBeCloseTo(10_000 - month, 6);

    // A top-up is discounted with the whole balance: 6 months and more get the maximum.
    const more = total * 720 * 6;
    const second = PrepaidSchema.parse((await call("PUT", prepayPath(id), { amount: more })).body);
    expect(second.discount_rate).toBeCloseTo(max, 5);
    expect(second.timescale).toBeGreaterThan(6);
    expect((await row(id)).credit_discount).toBeCloseTo(max, 5);
  });

  it("draws the credit as a reserved invoice and bills the hours at the discounted rate", async () => {
    const { call } = emulator;
    const day = (Math.floor((await emulator.clock()).nowSeconds / 86_400) + 1) * 86_400;
    await emulator.clock({ frozen: true, nowSeconds: day + HOUR });
    const id = await createInstance(call);
    await pollUntilRunning(call, id);
    const { dph_total: total, credit_discount_max: max } = await row(id);
    await call("PUT", prepayPath(id), { amount: total * 720 * 6 * (1 - max) });
    await emulator.clock({ advanceSeconds: HOUR });

    const filters = encodeURIComponent(JSON.stringify({ when: { gte: 0, lte: day * 2 } }));
    const invoices = z
      .object({ results: z.array(z.looseObject({ amount: z.number() })) })
      .parse((await call("GET", `/api/v1/invoices/?select_filters=${filters}`)).body).results;
    expect(invoices).toEqual([
      expect.objectContaining({
        type: "reserved",
        metadata: expect.objectContaining({ service: "instance_prepay" }) as unknown,
      }),
    ]);
    expect(invoices[0]?.amount).toBeCloseTo(-total * 720 * 6 * (1 - max), 6);
    const days = encodeURIComponent(JSON.stringify({ day: { gte: day, lte: day } }));
    const charges = z
      .object({ results: z.array(z.object({ amount: z.number() })) })
      .parse((await call("GET", `/api/v0/charges/?select_filters=${days}`)).body).results;
    // The hour since the deposit, GPU and disk, at the discounted total.
    expect(charges[0]?.amount).toBeCloseTo(total * (1 - max), 2);
  });

  it("refuses an unknown or interruptible instance, a bad amount and one over the credit", async () => {
    const { call } = emulator;
    const bid = await createInstance(call, { price: 0.3 });
    expect(await call("PUT", prepayPath(424242), { amount: 10 })).toMatchObject({
      status: 400,
      body: { success: false, msg: "No such instance" },
    });
    expect(await call("PUT", prepayPath(bid), { amount: 10 })).toMatchObject({
      status: 400,
      body: { success: false, msg: expect.stringContaining("on-demand") as unknown },
    });
    const id = await createInstance(call);
    for (const amount of [0, -5, "ten"]) {
      expect(errorOf(await call("PUT", prepayPath(id), { amount }))).toEqual({
        status: 400,
        error: "invalid_args",
      });
    }
    expect(await call("PUT", prepayPath(id), { amount: 10_000.5 })).toMatchObject({
      status: 411,
      body: { success: false, msg: "Insufficient credit" },
    });
    expect(await credit()).toBe(10_000);
    expect((await row(id)).credit_balance).toBeNull();
  });
});
