import * as pulumi from "@pulumi/pulumi";
import { chargesOf, invoicesOf } from "../../provider/client/charge-summaries";
import { checkedChargesRequest, getCharges, getInvoices } from "../../provider/functions";
import {
  BILLED_ASK as ASK,
  BILLED_DISK_GB,
  DAY_SECONDS as DAY,
  HOUR_SECONDS as HOUR,
} from "../support/billed-ask";
import { useEmulator } from "../support/use-emulator";
import { failureOf, requestsTo } from "./harness";

/**
 * The billing area of the client (GET /api/v0/charges/ and /api/v1/invoices/: every page, the
 * query encoded as the official client encodes it) and the functions over it, getCharges and
 * getInvoices, against an emulator whose clock the tests freeze and move: what one instance,
 * a group's nodes, a volume and the whole account were billed since a day.
 *
 * One emulator for the file: the TypeScript functions read their configuration once per
 * program (here, per file) from GPUCLOUD_API_KEY and GPUCLOUD_BASE_URL. Each test starts on a
 * day of its own and destroys what it rents.
 */

const dayText = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
/** An output's value, as a program's apply would see it. */
const valueOf = <T>(output: pulumi.Output<T>) =>
  (output as unknown as { promise(): Promise<T> }).promise();

describe("billing: charges and invoices through the client and the functions", () => {
  const h = useEmulator({ per: "file", instanceAsks: [ASK], bootPolls: 0 });
  let day: number;

  beforeAll(() => {
    process.env["GPUCLOUD_API_KEY"] = h.emulator.apiKey;
    process.env["GPUCLOUD_BASE_URL"] = h.emulator.url;
  });
  afterAll(() => {
    delete process.env["GPUCLOUD_API_KEY"];
    delete process.env["GPUCLOUD_BASE_URL"];
  });
  beforeEach(async () => {
    day = (Math.floor((await h.emulator.clock()).nowSeconds / DAY) + 1) * DAY;
    await h.emulator.clock({ frozen: true, nowSeconds: day + HOUR });
  });

  const advance = (seconds: number) => h.emulator.clock({ advanceSeconds: seconds });
  const rent = async (label: string) =>
    h.client.instances.create(ASK.id, { image: "pytorch/pytorch", disk: BILLED_DISK_GB, label });
  const destroy = (ids: number[]) => h.client.instances.destroyMany(ids);

  it("reads every page of the charges, its query encoded as the official client's", async () => {
    const ids = [await rent("a"), await rent("b"), await rent("c")];
    await advance(HOUR);
    await h.emulator.clearRequests();

    const rows = await h.client.billing.charges({
      selectFilters: { day: { gte: day, lte: day }, type: { in: ["instance"] } },
      latestFirst: false,
      limit: 2,
    });
    expect(rows.map((row) => row.source)).toEqual(ids.map((id) => `instance-${String(id)}`));
    expect(rows[0]).toMatchObject({
      start: day,
      end: day,
      amount: 0.508,
      metadata: { label: "a" },
    });
    expect(rows[0]?.items.map((item) => [item.type, item.amount])).toEqual([
      ["gpu", 0.498],
      ["disk", 0.01],
      ["bwd", 0],
      ["bwu", 0],
    ]);

    const sent = requestsTo(await h.emulator.requests(), "GET", "/api/v0/charges/");
    expect(sent).toHaveLength(2);
    const [first, second] = sent.map((entry) => new URL(entry.path, "http://x").searchParams);
    expect(JSON.parse(first?.get("select_filters") ?? "")).toEqual({
      day: { gte: day, lte: day },
      type: { in: ["instance"] },
    });
    expect([first?.get("latest_first"), first?.get("limit")]).toEqual(["false", "2"]);
    expect(first?.has("after_token")).toBe(false);
    expect(second?.get("after_token")).toEqual(expect.any(String));
    await destroy(ids);
  });

  it("answers what an instance, a group's nodes, a volume and the account were billed", async () => {
    const trainer = await rent("trainer");
    const nodes = [await rent("node-0"), await rent("node-1")];
    const other = await rent("someone-else");
    const volume = await h.client.volumes.acceptVolumeAsk(21001, 72, { name: "data" });
    await advance(2 * HOUR);
    await destroy([trainer]);
    await advance(HOUR);

    const request = checkedChargesRequest({ since: dayText(day) });
    const billed = async (filter: object) =>
      chargesOf(h.client.billing, { ...request, ...filter }, (day + 12 * HOUR) * 1000);
    const one = await billed({ instanceIds: [trainer] });
    expect(one).toEqual({
      since: dayText(day),
      until: dayText(day),
      charges: [
        {
          source: `instance-${String(trainer)}`,
          type: "instance",
          instanceId: trainer,
          volumeId: null,
          label: "trainer",
          templateId: null,
          endpointId: null,
          workerGroupId: null,
          description: `Instance ${String(trainer)} Charges - 1 day`,
          firstDay: dayText(day),
          lastDay: dayText(day),
          dollars: 1.016,
          items: [
            { type: "gpu", firstDay: dayText(day), lastDay: dayText(day), description: "2.000 hours at $0.498/hour", dollars: 0.996 },
            { type: "disk", firstDay: dayText(day), lastDay: dayText(day), description: "2.000 hours at $0.010/hour", dollars: 0.02 },
            { type: "bwd", firstDay: dayText(day), lastDay: dayText(day), description: "0.000 GB at $0.007/GB", dollars: 0 },
            { type: "bwu", firstDay: dayText(day), lastDay: dayText(day), description: "0.000 GB at $0.011/GB", dollars: 0 },
          ],
        },
      ],
      totalDollars: 1.016,
    }); // prettier-ignore

    const group = await billed({ instanceIds: nodes });
    expect(group.charges.map((c) => c.instanceId)).toEqual(nodes);
    expect(group.totalDollars).toBe(2 * 1.524); // 3 h each of $0.508/h
    expect((await billed({ volumeIds: [volume.volumeId] })).totalDollars).toBe(0.03);
    expect((await billed({ labels: ["node-0", "data"] })).charges.map((c) => c.source)).toEqual([
      `volume-${String(volume.volumeId)}`,
      `instance-${String(nodes[0])}`,
    ]);
    const account = await billed({});
    expect(account.charges).toHaveLength(5);
    expect(account.totalDollars).toBe(1.016 + 3 * 1.524 + 0.03);
    expect((await billed({ types: ["volume"] })).charges).toHaveLength(1);
    await destroy([...nodes, other]);
    await h.client.volumes.delete(volume.volumeId);
  });

  it("getCharges: a program's call, given another resource's output", async () => {
    const trainer = await rent("trainer");
    await advance(HOUR);
    await destroy([trainer]);

    const billed = await valueOf(
      getCharges({
        since: `${dayText(day)}T00:30:00Z`,
        until: dayText(day),
        instanceIds: [pulumi.output(trainer)],
      }),
    );
    expect(billed.charges.map((c) => [c.instanceId, c.dollars])).toEqual([[trainer, 0.508]]);
    expect(billed.totalDollars).toBe(0.508);
  });

  it("getInvoices: the invoices made on the days asked, newest first, of the services asked", async () => {
    await h.emulator.addInvoice({ amountDollars: -25, createdAtSeconds: day + 60 });
    await h.emulator.addInvoice({
      amountDollars: 40,
      type: "transfer",
      service: "transfer",
      source: "team@example.com",
      description: "Transfer from team",
      createdAtSeconds: day + 120,
      paidAtSeconds: null,
    });
    await h.emulator.addInvoice({ amountDollars: -10, createdAtSeconds: day - DAY });

    const invoices = await valueOf(getInvoices({ since: dayText(day), until: dayText(day) }));
    expect(invoices.invoices.map((i) => [i.type, i.dollars, i.createdAt, i.paidAt])).toEqual([
      ["transfer", 40, new Date((day + 120) * 1000).toISOString(), null],
      ["credit", -25, new Date((day + 60) * 1000).toISOString(), new Date((day + 60) * 1000).toISOString()],
    ]); // prettier-ignore
    const paid = await invoicesOf(
      h.client.billing,
      { since: day - DAY, until: day, services: ["stripe_payments"] },
      Date.now(),
    );
    expect(paid.invoices.map((i) => i.dollars)).toEqual([-25, -10]);
  });

  it("needs a key that may read billing", async () => {
    await h.emulator.addKey("no-billing", { api: { instance_read: {} } });
    const client = h.newClient({ apiKey: "no-billing" });
    const refused = await failureOf(
      client.billing.charges({ selectFilters: { day: { gte: day, lte: day } } }),
    );
    expect(refused.isAuthError).toBe(true);
    expect(refused.status).toBe(403);
  });
});
