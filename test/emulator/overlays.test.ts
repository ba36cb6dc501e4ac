import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, createInstance, errorOf, pollUntilRunning } from "./helpers";

/** Ask 31003 is on machine 52011, the seeded cluster 7; ask 31001 is in no cluster. */
const IN_CLUSTER = 31003;
const OUTSIDE = 31001;

const OverlayListSchema = z.array(
  z.strictObject({
    overlay_id: z.int(),
    name: z.string(),
    internal_subnet: z.string(),
    cluster_id: z.int(),
    instances: z.array(z.int()),
  }),
);
const ShownSchema = z.object({
  instances: z.looseObject({
    local_ipaddrs: z.string().nullable(),
    extra_env: z.array(z.tuple([z.string(), z.string()])),
  }),
});

describe("overlay networks (/api/v0/overlay/)", () => {
  let emulator: TestEmulator;
  beforeEach(async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY });
  });
  afterEach(async () => {
    await emulator.close();
  });

  const overlays = async () =>
    OverlayListSchema.parse((await emulator.call("GET", "/api/v0/overlay/")).body);
  const createOverlay = (body: object) => emulator.call("POST", "/api/v0/overlay/", body);
  const join = (name: string, instanceId: number) =>
    emulator.call("PUT", "/api/v0/overlay/", { name, instance_id: instanceId });
  const rent = (askId: number, body: object = {}) =>
    emulator.call("PUT", `/api/v0/asks/${String(askId)}/`, {
      client_id: "me",
      image: "pytorch/pytorch:latest",
      disk: 16,
      ...body,
    });
  const rentedId = async (askId: number, body: object = {}) => {
    const reply = await rent(askId, body);
    expect(reply.status).toBe(200);
    return z.object({ new_contract: z.int() }).parse(reply.body).new_contract;
  };
  const localAddresses = async (id: number) => {
    await pollUntilRunning(emulator.call, id);
    const reply = await emulator.call("GET", `/api/v0/instances/${String(id)}/?owner=me`);
    return ShownSchema.parse(reply.body).instances.local_ipaddrs?.trim().split(" ");
  };

  it("creates an overlay on a cluster of the market and lists it", async () => {
    const reply = await createOverlay({ cluster_id: 7, name: "training-net" });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      success: true,
      msg: "Overlay training-net created on cluster 7 (subnet 10.100.0.0/24).",
      overlay_id: 1,
    });
    await createOverlay({ cluster_id: 7, name: "second" });
    expect(await overlays()).toEqual([
      {
        overlay_id: 1,
        name: "training-net",
        internal_subnet: "10.100.0.0/24",
        cluster_id: 7,
        instances: [],
      },
      {
        overlay_id: 2,
        name: "second",
        internal_subnet: "10.101.0.0/24",
        cluster_id: 7,
        instances: [],
      },
    ]);
    const state = z
      .object({ overlays: z.array(z.looseObject({ name: z.string() })) })
      .parse((await emulator.control("GET", "/_emulator/state")).body);
    expect(state.overlays.map((o) => o.name)).toEqual(["training-net", "second"]);
  });

  it.each([
    [{ cluster_id: 8, name: "x" }, "cluster_id"],
    [{ cluster_id: 7 }, "name"],
    [{ name: "x" }, "cluster_id"],
    [{ cluster_id: "7", name: "x" }, "cluster_id"],
    [{ cluster_id: 7, name: "has space" }, "name"],
    [{ cluster_id: 7, name: "" }, "name"],
  ])("refuses to create %j with invalid_args naming %s", async (body, field) => {
    const reply = await createOverlay(body);
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect(reply.body).toMatchObject({ msg: expect.stringContaining(field) as unknown });
    expect(await overlays()).toEqual([]);
  });

  it("refuses a second overlay of the same name, on any cluster", async () => {
    await createOverlay({ cluster_id: 7, name: "net" });
    const again = await createOverlay({ cluster_id: 7, name: "net" });
    expect(errorOf(again)).toEqual({ status: 400, error: "invalid_args" });
    expect(again.body).toMatchObject({ msg: "name: an overlay named net already exists" });
    expect(await overlays()).toHaveLength(1);
  });

  it("joins the caller's instances on the cluster, each with an address shown in local_ipaddrs", async () => {
    await createOverlay({ cluster_id: 7, name: "net" });
    const a = await rentedId(IN_CLUSTER);
    const b = await rentedId(IN_CLUSTER);
    const joined = await join("net", a);
    expect(joined.body).toEqual({
      success: true,
      msg: `Instance ${String(a)} joined overlay net at 10.100.0.1.`,
    });
    expect((await join("net", b)).status).toBe(200);
    // Joining again changes nothing.
    expect((await join("net", a)).body).toMatchObject({
      msg: expect.stringContaining("10.100.0.1") as unknown,
    });
    expect((await overlays())[0]?.instances).toEqual([a, b]);
    expect(await localAddresses(a)).toEqual([
      "10.100.0.1",
      expect.stringMatching(/^10\.0\./),
      "172.17.0.1",
    ]);
    expect((await localAddresses(b))?.[0]).toBe("10.100.0.2");
  });

  it("refuses joins the service refuses", async () => {
    await createOverlay({ cluster_id: 7, name: "net" });
    await createOverlay({ cluster_id: 7, name: "other" });
    const outside = await rentedId(OUTSIDE);
    const inside = await rentedId(IN_CLUSTER);

    const notOnCluster = await join("net", outside);
    expect(errorOf(notOnCluster)).toEqual({ status: 400, error: "invalid_args" });
    expect(notOnCluster.body).toMatchObject({
      msg: `instance ${String(outside)} is on machine 41207, in no cluster; overlay net is on cluster 7`,
    });
    expect(errorOf(await join("nope", inside))).toEqual({ status: 404, error: "no_such_overlay" });
    expect(errorOf(await join("net", 999))).toEqual({ status: 404, error: "no_such_instance" });
    expect(errorOf(await emulator.call("PUT", "/api/v0/overlay/", { name: "net" }))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect((await join("net", inside)).status).toBe(200);
    expect(errorOf(await join("other", inside))).toEqual({ status: 400, error: "invalid_args" });

    // Private networking is for container instances only.
    await emulator.control("PUT", "/_emulator/user", { ssh_key: "ssh-ed25519 AAAA test" });
    const vm = await rentedId(IN_CLUSTER, { runtype: "vm" });
    expect(errorOf(await join("net", vm))).toEqual({ status: 400, error: "invalid_args" });
    expect((await overlays()).map((o) => o.instances)).toEqual([[inside], []]);
  });

  it.each([
    ["the official client's dict", { env: { A: "B", "-n net": "1" } }],
    ["the description's Docker-flag string", { env: "-e A=B -n net" }],
    ["a flag with its value", { env: { A: "B", "-n": "net" } }],
  ])("joins at create through %s", async (_name, body) => {
    await createOverlay({ cluster_id: 7, name: "net" });
    const id = await rentedId(IN_CLUSTER, body);
    expect((await overlays())[0]?.instances).toEqual([id]);
    expect((await localAddresses(id))?.[0]).toBe("10.100.0.1");
    const shown = ShownSchema.parse(
      (await emulator.call("GET", `/api/v0/instances/${String(id)}/?owner=me`)).body,
    );
    expect(shown.instances.extra_env).toContainEqual(["A", "B"]);
  });

  it.each([
    ["an unknown overlay", IN_CLUSTER, { env: { "-n nope": "1" } }],
    ["an ask outside the overlay's cluster", OUTSIDE, { env: { "-n net": "1" } }],
    ["two overlays", IN_CLUSTER, { env: { "-n net": "1", "-n other": "1" } }],
  ])("refuses a create naming %s, creating nothing", async (_name, askId, body) => {
    await createOverlay({ cluster_id: 7, name: "net" });
    await createOverlay({ cluster_id: 7, name: "other" });
    expect(errorOf(await rent(askId, body))).toEqual({ status: 400, error: "invalid_args" });
    const state = z
      .object({ instances: z.array(z.unknown()) })
      .parse((await emulator.control("GET", "/_emulator/state")).body);
    expect(state.instances).toEqual([]);
  });

  it("a destroyed instance leaves, and the next member takes its address", async () => {
    await createOverlay({ cluster_id: 7, name: "net" });
    const a = await rentedId(IN_CLUSTER, { env: { "-n net": "1" } });
    const b = await rentedId(IN_CLUSTER, { env: { "-n net": "1" } });
    expect((await emulator.call("DELETE", `/api/v0/instances/${String(a)}/`)).status).toBe(200);
    expect((await overlays())[0]?.instances).toEqual([b]);
    const c = await rentedId(IN_CLUSTER, { env: { "-n net": "1" } });
    expect((await localAddresses(c))?.[0]).toBe("10.100.0.1");
    expect((await localAddresses(b))?.[0]).toBe("10.100.0.2");
  });

  it("gives the first instance whose create joins the subnet's first host before it boots; the fault overlayAddressSkipped gives the next free one", async () => {
    await createOverlay({ cluster_id: 7, name: "net" });
    const first = await rentedId(IN_CLUSTER, { env: { "-n net": "1" } });
    // Given when the create is answered: the emulator's state holds it while the boot goes on.
    const joined = (await emulator.state()).instances.find((i) => i.id === first);
    expect(joined?.overlay).toEqual({
      overlayId: expect.any(Number) as unknown,
      address: "10.100.0.1",
    });
    await createOverlay({ cluster_id: 7, name: "skipping" });
    await emulator.setFaults({ overlayAddressSkipped: { next: 1 } });
    const skipped = await rentedId(IN_CLUSTER, { env: { "-n skipping": "1" } });
    const next = await rentedId(IN_CLUSTER, { env: { "-n skipping": "1" } });
    expect((await localAddresses(skipped))?.[0]).toBe("10.101.0.2");
    expect((await localAddresses(next))?.[0]).toBe("10.101.0.1");
    await emulator.clearFaults();
  });

  it("deletes an overlay by id or by name, taking its members off it; they keep running", async () => {
    await createOverlay({ cluster_id: 7, name: "net" });
    await createOverlay({ cluster_id: 7, name: "other" });
    const member = await rentedId(IN_CLUSTER, { env: { "-n net": "1" } });
    const deleted = await emulator.call("DELETE", "/api/v0/overlay/", { overlay_name: "net" });
    expect(deleted.body).toEqual({
      success: true,
      msg: `Overlay net deleted; instances removed from it: [${String(member)}].`,
    });
    expect(await localAddresses(member)).toEqual([expect.stringMatching(/^10\.0\./), "172.17.0.1"]);
    expect((await emulator.call("DELETE", "/api/v0/overlay/", { overlay_id: 2 })).status).toBe(200);
    expect(await overlays()).toEqual([]);
    expect(errorOf(await emulator.call("DELETE", "/api/v0/overlay/", { overlay_id: 2 }))).toEqual({
      status: 404,
      error: "no_such_overlay",
    });
    expect(
      errorOf(await emulator.call("DELETE", "/api/v0/overlay/", { overlay_name: null })),
    ).toEqual({ status: 400, error: "invalid_args" });
    // The member can join a new overlay.
    await createOverlay({ cluster_id: 7, name: "net" });
    expect((await join("net", member)).status).toBe(200);
  });

  it("takes the older official client's api_key query parameter, never logging it", async () => {
    const reply = await emulator.call(
      "POST",
      `/api/v0/overlay/?api_key=${API_KEY}`,
      { cluster_id: 7, name: "net" },
      null,
    );
    expect(reply.status).toBe(200);
    const log = JSON.stringify((await emulator.control("GET", "/_emulator/requests")).body);
    expect(log).toContain("/api/v0/overlay/?api_key=REDACTED");
    expect(log).not.toContain(API_KEY);
    expect(
      errorOf(await emulator.call("GET", "/api/v0/overlay/?api_key=wrong", undefined, null)),
    ).toEqual({
      status: 401,
      error: "unauthorized",
    });
  });

  it("needs user_read to list and user_write to change, as the service's scopes say", async () => {
    await emulator.control("POST", "/_emulator/keys", {
      key: "reader",
      permissions: { api: { user_read: {}, instance_read: {}, instance_write: {} } },
    });
    expect((await emulator.call("GET", "/api/v0/overlay/", undefined, "reader")).status).toBe(200);
    const write = await emulator.call(
      "POST",
      "/api/v0/overlay/",
      { cluster_id: 7, name: "n" },
      "reader",
    );
    expect(errorOf(write)).toEqual({ status: 403, error: "forbidden" });
  });

  it("limits overlay requests under documented rate limits; a reset empties overlays", async () => {
    await emulator.close();
    emulator = await startTestEmulator({ apiKey: API_KEY, rateLimits: "documented" });
    expect((await emulator.call("GET", "/api/v0/overlay/")).status).toBe(200);
    expect((await emulator.call("GET", "/api/v0/overlay/")).status).toBe(429);
    await createOverlay({ cluster_id: 7, name: "net" });
    await createInstance(emulator.call, { env: {} });
    await emulator.control("POST", "/_emulator/reset");
    const state = z
      .object({ overlays: z.array(z.unknown()), nextIds: z.looseObject({ overlay: z.int() }) })
      .parse((await emulator.control("GET", "/_emulator/state")).body);
    expect(state).toMatchObject({ overlays: [], nextIds: { overlay: 1 } });
  });
});
