import {
  dollars,
  instanceDollarsPerHour,
  signedDollars,
  storageDollarsPerHour,
} from "../../provider/pricing/formulas";
import { groupEstimate } from "../../provider/pricing/group-price";
import { parseResourceLine, resourceLine, totalLine } from "../../provider/pricing/plan-lines";
import type { InstanceOffer } from "../../provider/client";
import { costReport, markdownOf } from "../../provider/pricing/preview-figures";
import { recordedPrice } from "../../provider/pricing/recorded";
import { largestOf, PlanLedger, type PlanItem } from "../../provider/run/plan-ledger";

// The service's price formulas (emulator/README.md "Prices") and the plan's ledger.

describe("the price formulas", () => {
  it("prices storage over a 30-day month, as the OpenAPI's Instance example does", () => {
    // storage_cost 0.149333…, 10 GB: storage_total_cost 0.0020741.
    expect(storageDollarsPerHour(0.1493333, 10)).toBeCloseTo(0.0020741, 6);
  });

  it("adds the disk to dph_base; a listed price includes 8 GB", () => {
    const offer = { askId: 1, listedDollarsPerHour: 0.35, storageCostPerGbMonth: 0.12 };
    // dph_base = 0.35 − 0.12 × 8 / 720; + 0.12 × 40 / 720.
    expect(instanceDollarsPerHour(offer, { diskGb: 40 })).toBeCloseTo(0.35 + (0.12 * 32) / 720, 9);
    expect(instanceDollarsPerHour(offer, { diskGb: 8 })).toBeCloseTo(0.35, 9);
    const withBase = { ...offer, baseDollarsPerHour: 1.0 };
    expect(instanceDollarsPerHour(withBase, { diskGb: 10 })).toBeCloseTo(1 + 0.012 / 7.2, 9);
  });

  it("reads a bid with 8 GB included, and a stopped instance pays its storage only", () => {
    const offer = { askId: 1, listedDollarsPerHour: 0.35, storageCostPerGbMonth: 0.12 };
    expect(instanceDollarsPerHour(offer, { diskGb: 8, bid: 0.3 })).toBeCloseTo(0.3, 9);
    expect(instanceDollarsPerHour(offer, { diskGb: 40, stopped: true })).toBeCloseTo(
      (0.12 * 40) / 720,
      9,
    );
  });

  it("shows dollars with two to four decimals", () => {
    expect(dollars(1.2)).toBe("$1.20");
    expect(dollars(0.0021)).toBe("$0.0021");
    expect(dollars(0.355333)).toBe("$0.3553");
    expect(dollars(4.2)).toBe("$4.20");
    expect(dollars(0.00375)).toBe("$0.00375");
    expect(dollars(0.0020741234)).toBe("$0.002074");
    expect(signedDollars(4.2)).toBe("+$4.20");
    expect(signedDollars(-0.5)).toBe("-$0.50");
    expect(signedDollars(-1e-9)).toBe("+$0.00");
  });
});

describe("a NodeGroup's price", () => {
  const offer = (askId: number, dollarsPerHour: number) =>
    ({ askId, dollarsPerHour, storageCostPerGbMonth: 0.072 }) as InstanceOffer;

  it("is each rank's offer with the group's disk, shown node by node", () => {
    const estimate = groupEstimate(
      [
        { offer: offer(1, 2), diskGb: 40 },
        { offer: offer(2, 2.5), diskGb: 40 },
      ],
      7,
      40,
    );
    // Each: listed − 0.072 × 8 / 720 + 0.072 × 40 / 720 = listed + 0.0032.
    expect(estimate.dollarsPerHour).toBeCloseTo(4.5 + 2 * 0.0032, 9);
    expect(estimate.basis).toBe("2 nodes ($2.0032 + $2.5032) in cluster 7, 40 GB disk each");
  });

  it("keeps a resized group's nodes at their price and marks the new ones", () => {
    const estimate = groupEstimate(
      [{ kept: 2.4 }, { kept: 2.4 }, { offer: offer(3, 2.2), diskGb: 8 }],
      7,
      8,
    );
    expect(estimate.dollarsPerHour).toBeCloseTo(7, 9);
    expect(estimate.basis).toBe("3 nodes ($2.40 + $2.40 + $2.20 new) in cluster 7, 8 GB disk each");
  });
});

