import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import {
  type TestEmulator,
  startTestEmulator,
  type TestEmulatorOptions,
} from "../support/emulator";
import {
  BILLED_ASK as ASK,
  BILLED_DISK_DOLLARS_PER_HOUR as DISK,
  BILLED_DISK_GB,
  BILLED_GPU_DOLLARS_PER_HOUR as GPU,
  DAY_SECONDS as DAY,
  HOUR_SECONDS as HOUR,
  round3,
} from "../support/billed-ask";
import { createEndpoint, errorOf, showInstance } from "./helpers";

/**
 * What the emulator bills (the pricing guide: GPU time per second while an instance runs, its
 * storage while it exists, stopped too; a volume's storage while it exists) and how it serves
 * the bills (GET /api/v0/charges/ and /api/v1/invoices/ as the OpenAPI documents them). The
 * emulator's clock is frozen and moved by the tests: amounts are exact, and nothing sleeps.
 */

const Item = z.object({
  start: z.int(),
  end: z.int(),
  type: z.enum(["gpu", "disk", "bwd", "bwu"]),
  source: z.null(),
  description: z.string(),
  amount: z.number(),
  metadata: z.object({}),
  items: z.array(z.never()),
});
interface Row {
  start: number;
  end: number;
  type: string;
  source: string;
  description: string;
  amount: number;
  metadata: Record<string, unknown>;
  items: (Row | z.infer<typeof Item>)[];
}
const RowSchema: z.ZodType<Row> = z.object({
  start: z.int(),
  end: z.int(),
  type: z.string(),
  source: z.string(),
  description: z.string(),
  amount: z.number(),
  metadata: z.record(z.string(), z.unknown()),
  items: z.array(z.union([Item, z.lazy(() => RowSchema)])),
});
const PageSchema = z.strictObject({
  success: z.literal(true),
  count: z.int(),
  total: z.int(),
  next_token: z.string().nullable(),
  results: z.array(RowSchema),
});

