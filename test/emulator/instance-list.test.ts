import { z } from "zod";
import { type Call, type TestEmulator, startTestEmulator } from "../support/emulator";
import { createInstance, errorOf, showInstance } from "./helpers";

const PageSchema = z.object({
  success: z.literal(true),
  instances_found: z.int(),
  total_instances: z.int(),
  label_counts: z.record(z.string(), z.int()),
  next_token: z.string().nullable(),
  instances: z.array(z.record(z.string(), z.unknown())),
});

/** GET /api/v1/instances/ with each parameter JSON-encoded, as the official client sends them. */
async function listPage(call: Call, params: Record<string, unknown> = {}) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    query.set(name, typeof value === "string" ? value : JSON.stringify(value));
  }
  const reply = await call("GET", `/api/v1/instances/?${query.toString()}`);
  return { reply, page: PageSchema.safeParse(reply.body).data };
}

async function listed(call: Call, params: Record<string, unknown> = {}) {
  const { reply, page } = await listPage(call, params);
  if (!page) throw new Error(`not a page: ${reply.text}`);
  return page;
}

const idsOf = (page: z.infer<typeof PageSchema>) => page.instances.map((row) => row["id"]);

describe("instance list", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("pages 60 instances with after_token, listing each exactly once, and ends", async () => {
    const { call } = emulator;
    const created: number[] = [];
    for (let n = 0; n < 60; n++) created.push(await createInstance(call));

    const seen: unknown[] = [];
    const sizes: number[] = [];
    let token: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page: z.infer<typeof PageSchema> = await listed(
        call,
        token === null ? {} : { after_token: token },
      );
      expect(page.total_instances).toBe(60);
      expect(page.instances_found).toBe(page.instances.length);
      seen.push(...idsOf(page));
      sizes.push(page.instances.length);
      token = page.next_token;
      if (token === null) break;
    }

    expect(token).toBeNull();
    expect(sizes).toEqual([25, 25, 10]);
    expect(seen).toEqual(created);
  });

  it("counts a poll for each listed instance only", async () => {
    const { call } = emulator;
    for (let n = 0; n < 27; n++) await createInstance(call);
    const first = await listed(call);
    expect(first.instances[0]).toMatchObject({ id: 1000001, actual_status: null });
    expect(first.instances[24]).toMatchObject({ id: 1000025 });

    const again = await listed(call);
    expect(again.instances[0]).toMatchObject({ actual_status: "running" });
    // 1000026 was on no page: this show is its first poll.
    expect(await showInstance(call, 1000026)).toMatchObject({ actual_status: null });
  });

  it("still reads next_token as the cursor when after_token is absent", async () => {
    const { call } = emulator;
    for (let n = 0; n < 27; n++) await createInstance(call);
    const first = await listed(call);
    const second = await listed(call, { next_token: first.next_token });
    expect(idsOf(second)).toEqual([1000026, 1000027]);
    expect(second.next_token).toBeNull();
  });

  it("refuses a cursor it did not issue, or one from another ordering, with invalid_token", async () => {
    const { call } = emulator;
    for (let n = 0; n < 6; n++) await createInstance(call);
    const byId = await listed(call, { limit: 2 });
    expect(byId.next_token).not.toBeNull();
    for (const params of [
      { after_token: "bogus" },
      { after_token: Buffer.from('{"values":{"id":"x","label":1}}').toString("base64") },
      { after_token: byId.next_token, order_by: [{ col: "label", dir: "asc" }] },
    ]) {
      expect(errorOf((await listPage(call, params)).reply)).toEqual({
        status: 400,
        error: "invalid_token",
      });
    }
  });

  it("takes limit: at most 25, and 5 for zero or less", async () => {
    const { call } = emulator;
    for (let n = 0; n < 30; n++) await createInstance(call);
    expect((await listed(call, { limit: 10 })).instances).toHaveLength(10);
    expect((await listed(call, { limit: 0 })).instances).toHaveLength(5);
    expect((await listed(call, { limit: -3 })).instances).toHaveLength(5);
    expect((await listed(call, { limit: 100 })).instances).toHaveLength(25);
    expect(errorOf((await listPage(call, { limit: "many" })).reply)).toEqual({
      status: 400,
      error: "invalid_request",
    });
  });

  it("orders by a stored column, id breaking ties, across pages", async () => {
    const { call } = emulator;
    const labels = ["b", "a", "c", "a", "b", "a"];
    for (const label of labels) await createInstance(call, { label });

    const first = await listed(call, { order_by: [{ col: "label", dir: "desc" }], limit: 4 });
    const rest = await listed(call, {
      order_by: [{ col: "label", dir: "desc" }],
      limit: 4,
      after_token: first.next_token,
    });
    expect([...idsOf(first), ...idsOf(rest)]).toEqual([
      1000003, 1000001, 1000005, 1000002, 1000004, 1000006,
    ]);
    expect(rest.next_token).toBeNull();

    const descending = await listed(call, { order_by: [{ col: "id", dir: "desc" }] });
    expect(idsOf(descending)).toEqual([1000006, 1000005, 1000004, 1000003, 1000002, 1000001]);

    for (const col of ["dph_total", "no_such_column"]) {
      const { reply } = await listPage(call, { order_by: [{ col, dir: "asc" }] });
      expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_request" });
    }
  });

  it("filters with select_filters and counts what matches", async () => {
    const { call } = emulator;
    const a = await createInstance(call, { label: "train" });
    const b = await createInstance(call, { label: "train" });
    const c = await createInstance(call);
    const reply = await call("PUT", "/api/v0/asks/31002/", { image: "x", disk: 10 });
    const d = z.object({ new_contract: z.int() }).parse(reply.body).new_contract;
    await call("PUT", `/api/v0/instances/${String(b)}/`, { state: "stopped" });

    const trained = await listed(call, { select_filters: { label: { eq: "train" } } });
    expect(idsOf(trained)).toEqual([a, b]);
    expect(trained.total_instances).toBe(2);
    expect(trained.label_counts).toEqual({ train: 2 });

    const unlabelled = await listed(call, { select_filters: { label: { in: [null] } } });
    expect(idsOf(unlabelled)).toEqual([c, d]);
    expect(unlabelled.label_counts).toEqual({ "": 2 });

    const everyone = await listed(call);
    expect(everyone.label_counts).toEqual({ train: 2, "": 2 });

    expect(
      idsOf(await listed(call, { select_filters: { actual_status: { eq: "stopped" } } })),
    ).toEqual([b]);
    expect(
      idsOf(await listed(call, { select_filters: { actual_status: { notin: ["stopped"] } } })),
    ).toEqual([a, c, d]);
    expect(
      idsOf(await listed(call, { select_filters: { gpu_name: { in: ["RTX 3090"] } } })),
    ).toEqual([d]);
    expect(
      idsOf(await listed(call, { select_filters: { id: { gt: a, lte: c }, label: { neq: "x" } } })),
    ).toEqual([b, c]);

    for (const select_filters of [
      { dph_total: { lt: 1 } },
      { num_gpus: { eq: 1 } },
      { label: { like: "t%" } },
      { label: { in: "train" } },
      { label: "train" },
      "{not json",
    ]) {
      expect(errorOf((await listPage(call, { select_filters })).reply)).toEqual({
        status: 400,
        error: "invalid_request",
      });
    }
    expect(
      (await listPage(call, { select_filters: { dph_total: { lt: 1 } } })).reply.body,
    ).toMatchObject({
      msg: "Error in query parameters: dph_total is not a valid search key",
    });
  });

  it("returns only the select_cols asked for, unknown ones as null", async () => {
    const { call } = emulator;
    const id = await createInstance(call, { label: "cols" });
    const page = await listed(call, { select_cols: ["id", "label", "no_such_column"] });
    expect(page.instances).toEqual([{ id, label: "cols", no_such_column: null }]);
    expect((await listed(call, { select_cols: ["*"] })).instances[0]).toHaveProperty("start_date");
  });

  it("answers GET /api/v0/instances/filters/ with the filterable values, not as an instance", async () => {
    const { call } = emulator;
    expect((await call("GET", "/api/v0/instances/filters/")).body).toEqual({
      success: true,
      filters: [],
    });
    const a = await createInstance(call);
    await createInstance(call);
    await call("PUT", "/api/v0/asks/31003/", { image: "x", disk: 10 });
    await call("PUT", `/api/v0/instances/${String(a)}/`, { state: "stopped" });

    const reply = await call("GET", "/api/v0/instances/filters");
    expect(reply.status).toBe(200);
    const filters = z
      .object({ filters: z.array(z.record(z.string(), z.unknown())) })
      .parse(reply.body).filters;
    expect(filters).toHaveLength(3);
    expect(filters).toEqual(
      expect.arrayContaining([
        { actual_status: "stopped", verification: "verified", gpu_name: "RTX 4090" },
        { actual_status: null, verification: "verified", gpu_name: "RTX 4090" },
        { actual_status: null, verification: "verified", gpu_name: "A100 SXM4" },
      ]),
    );
  });
});