describe("the plan's ledger", () => {
  const item = (key: string, now: number, after: number, extra: Partial<PlanItem> = {}) => ({
    key,
    resource: key,
    type: "Instance",
    op: "same" as const,
    dollarsPerHourNow: now,
    dollarsPerHourAfter: after,
    basis: "test",
    ...extra,
  });

  it("adds after, now and the change; a create-before-delete replacement counts both", () => {
    const plan = new PlanLedger();
    plan.record(item("a", 0, 1.2, { op: "create" }));
    plan.record(item("b", 0.5, 0.5));
    plan.record(item("c", 0.3, 0.4, { op: "replace", bothWhileReplacing: true }));
    const totals = plan.totals();
    expect(totals.after).toBeCloseTo(2.1, 9);
    expect(totals.now).toBeCloseTo(0.8, 9);
    expect(totals.change).toBeCloseTo(1.3, 9);
    expect(totals.peak).toBeCloseTo(2.4, 9);
    expect(largestOf(plan.items(), 2).map((one) => one.key)).toEqual(["a", "b"]);
    expect(totalLine(totals)).toBe(
      "plan: $2.10/h after this change, $0.80/h now (+$1.30/h); up to $2.40/h while `up` " +
        "applies it (what it replaces or removes bills until then); bandwidth is billed per " +
        "byte and left out",
    );
  });

  it("counts, while `up` applies the plan, a change in place at its dearer side and the stack's unpriced instances", () => {
    const plan = new PlanLedger();
    // A shrink bills its old size until `up` reaches it; a grow its new one.
    plan.record(item("shrink", 3, 2, { op: "update", instanceIds: [1, 2, 3] }));
    plan.record(item("grow", 1, 2, { op: "update", instanceIds: [4] }));
    plan.record(item("first", 1, 1.5, { op: "replace", instanceIds: [5] }));
    // Instances 1 and 4 are the plan's; 9 is the stack's and not (yet) in the plan.
    plan.running.set(1, 1).set(4, 1).set(9, 0.7);
    const totals = plan.totals();
    expect(totals.after).toBeCloseTo(5.5, 9);
    expect(totals.peak).toBeCloseTo(3 + 2 + 1.5 + 0.7, 9);
    // A stopped instance bills its disk, but `up`'s cap counts what the account reports for it.
    plan.record(item("stopped", 0.01, 0.01, { instanceIds: [6] }));
    plan.running.set(6, 0.4);
    expect(plan.totals().peak).toBeCloseTo(3 + 2 + 1.5 + 0.7 + 0.4, 9);
  });

  it("keeps one item per resource: the last record wins", () => {
    const plan = new PlanLedger();
    plan.record(item("a", 0, 1));
    plan.record(item("a", 1, 2));
    expect(plan.totals().after).toBe(2);
  });
});

describe("the price a state records", () => {
  it("takes dollarsPerHour, else an Instance's rented offer, else says it has none", () => {
    expect(
      recordedPrice("Instance", { dollarsPerHour: 0.5, offer: { dollarsPerHour: 9 } }),
    ).toEqual({ dollarsPerHour: 0.5, basis: "as recorded" });
    expect(recordedPrice("Instance", { offer: { dollarsPerHour: 0.35 } }).dollarsPerHour).toBe(
      0.35,
    );
    expect(
      recordedPrice("Instance", { state: "stopped", offer: { dollarsPerHour: 0.35 } }),
    ).toEqual({ dollarsPerHour: 0, basis: "stopped: its storage is not recorded in the state" });
    expect(
      recordedPrice("Volume", { sizeGb: 72, offer: { storageCostPerGbMonth: 0.1 } }).dollarsPerHour,
    ).toBeCloseTo(0.01, 9);
    expect(recordedPrice("Volume", { sizeGb: 72 })).toMatchObject({
      dollarsPerHour: 0,
      unrecorded: true,
    });
  });
});