describe("the emulator's bills", () => {
  let emulator: TestEmulator;
  /** A UTC midnight after now: the tests' day, whose first hour starts each scenario. */
  let day: number;

  const start = async (options: TestEmulatorOptions = {}) => {
    emulator = await startTestEmulator({ instanceAsks: [ASK], bootPolls: 0, ...options });
    day = (Math.floor((await emulator.clock()).nowSeconds / DAY) + 1) * DAY;
    await emulator.clock({ frozen: true, nowSeconds: day + HOUR });
  };
  afterEach(async () => {
    await emulator.close();
  });

  const advance = (seconds: number) => emulator.clock({ advanceSeconds: seconds });
  const rent = async (body: object = {}) => {
    const reply = await emulator.call("PUT", `/api/v0/asks/${String(ASK.id)}/`, {
      client_id: "me",
      image: "pytorch/pytorch",
      disk: BILLED_DISK_GB,
      label: "trainer",
      ...body,
    });
    return z.object({ new_contract: z.int() }).parse(reply.body).new_contract;
  };
  /** The query string: `select_filters` as JSON (text as given), with other parameters. */
  const query = (filters: unknown, params: Record<string, string> = {}) =>
    new URLSearchParams({
      select_filters: typeof filters === "string" ? filters : JSON.stringify(filters),
      ...params,
    }).toString();
  const charges = async (filters: object = { day: { gte: day, lte: day } }, params = {}) => {
    const reply = await emulator.call("GET", `/api/v0/charges/?${query(filters, params)}`);
    expect(reply.status).toBe(200);
    return PageSchema.parse(reply.body);
  };
  const item = (type: string, hours: number, rate: number, rateText: string) => ({
    start: day,
    end: day,
    type,
    source: null,
    description: `${hours.toFixed(3)} hours at $${rateText}/hour`,
    amount: round3(hours * rate),
    metadata: {},
    items: [],
  });
  const traffic = () => [
    { start: day, end: day, type: "bwd", source: null, description: "0.000 GB at $0.007/GB", amount: 0, metadata: {}, items: [] },
    { start: day, end: day, type: "bwu", source: null, description: "0.000 GB at $0.011/GB", amount: 0, metadata: {}, items: [] },
  ]; // prettier-ignore

  it("bills an instance that ran, was stopped and destroyed: GPU while running, disk throughout", async () => {
    await start();
    const id = await rent();
    await advance(2 * HOUR);
    await emulator.call("PUT", `/api/v0/instances/${String(id)}/`, { state: "stopped" });
    await advance(3 * HOUR);
    await emulator.call("DELETE", `/api/v0/instances/${String(id)}/`);
    await advance(10 * HOUR); // gone: billed nothing more

    const page = await charges();
    expect(page).toEqual({
      success: true,
      count: 1,
      total: 1,
      next_token: null,
      results: [
        {
          start: day,
          end: day,
          type: "instance",
          source: `instance-${String(id)}`,
          description: `Instance ${String(id)} Charges - 1 day`,
          amount: round3(2 * GPU + 5 * DISK),
          metadata: { label: "trainer" },
          items: [item("gpu", 2, GPU, "0.498"), item("disk", 5, DISK, "0.010"), ...traffic()],
        },
      ],
    });
    expect(page.results[0]?.amount).toBe(1.046);
  });

  it("bills no GPU while an instance provisions and loads, and none after it is started again until it runs", async () => {
    await start({ bootPolls: 2 });
    const id = await rent();
    await advance(60);
    expect((await showInstance(emulator.call, id))?.actual_status).toBeNull();
    await advance(60);
    expect((await showInstance(emulator.call, id))?.actual_status).toBe("running");
    await advance(HOUR);
    await emulator.call("PUT", `/api/v0/instances/${String(id)}/`, { state: "stopped" });
    await advance(HOUR);
    await emulator.call("PUT", `/api/v0/instances/${String(id)}/`, { state: "running" });
    await advance(600); // loading again: not billed
    await showInstance(emulator.call, id);
    await advance(600);
    expect((await showInstance(emulator.call, id))?.actual_status).toBe("running");
    await advance(HOUR);

    // Still running: billed up to now. Disk since the create: 120 s + 3 h + 1200 s.
    const [row] = (await charges()).results;
    const diskHours = (120 + 3 * HOUR + 1200) / HOUR;
    expect(row?.items.slice(0, 2)).toEqual([
      item("gpu", 2, GPU, "0.498"),
      item("disk", diskHours, DISK, "0.010"),
    ]);
    expect(row?.amount).toBe(round3(2 * GPU + diskHours * DISK));
  });

  it("bills a boot in wall-clock time from the moment it ran, though nothing looked at it", async () => {
    await start({ bootSeconds: 90 });
    const id = await rent();
    await advance(HOUR); // no poll: it reached running at 90 s on its own
    await emulator.call("PUT", `/api/v0/instances/${String(id)}/`, { state: "stopped" });
    await advance(HOUR);
    await emulator.call("DELETE", `/api/v0/instances/${String(id)}/`);

    const [row] = (await charges()).results;
    const gpuHours = (HOUR - 90) / HOUR;
    expect(row?.items.slice(0, 2)).toEqual([
      item("gpu", gpuHours, GPU, "0.498"),
      item("disk", 2, DISK, "0.010"),
    ]);
  });

  it("bills no storage once a machine is offline, and a new bid at its own rate", async () => {
    await start();
    await emulator.queueBoots([{ status: "offline", afterPolls: 1 }]);
    const offline = await rent();
    await advance(600);
    expect((await showInstance(emulator.call, offline))?.actual_status).toBe("offline");
    const bidder = await rent({ price: 0.3 }); // dph_base 0.3 − 0.002
    await advance(HOUR);
    await emulator.call("PUT", `/api/v0/instances/bid_price/${String(bidder)}/`, {
      client_id: "me",
      price: 0.4,
    });
    await advance(HOUR);
    await emulator.call("DELETE", `/api/v0/instances/${String(offline)}/`);
    await emulator.call("DELETE", `/api/v0/instances/${String(bidder)}/`);

    const rows = (await charges()).results;
    expect(rows.map((r) => r.source)).toEqual([
      `instance-${String(bidder)}`,
      `instance-${String(offline)}`,
    ]);
    expect(rows[1]?.items.slice(0, -2)).toEqual([item("disk", 600 / HOUR, DISK, "0.010")]);
    expect(rows[0]?.items.slice(0, -2)).toEqual([
      item("gpu", 1, 0.298, "0.298"),
      item("gpu", 1, 0.398, "0.398"),
      item("disk", 2, DISK, "0.010"),
    ]);
  });

  it("bills a volume's storage while it exists, and keeps the bill of what is gone, restarts too", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpucloud-billing-"));
    const stateFile = path.join(dir, "state.json");
    await start({ stateFile });
    // Seeded ask 21001: $0.10/GB-month; 72 GB: $0.01/h.
    const made = await emulator.call("PUT", "/api/v0/volumes/", {
      id: 21001,
      size: 72,
      name: "data",
    });
    const volumeId = Number(
      z.object({ volume_name: z.string() }).parse(made.body).volume_name.slice(2),
    );
    await advance(3 * HOUR);
    expect((await emulator.call("DELETE", `/api/v0/volumes/?id=${String(volumeId)}`)).status).toBe(
      200,
    );
    await advance(HOUR);
    expect((await charges()).results).toEqual([
      {
        start: day,
        end: day,
        type: "volume",
        source: `volume-${String(volumeId)}`,
        description: `Volume ${String(volumeId)} Charges - 1 day`,
        amount: 0.03,
        metadata: { label: "data" },
        items: [item("disk", 3, DISK, "0.010")],
      },
    ]);
    // The bills are kept in the state file; a restarted emulator's clock is the wall clock.
    const billed = (await charges()).results;
    await emulator.close();
    emulator = await startTestEmulator({ stateFile });
    expect((await charges()).results).toEqual(billed);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("counts charges by UTC day: the range picks days, a row spans its first and last", async () => {
    await start();
    await advance(22 * HOUR + 1800); // 23:30
    const id = await rent();
    await advance(HOUR + 1800); // 01:00 the next day
    await emulator.call("DELETE", `/api/v0/instances/${String(id)}/`);

    const nextDay = day + DAY;
    const [second] = (await charges({ day: { gte: nextDay, lte: nextDay } })).results;
    expect(second).toMatchObject({ start: nextDay, end: nextDay, amount: round3(GPU + DISK) });
    const [both] = (await charges({ day: { gte: day, lte: nextDay + 60 } })).results;
    expect(both).toMatchObject({
      start: day,
      end: nextDay,
      description: `Instance ${String(id)} Charges - 2 days`,
      amount: round3(1.5 * (GPU + DISK)),
    });
    expect(both?.items[0]).toMatchObject({
      start: day,
      end: nextDay,
      description: "1.500 hours at $0.498/hour",
    });
    expect((await charges({ day: { gte: day - DAY, lte: day - 1 } })).results).toEqual([]);
  });

  it("pages by contract, newest first unless told, following next_token; filters by type", async () => {
    await start();
    const ids = [await rent(), await rent(), await rent()];
    const volume = await emulator.call("PUT", "/api/v0/volumes/", { id: 21001, size: 10 });
    expect(volume.status).toBe(200);
    await advance(HOUR);
    const all = async (params: Record<string, string>, filters?: object) => {
      const sources: string[][] = [];
      let token: string | null | undefined;
      do {
        const page = await charges(filters, {
          ...params,
          ...(token ? { after_token: token } : {}),
        });
        expect(page.total).toBe(filters ? 3 : 4);
        expect(page.count).toBe(page.results.length);
        sources.push(page.results.map((r) => r.source));
        token = page.next_token;
      } while (token);
      return sources;
    };
    const byId = ids.map((id) => `instance-${String(id)}`);
    expect(await all({ limit: "2" })).toEqual([
      [byId[2], byId[1]],
      [byId[0], "volume-5001"],
    ]);
    expect(await all({ limit: "3", latest_first: "false" })).toEqual([
      ["volume-5001", byId[0], byId[1]],
      [byId[2]],
    ]);
    const instancesOnly = { day: { gte: day, lte: day }, type: { in: ["instance"] } };
    expect(await all({ limit: "500" }, instancesOnly)).toEqual([[byId[2], byId[1], byId[0]]]);
  });

  it("refuses a query the description does not give: a missing range, a bad token, filter or limit", async () => {
    await start();
    for (const filters of [{}, { day: { gte: day } }]) {
      const reply = await emulator.call("GET", `/api/v0/charges/?${query(filters)}`);
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: {
          success: false,
          msg: "Must provide both 'day' gte and lte filters for instance charges",
        },
      });
    }
    const range = { day: { gte: day, lte: day } };
    const bad = async (filters: object, params: Record<string, string>) =>
      errorOf(await emulator.call("GET", `/api/v0/charges/?${query(filters, params)}`));
    expect(await bad(range, { after_token: "bm90IGEgdG9rZW4=" })).toEqual({
      status: 400,
      error: "invalid_token",
    });
    expect(await bad({ ...range, type: { in: ["gpu"] } }, {})).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect(await bad({ ...range, label: { eq: "x" } }, {})).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect(await bad(range, { limit: "0" })).toEqual({ status: 400, error: "invalid_args" });
    expect(await bad(range, { format: "csv" })).toEqual({ status: 400, error: "invalid_args" });
  });

  it("needs billing_read", async () => {
    await start();
    await emulator.addKey("instances-only", { api: { instance_read: {}, instance_write: {} } });
    await emulator.addKey("billing", { api: { billing_read: {} } });
    const path = `/api/v0/charges/?${query({ day: { gte: day, lte: day } })}`;
    expect(errorOf(await emulator.call("GET", path, undefined, "instances-only"))).toEqual({
      status: 403,
      error: "forbidden",
    });
    expect((await emulator.call("GET", path, undefined, "billing")).status).toBe(200);
    const invoices = `/api/v1/invoices/?${query({ when: { gte: 0, lte: day } })}`;
    expect((await emulator.call("GET", invoices, undefined, "instances-only")).status).toBe(403);
  });

  it("shows serverless workers in their endpoint and worker group in the tree format", async () => {
    await start({ instanceAsks: undefined, market: false });
    const endpointId = await createEndpoint(emulator.call, { cold_workers: 1 });
    const groupId = z.object({ id: z.int() }).parse(
      (
        await emulator.call("POST", "/api/v0/workergroups/", {
          endpoint_id: endpointId,
          search_params: "gpu_name=RTX_4090",
        })
      ).body,
    ).id;
    const solo = await emulator.call("PUT", "/api/v0/asks/31001/", { image: "img", disk: 10 });
    expect(solo.status).toBe(200);
    await advance(HOUR);

    const table = (await charges()).results;
    expect(table.map((r) => [r.type, r.metadata])).toEqual([
      ["instance", {}],
      ["instance", { endpoint_id: endpointId, workergroup_id: groupId }],
    ]);
    const serverless = { day: { gte: day, lte: day }, type: { in: ["serverless"] } };
    expect((await charges(serverless)).results).toEqual([table[1]]);

    const [endpoint] = (await charges(serverless, { format: "tree" })).results;
    expect(endpoint).toMatchObject({
      type: "serverless",
      source: `endpoint-${String(endpointId)}`,
      amount: table[1]?.amount,
      items: [
        {
          type: "serverless",
          source: `workergroup-${String(groupId)}`,
          metadata: { endpoint_id: endpointId, workergroup_id: groupId },
          items: [table[1]],
        },
      ],
    });
  });

  it("serves the invoices a test records, by date range, service and order", async () => {
    await start();
    await emulator.addInvoice({ amountDollars: -25, createdAtSeconds: day - DAY });
    await emulator.addInvoice({
      amountDollars: -100,
      createdAtSeconds: day + 60,
      description: "Manual Billing",
    });
    await emulator.addInvoice({
      amountDollars: 40,
      type: "transfer",
      service: "transfer",
      source: "team@example.com",
      createdAtSeconds: day + 120,
      paidAtSeconds: null,
    });
    const invoices = async (filters: unknown, params: Record<string, string> = {}) =>
      (await emulator.call("GET", `/api/v1/invoices/?${query(filters, params)}`)).body;

    expect(await invoices({ when: { gte: day, lte: day + DAY } })).toEqual({
      success: true,
      count: 2,
      total: 2,
      next_token: null,
      results: [
        { start: day + 120, end: null, type: "transfer", source: "team@example.com", description: "Credit purchase", amount: 40, metadata: { invoice_id: 3, service: "transfer" }, items: [] },
        { start: day + 60, end: day + 60, type: "credit", source: "stripe", description: "Manual Billing", amount: -100, metadata: { invoice_id: 2, service: "stripe_payments" }, items: [] },
      ],
    }); // prettier-ignore
    const ids = (body: unknown) =>
      z
        .object({ results: z.array(z.object({ metadata: z.object({ invoice_id: z.int() }) })) })
        .parse(body)
        .results.map((r) => r.metadata.invoice_id);
    const everything = { when: { gt: 0, lt: day + DAY } };
    expect(
      ids(
        await invoices(everything, {
          order_by: JSON.stringify([{ col: "amount_cents", dir: "asc" }]),
        }),
      ),
    ).toEqual([2, 1, 3]);
    expect(
      ids(
        await invoices(
          { ...everything, service: { in: ["stripe_payments"] } },
          { latest_first: "false" },
        ),
      ),
    ).toEqual([1, 2]);

    const first = z
      .object({ next_token: z.string() })
      .parse(await invoices(everything, { limit: "2" }));
    expect(JSON.parse(Buffer.from(first.next_token, "base64").toString())).toMatchObject({
      os_page: 0,
    });
    expect(ids(await invoices(everything, { limit: "2", after_token: first.next_token }))).toEqual([
      1,
    ]);

    for (const filters of [{}, { when: { gte: 0 } }, "not json"]) {
      const reply = await emulator.call("GET", `/api/v1/invoices/?${query(filters)}`);
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 200,
        body: {
          success: false,
          error: "Invalid date range",
          count: 0,
          total: 0,
          results: [],
          next_token: null,
        },
      });
    }
  });

  it("keeps a clock that tests freeze and move, never back", async () => {
    await start();
    expect(await emulator.clock()).toEqual({ nowSeconds: day + HOUR, frozen: true });
    expect(await advance(30)).toEqual({ nowSeconds: day + HOUR + 30, frozen: true });
    const back = await emulator.control("PUT", "/_emulator/clock", { nowSeconds: day });
    expect(back.status).toBe(400);
    const running = await emulator.clock({ frozen: false });
    expect(running.frozen).toBe(false);
    expect(running.nowSeconds).toBeGreaterThanOrEqual(day + HOUR + 30);
  });
});
