import {
  dollars,
  instanceDollarsPerHour,
  signedDollars,
  storageDollarsPerHour,
} from "../../provider/pricing/formulas";
import { estimateNodeGroup } from "../../provider/pricing/estimates";
import { planLine } from "../../provider/pricing/plan";
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
    expect(signedDollars(4.2)).toBe("+$4.20");
    expect(signedDollars(-0.5)).toBe("-$0.50");
    expect(signedDollars(-0.000001)).toBe("+$0.00");
  });
});

describe("a NodeGroup's price", () => {
  it("is its nodeCount cheapest offers of the chosen cluster, each with the group's disk", () => {
    const offer = (askId: number, dollarsPerHour: number) =>
      ({ askId, dollarsPerHour, storageCostPerGbMonth: 0.072 }) as InstanceOffer;
    const estimate = estimateNodeGroup(
      { clusterId: 7, offers: [offer(1, 2), offer(2, 2.5), offer(3, 3)] },
      2,
      40,
    );
    // Each: listed − 0.072 × 8 / 720 + 0.072 × 40 / 720 = listed + 0.0032.
    expect(estimate.dollarsPerHour).toBeCloseTo(4.5 + 2 * 0.0032, 9);
    expect(estimate.basis).toBe("2 nodes × $2.0032–$2.5032/h in cluster 7, 40 GB disk each");
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
    expect(planLine(totals)).toBe(
      "plan: $2.10/h after this change ($2.40/h while replacements run side by side), $0.80/h " +
        "now, +$1.30/h; bandwidth is billed per byte and left out",
    );
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

describe("the cost command's reading of `pulumi preview --json`", () => {
  const line = (figures: object) => ({
    message: `gpucloud: cost ${JSON.stringify(figures)}\n`,
    severity: "info",
  });
  const priced = {
    resource: "proj/dev/a",
    type: "Instance",
    op: "create",
    dollarsPerHourNow: 0,
    dollarsPerHourAfter: 1.5,
    basis: "ask 1",
  };

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
          line(priced),
          line({
            ...priced,
            resource: "proj/dev/b",
            op: "same",
            dollarsPerHourNow: 2,
            dollarsPerHourAfter: 2,
          }),
          { message: "gpucloud: plan: not figures", severity: "info" },
        ],
      }),
    );
    expect(report.resources.map((one) => [one.op, one.dollarsPerHourAfter])).toEqual([
      ["create", 1.5],
      ["same", 2],
      ["delete", 0],
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
  it("gives two resources with the same inputs a key each, and pairs each diff with a check", () => {
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
    // A new volume, then an existing one with the same inputs (check, then diff).
    const created = plan.keyFor("Volume:{}", "check");
    record(created, "create");
    const existing = plan.keyFor("Volume:{}", "check");
    record(existing, "same");
    expect(existing).not.toBe(created);
    expect(plan.keyFor("Volume:{}", "diff")).toBe(existing);
    record(existing, "same");
    // Another existing one: its own key again.
    const another = plan.keyFor("Volume:{}", "check");
    expect([created, existing]).not.toContain(another);
    record(another, "same");
    expect(plan.keyFor("Volume:{}", "diff")).toBe(another);
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