describe("the preview's lines", () => {
  const base = {
    key: "k",
    resource: "urn:pulumi:dev::proj::gpucloud:index:Instance::trainer",
    type: "Instance",
    basis: "offerQuery on machine 7 (where volume V.5 lives): ask 1 at $0.35/h + 40 GB disk",
  };

  it("reads back, rounded as shown, every figure a line shows", () => {
    const items: PlanItem[] = [
      { ...base, op: "create", dollarsPerHourNow: 0, dollarsPerHourAfter: 0.35533333 },
      {
        ...base,
        op: "create",
        dollarsPerHourNow: 0,
        dollarsPerHourAfter: 0.4,
        low: 0.3,
        high: 0.4,
      },
      { ...base, op: "update", dollarsPerHourNow: 7.1978, dollarsPerHourAfter: 4.79851 },
      {
        ...base,
        op: "replace",
        dollarsPerHourNow: 0.36,
        dollarsPerHourAfter: 0.42,
        bothWhileReplacing: true,
      },
      { ...base, op: "replace", dollarsPerHourNow: 0.36, dollarsPerHourAfter: 0.36 },
      { ...base, op: "same", dollarsPerHourNow: 0.36, dollarsPerHourAfter: 0.36 },
      {
        ...base,
        op: "create",
        dollarsPerHourNow: 0,
        dollarsPerHourAfter: 0.9,
        low: 0.215,
        high: 0.9,
        pending: "volume.volumeId",
      },
      {
        ...base,
        op: "create",
        dollarsPerHourNow: 0,
        dollarsPerHourAfter: 0,
        unbounded: "askId is another resource's output",
      },
    ];
    const lines = items.map((item) => resourceLine(item, undefined));
    expect(lines[0]).toBe(`$0.3553/h to create: ${base.basis}`);
    expect(lines[2]).toBe(`$4.7985/h after this change, $7.1978/h now: ${base.basis}`);
    expect(lines[3]).toBe(
      `$0.42/h after its replacement, $0.36/h now; both bill while it is replaced: ${base.basis}`,
    );
    expect(lines[6]).toBe(
      `priced once volume.volumeId is known, $0.215–$0.90/h, counted at $0.90/h to create: ${base.basis}`,
    );
    const read = lines.map((line) => parseResourceLine(line));
    expect(
      read.map((one) => one && [one.op, one.dollarsPerHourNow, one.dollarsPerHourAfter]),
    ).toEqual([
      ["create", 0, 0.3553],
      ["create", 0, 0.4],
      ["update", 7.1978, 4.7985],
      ["replace", 0.36, 0.42],
      ["replace", 0.36, 0.36],
      ["same", 0.36, 0.36],
      ["create", 0, 0.9],
      ["create", 0, 0],
    ]);
    expect(read[1]).toMatchObject({ low: 0.3, high: 0.4 });
    expect(read[3]).toMatchObject({ bothWhileReplacing: true });
    expect(read[4]?.bothWhileReplacing).toBeUndefined();
    expect(read[6]).toMatchObject({ pending: "volume.volumeId", low: 0.215, high: 0.9 });
    expect(read[7]).toMatchObject({ unbounded: "askId is another resource's output" });
    expect(read.every((one) => one?.basis === base.basis)).toBe(true);
    // The dynamic door's lines name the resource.
    expect(parseResourceLine(resourceLine(items[0] as PlanItem, "Instance trainer"))).toMatchObject(
      {
        type: "Instance",
        name: "trainer",
      },
    );
    expect(parseResourceLine(resourceLine(items[0] as PlanItem, "Volume"))).toMatchObject({
      type: "Volume",
      name: undefined,
    });
    expect(
      parseResourceLine("plan: $1.00/h after this change, $0.00/h now (+$1.00/h)"),
    ).toBeUndefined();
  });
});

