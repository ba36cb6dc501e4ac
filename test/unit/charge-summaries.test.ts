import { chargeRowSchema } from "../../provider/client/billing";
import { chargeSummaryOf } from "../../provider/client/charge-summaries";
import { checkedChargesRequest, checkedInvoicesRequest } from "../../provider/functions";

// getCharges and getInvoices: days in (a date, or a time whose UTC day counts), per-contract
// summaries out. A bad argument fails before anything is sent, naming the field, never quoting
// what was given.

const DAY = 86_400;
const FEB_2 = Date.UTC(2026, 1, 2) / 1000;

describe("getCharges' and getInvoices' arguments and summaries", () => {
  it("reads days: a date, or a time with its zone, as its UTC day's midnight", () => {
    expect(checkedChargesRequest({ since: "2026-02-02" })).toEqual({ since: FEB_2 });
    expect(checkedChargesRequest({ since: "2026-02-02T23:59:59Z", until: "2026-02-03" })).toEqual({
      since: FEB_2,
      until: FEB_2 + DAY,
    });
    // 01:00 in Paris is still the 2nd at midnight, UTC: the 1st.
    expect(checkedChargesRequest({ since: "2026-02-02T01:00:00+02:00" }).since).toBe(FEB_2 - DAY);
    expect(checkedInvoicesRequest({ since: "2026-02-02", services: ["stripe_payments"] })).toEqual({
      since: FEB_2,
      services: ["stripe_payments"],
    });
  });

  it("says which argument is wrong, without quoting it", () => {
    const refusals = [
      [{ since: "last tuesday" }, /^getCharges: since: must be a date \(2026-01-31\) or an ISO 8601 time/],
      [{ since: "2026-02-02T10:00:00" }, /^getCharges: since: must be a date/], // no zone
      [{ since: "2026-02-30" }, /^getCharges: since: is not a day of the calendar$/],
      [{ since: "2026-02-02", until: "2026-02-01" }, /^getCharges: until: is before since$/],
      [{ since: "2026-02-02", types: ["gpu"] }, /^getCharges: types\.0: /],
      [{ since: "2026-02-02", instanceIds: [-1] }, /^getCharges: instanceIds\.0: /],
      [{ since: "2026-02-02", instanceId: 5 }, /^getCharges: arguments: .*instanceId/],
      [{}, /^getCharges: since: required/],
    ] as const; // prettier-ignore
    for (const [args, problem] of refusals) {
      expect(() => checkedChargesRequest(args)).toThrow(problem);
    }
    expect(() => checkedChargesRequest({ since: "secret-looking text" })).not.toThrow(
      /secret-looking/,
    );
    expect(() => checkedInvoicesRequest({ since: "2026-02-02", services: [] })).toThrow(
      /^getInvoices: services: /,
    );
  });

  it("summarises a row: the contract's id by its kind, days as dates, dollars", () => {
    const row = chargeRowSchema.parse({
      start: FEB_2,
      end: FEB_2 + DAY,
      type: "instance",
      source: "instance-1000001",
      description: "Instance 1000001 Charges - 2 days",
      amount: 1.5,
      metadata: { label: "trainer", template_id: 9, endpoint_id: 7001, workergroup_id: 9001 },
      items: [{ start: FEB_2, end: FEB_2, type: "gpu", description: "1.000 hours", amount: 1.5 }],
    });
    expect(chargeSummaryOf(row)).toEqual({
      source: "instance-1000001",
      type: "instance",
      instanceId: 1000001,
      volumeId: null,
      label: "trainer",
      templateId: 9,
      endpointId: 7001,
      workerGroupId: 9001,
      description: "Instance 1000001 Charges - 2 days",
      firstDay: "2026-02-02",
      lastDay: "2026-02-03",
      dollars: 1.5,
      items: [
        {
          type: "gpu",
          firstDay: "2026-02-02",
          lastDay: "2026-02-02",
          description: "1.000 hours",
          dollars: 1.5,
        },
      ],
    });
    const volume = chargeSummaryOf(
      chargeRowSchema.parse({ start: 0, end: 0, type: "volume", source: "volume-5001", amount: 0 }),
    );
    expect([volume.instanceId, volume.volumeId, volume.label, volume.items]).toEqual([
      null,
      5001,
      null,
      [],
    ]);
  });
});
