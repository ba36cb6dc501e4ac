import { GpuCloudError } from "../../provider/client";
import {
  diffInstance,
  implementation as instanceProvider,
  instanceInputsSchema,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import { useEmulator } from "../support/use-emulator";
import { summary } from "./harness";

// Reserved instances: the client's prepay, and an Instance's `prepayDollars` (the deposit once
// it runs, more in place, nothing refunded), against the emulator (emulator/README.md,
// "Prepaid (reserved) instances").

const ASK = 31001; // a seeded ask: $0.35/h listed, credit_discount_max 0.25
const basic = { image: "pytorch/pytorch:latest", disk: 16 };

describe("the client's prepay", () => {
  const h = useEmulator({ per: "test" });

  it("deposits with one PUT: the months covered and the discount bought", async () => {
    await h.emulator.control("PUT", "/_emulator/user", { credit: 1000 });
    const id = await h.client.instances.create(ASK, basic);
    await h.emulator.clearRequests();

    const prepaid = await h.client.instances.prepay(id, 200);

    expect(summary(await h.emulator.writes())).toEqual([`PUT /api/v0/instances/prepay/${id}/ 200`]);
    expect(prepaid.months).toBeGreaterThan(0.5);
    expect(prepaid.discountRate).toBeGreaterThan(0);
    expect(prepaid.discountRate).toBeLessThanOrEqual(0.25);
    const shown = await h.client.instances.show(id);
    expect(shown?.credit_discount).toBe(prepaid.discountRate);
    // Drawn down by the hour from the deposit on.
    expect(shown?.credit_balance).toBeCloseTo(200, 2);
  });

  it("is refused for an unknown instance (400) and over the account's credit (411)", async () => {
    const id = await h.client.instances.create(ASK, basic);
    await expect(h.client.instances.prepay(424242, 10)).rejects.toMatchObject({ status: 400 });
    await expect(h.client.instances.prepay(id, 101)).rejects.toMatchObject({
      status: 411,
      message: expect.stringContaining("Insufficient credit") as unknown,
    });
  });

  it("is never sent twice: a lost answer may have moved the money", async () => {
    const id = await h.client.instances.create(ASK, basic);
    await h.emulator.clearRequests();
    await h.emulator.setFaults({ drops: { next: 1, afterHandling: true } });

    const failure = await h.client.instances.prepay(id, 10).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(GpuCloudError);
    expect(failure).toMatchObject({ mayHaveCreated: true });
    expect(summary(await h.emulator.requests())).toEqual([`PUT /api/v0/instances/prepay/${id}/ 0`]);
  });
});

describe("an Instance's prepayDollars", () => {
  const h = useEmulator({ per: "test", bootPolls: 1 });

  const inputs = (fields: Record<string, unknown> = {}) =>
    instanceInputsSchema.parse({
      askId: ASK,
      image: "img",
      diskGb: 10,
      pollIntervalSeconds: 0.05,
      owner: "p/s/gpu",
      ...fields,
    });
  const balanceOf = async (id: number) => (await h.client.instances.show(id))?.credit_balance;

  async function rent(fields: Record<string, unknown>): Promise<InstanceOutputs> {
    const created = await instanceProvider.create(h.run, inputs(fields));
    if (!created.outs) throw new Error("create returned no outputs");
    return created.outs;
  }

  it("prepays once the instance runs; dollarsPerHour is the service's discounted price", async () => {
    await h.emulator.control("PUT", "/_emulator/user", { credit: 1000 });

    const outs = await rent({ prepayDollars: 150 });

    const shown = await h.client.instances.show(outs.instanceId);
    const listed = shown?.dph_total ?? 0;
    const discount = shown?.credit_discount ?? 0;
    expect(discount).toBeGreaterThan(0);
    expect(outs).toMatchObject({ prepayDollars: 150, prepaidDollars: 150 });
    expect(outs.dollarsPerHour).toBeCloseTo(listed * (1 - discount), 6);
    expect(outs.dollarsPerHour).toBeLessThan(listed);
    expect(await balanceOf(outs.instanceId)).toBeCloseTo(150, 2);
    // A refresh reads the same discounted price: no drift.
    const read = await instanceProvider.read?.(h.run, String(outs.instanceId), outs);
    expect(read?.props).toMatchObject({ dollarsPerHour: outs.dollarsPerHour });
  });

  it("prepays the difference in place; a lower amount refunds nothing and says so", async () => {
    await h.emulator.control("PUT", "/_emulator/user", { credit: 1000 });
    const olds = await rent({ prepayDollars: 100 });
    const more = inputs({ prepayDollars: 250 });
    expect(diffInstance(olds, more)).toMatchObject({ changes: true, replaces: [] });
    await h.emulator.clearRequests();

    const raised = await instanceProvider.update?.(h.run, String(olds.instanceId), olds, more);

    expect(summary(await h.emulator.writes())).toEqual([
      `PUT /api/v0/instances/prepay/${olds.instanceId}/ 200`,
    ]);
    expect(raised?.outs).toMatchObject({ instanceId: olds.instanceId, prepaidDollars: 250 });
    expect(await balanceOf(olds.instanceId)).toBeCloseTo(250, 2);

    const raisedOuts = raised?.outs as InstanceOutputs;
    const less = inputs({ prepayDollars: 50 });
    await instanceProvider.diff?.(h.run, String(olds.instanceId), raisedOuts, less);
    expect(h.progress.join("\n")).toMatch(
      new RegExp(`nothing is refunded: instance ${olds.instanceId} keeps the \\$250\\.00 prepaid`),
    );
    await h.emulator.clearRequests();
    const lowered = await instanceProvider.update?.(
      h.run,
      String(olds.instanceId),
      raisedOuts,
      less,
    );
    expect(await h.emulator.writes()).toEqual([]);
    expect(lowered?.outs).toMatchObject({ prepayDollars: 50, prepaidDollars: 250 });
  });

  it("counts a deposit whose answer was lost by the instance's balance, never sending it twice", async () => {
    await h.emulator.control("PUT", "/_emulator/user", { credit: 1000 });
    await h.emulator.setFaults({
      drops: { next: 1, afterHandling: true, paths: ["/api/v0/instances/prepay/"] },
    });

    const outs = await rent({ prepayDollars: 120 });

    expect(outs).toMatchObject({ prepaidDollars: 120 });
    const prepays = summary(await h.emulator.requests()).filter((line) => line.includes("prepay"));
    expect(prepays).toEqual([`PUT /api/v0/instances/prepay/${outs.instanceId}/ 0`]);
    expect(await balanceOf(outs.instanceId)).toBeCloseTo(120, 2);
  });

  it("keeps a running instance whose prepay the service refused, for the next up to prepay", async () => {
    // The default account holds $100 of credit: check says so at preview; here the credit goes
    // between the check and the create.
    const failure = await rent({ prepayDollars: 150 }).catch((error: unknown) => error);

    expect(failure).toMatchObject({
      message: expect.stringMatching(
        /instance \d+ runs, but its prepay failed \(.*Insufficient credit.*\); nothing was prepaid/,
      ) as unknown,
    });
    const { id, properties } = failure as { id: string; properties: InstanceOutputs };
    expect(properties.prepaidDollars).toBeUndefined();
    expect((await h.emulator.state()).instances.map((instance) => String(instance.id))).toEqual([
      id,
    ]);
    // The next up's diff sees the prepay to make, in place.
    expect(diffInstance(properties, inputs({ prepayDollars: 150 }))).toMatchObject({
      changes: true,
      replaces: [],
    });
  });
});