describe("the cost command's reading of `pulumi preview --json`", () => {
  const line = (message: string, urn?: string) => ({
    message: `gpucloud: ${message}\n`,
    severity: "info",
    ...(urn === undefined ? {} : { urn }),
  });

  it("adds the priced lines and the deleted resources, priced from their state", () => {
    const report = costReport(
      JSON.stringify({
        steps: [
          {
            op: "delete",
            urn: "urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::old",
            oldState: {
              type: "pulumi-nodejs:dynamic:Resource",
              outputs: {
                __provider: 'exports.handler = require("pulumi-gpucloud/dynamic/instance")',
                offer: { dollarsPerHour: 0.5 },
              },
            },
          },
          { op: "delete", oldState: { type: "gpucloud:index:Webhook", outputs: {} } },
        ],
        diagnostics: [
          line("Instance a: $1.50/h to create: ask 1"),
          line(
            "$2.00/h unchanged: as recorded",
            "urn:pulumi:dev::proj::gpucloud:index:NodeGroup::b",
          ),
          line("plan: $3.50/h after this change, $2.00/h now (+$1.50/h)"),
        ],
      }),
    );
    expect(
      report.resources.map((one) => [one.resource, one.type, one.op, one.dollarsPerHourAfter]),
    ).toEqual([
      ["a", "Instance", "create", 1.5],
      ["urn:pulumi:dev::proj::gpucloud:index:NodeGroup::b", "NodeGroup", "same", 2],
      ["urn:pulumi:dev::proj::pulumi-nodejs:dynamic:Resource::old", "Instance", "delete", 0],
    ]);
    expect(report).toMatchObject({ totalNow: 2.5, totalAfter: 3.5, change: 1 });
    expect(report.leftOut).toEqual(["bandwidth (billed per byte)"]);
    expect(markdownOf(report)).toBe(
      "this change: +$1.00/h ($3.50/h after, $2.50/h now); bandwidth (billed per byte) left out",
    );
  });

  it("refuses what is not a preview's JSON, in one line", () => {
    expect(() => costReport("Previewing update (dev)")).toThrow(
      "the input is not JSON: pipe `pulumi preview --json` into it",
    );
    expect(() => costReport("[]")).toThrow(/not `pulumi preview --json` output/);
  });
});

describe("the plan's keys for resources known only by their inputs", () => {
  it("gives two resources with the same inputs a key each, new or existing", () => {
    const plan = new PlanLedger();
    const record = (key: string, op: PlanItem["op"]) => {
      plan.record({
        key,
        resource: "Volume",
        type: "Volume",
        op,
        dollarsPerHourNow: 0,
        dollarsPerHourAfter: 1,
        basis: "test",
      });
    };
    // A new volume (priced at its check), then two existing ones with the same inputs (each
    // priced at its diff).
    const created = plan.keyFor("Volume:{}", "check");
    record(created, "create");
    const existing = plan.keyFor("Volume:{}", "diff");
    record(existing, "same");
    const another = plan.keyFor("Volume:{}", "diff");
    record(another, "same");
    expect(new Set([created, existing, another]).size).toBe(3);
    expect(plan.items()).toHaveLength(3);
  });
});

describe("a replacement's second check", () => {
  it("is taken once, as the replace the diff recorded", () => {
    const plan = new PlanLedger();
    plan.record({
      key: "k",
      resource: "r",
      type: "Instance",
      op: "replace",
      dollarsPerHourNow: 1,
      dollarsPerHourAfter: 2,
      basis: "test",
    });
    expect(plan.keyFor("Volume:{}", "check")).toBe("Volume:{}#0");
    expect(plan.takeRecheck("k")).toBe(true);
    expect(plan.takeRecheck("k")).toBe(false);
  });
});
