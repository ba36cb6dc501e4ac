import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { errorOf } from "./helpers";

/** The seeded cluster 7 (machine 52011, ask 31003) lists network-volume ask 25001. */
const NETWORK_ASK = 25001;
const IN_CLUSTER = 31003;
const OUTSIDE = 31001;

/** What the official client's `search network-volumes` sends by default. */
const CLIENT_QUERY = {
  verified: { eq: true },
  external: { eq: false },
  disk_space: { gte: 1 },
  order: [["score", "desc"]],
  allocated_storage: 1.0,
};

const OfferSchema = z.looseObject({
  id: z.int(),
  cluster_id: z.int(),
  disk_space: z.number(),
  storage_cost: z.number(),
});
const VolumesSchema = z.object({
  volumes: z.array(
    z.looseObject({
      id: z.int(),
      name: z.string(),
      label: z.string().nullable(),
      cluster_id: z.int().nullable(),
      machine_id: z.int().nullable(),
      instances: z.array(z.int()),
    }),
  ),
});

describe("network volumes", () => {
  let emulator: TestEmulator;
  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  const search = async (query: object) => {
    const reply = await emulator.call("POST", "/api/v0/network_volumes/search/", query);
    expect(reply.status).toBe(200);
    return z.object({ offers: z.array(OfferSchema) }).parse(reply.body).offers;
  };
  const create = (body: object) => emulator.call("PUT", "/api/v0/network_volumes/", body);
  const volumes = async (type?: string) =>
    VolumesSchema.parse(
      (await emulator.call("GET", `/api/v0/volumes/?owner=me${type ? `&type=${type}` : ""}`)).body,
    ).volumes;
  const rent = (askId: number, body: object) =>
    emulator.call("PUT", `/api/v0/asks/${String(askId)}/`, { image: "img", disk: 16, ...body });
  const rentedId = async (askId: number, body: object) => {
    const reply = await rent(askId, body);
    expect(reply.status).toBe(200);
    return z.object({ new_contract: z.int() }).parse(reply.body).new_contract;
  };

  it("searches the clusters' offers with the official client's query, as it shows them", async () => {
    const [offer, ...others] = await search(CLIENT_QUERY);
    expect(others).toEqual([]);
    expect(offer).toEqual({
      id: NETWORK_ASK,
      ask_contract_id: NETWORK_ASK,
      cluster_id: 7,
      machine_id: null,
      host_id: 20534,
      disk_space: 1000,
      storage_cost: 0.12,
      // 1 GB at $0.12 per GB-month, by the hour.
      storage_total_cost: 0.000167,
      inet_up: 3012.4,
      inet_down: 3521.9,
      reliability: 0.9991,
      reliability2: 0.9991,
      verification: "verified",
      external: false,
      geolocation: "Hesse, DE",
      duration: expect.any(Number) as unknown,
      start_date: 1764547200,
      end_date: 1893456000,
      nw_disk_min_bw: 850.5,
      nw_disk_max_bw: 2410.2,
      nw_disk_avg_bw: 1630.8,
      score: expect.any(Number) as unknown,
    });
    expect(await search({ cluster_id: { eq: "7" }, geolocation: { eq: "DE" } })).toHaveLength(1);
    expect(await search({ cluster_id: { eq: 8 } })).toEqual([]);
    expect(await search({ cuda_vers: { gte: 12 } })).toEqual([]);
    const unknown = await emulator.call("POST", "/api/v0/network_volumes/search/", { nope: {} });
    expect(errorOf(unknown)).toEqual({ status: 400, error: "invalid_args" });
  });

  it("lists the clusters of a generated market, each with its network disk", async () => {
    await emulator.close();
    emulator = await startTestEmulator({ market: { seed: 1 } });
    const offers = await search({ limit: 100 });
    const clusters = new Set(
      z
        .object({ offers: z.array(z.object({ cluster_id: z.int().nullable() })) })
        .parse(
          (await emulator.call("POST", "/api/v0/bundles/", { verified: {}, limit: 1000 })).body,
        )
        .offers.flatMap((o) => (o.cluster_id === null ? [] : [o.cluster_id])),
    );
    expect(new Set(offers.map((o) => o.cluster_id))).toEqual(clusters);
  });

  it("creates volumes from an ask while it has room, and lists them by type", async () => {
    const first = await create({ id: NETWORK_ASK, size: 600, name: "datasets" });
    expect(first.body).toEqual({ success: true, volume_name: "V.5001" });
    expect((await search(CLIENT_QUERY))[0]?.disk_space).toBe(400);
    const tooBig = await create({ id: NETWORK_ASK, size: 401 });
    expect(errorOf(tooBig)).toEqual({ status: 400, error: "invalid_args" });
    expect(tooBig.body).toMatchObject({ msg: expect.stringContaining("400 GB left") as unknown });
    expect(errorOf(await create({ id: 21001, size: 10 }))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect(errorOf(await create({ id: NETWORK_ASK, size: 0 }))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    // A local volume beside it, from the same id counter.
    await emulator.call("PUT", "/api/v0/volumes/", { id: 21003, size: 20 });

    expect(
      (await volumes("network_volume")).map((v) => [v.id, v.label, v.cluster_id, v.machine_id]),
    ).toEqual([[5001, "datasets", 7, null]]);
    expect((await volumes("local_volume")).map((v) => [v.id, v.cluster_id, v.machine_id])).toEqual([
      [5002, 7, 52011],
    ]);
    expect((await volumes("all_volume")).map((v) => v.id)).toEqual([5001, 5002]);
    expect((await volumes()).map((v) => v.id)).toEqual([5001, 5002]);
    const state = z
      .object({ networkVolumes: z.array(z.looseObject({ id: z.int(), sizeGb: z.int() })) })
      .parse((await emulator.control("GET", "/_emulator/state")).body);
    expect(state.networkVolumes.map((v) => [v.id, v.sizeGb])).toEqual([[5001, 600]]);
  });

  it.each([
    ["a -v env entry by name", { env: { "-v V.5001:/data": "1" } }],
    ["a -v env entry by the name given at create", { env: { "-v datasets:/data": "1" } }],
    ["the Docker-flag string", { env: "-e A=B -v V.5001:/data" }],
    ["volume_info", { volume_info: { create_new: false, volume_id: 5001, mount_path: "/data" } }],
  ])("mounts on a machine of its cluster through %s", async (_name, body) => {
    await create({ id: NETWORK_ASK, size: 100, name: "datasets" });
    const id = await rentedId(IN_CLUSTER, body);
    const shown = await emulator.call("GET", `/api/v0/instances/${String(id)}/?owner=me`);
    expect(shown.body).toMatchObject({
      instances: { volume_info: [{ volume_id: 5001, name: "V.5001", mount_path: "/data" }] },
    });
    expect((await volumes())[0]?.instances).toEqual([id]);
  });

  it.each([
    ["from a machine outside its cluster", OUTSIDE, { env: { "-v V.5001:/data": "1" } }],
    [
      "through volume_info outside its cluster",
      OUTSIDE,
      { volume_info: { create_new: false, volume_id: 5001, mount_path: "/data" } },
    ],
    ["an unknown volume", IN_CLUSTER, { env: { "-v V.9999:/data": "1" } }],
    ["no mount path", IN_CLUSTER, { env: { "-v V.5001": "1" } }],
    ["a relative mount path", IN_CLUSTER, { env: { "-v V.5001:data": "1" } }],
  ])("refuses a mount (%s), creating nothing", async (_name, askId, body) => {
    await create({ id: NETWORK_ASK, size: 100 });
    const reply = await rent(askId, body);
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect((await volumes())[0]?.instances).toEqual([]);
  });

  it("names the cluster when a mount is refused", async () => {
    await create({ id: NETWORK_ASK, size: 100 });
    const reply = await rent(OUTSIDE, { env: { "-v V.5001:/data": "1" } });
    expect(reply.body).toMatchObject({
      msg: 'env["-v V.5001:/data"]: network volume V.5001 is on cluster 7; ask 31001 is on machine 41207, in no cluster',
    });
  });

  it("refuses to delete a volume an instance mounts, running or stopped; deletes it once none does", async () => {
    await create({ id: NETWORK_ASK, size: 100 });
    const id = await rentedId(IN_CLUSTER, { env: { "-v V.5001:/data": "1" } });
    await emulator.call("PUT", `/api/v0/instances/${String(id)}/`, { state: "stopped" });
    const refused = await emulator.call("DELETE", "/api/v0/volumes/?id=5001");
    expect(errorOf(refused)).toEqual({ status: 400, error: "invalid_args" });
    expect(refused.body).toMatchObject({ msg: expect.stringContaining(String(id)) as unknown });
    expect(await volumes()).toHaveLength(1);
    await emulator.call("DELETE", `/api/v0/instances/${String(id)}/`);
    expect((await emulator.call("DELETE", "/api/v0/volumes/?id=5001")).body).toEqual({
      success: true,
    });
    expect(await volumes()).toEqual([]);
    expect((await search(CLIENT_QUERY))[0]?.disk_space).toBe(1000);
  });

  it("mounts a local volume through -v on its own machine only, and keeps it while mounted", async () => {
    await emulator.call("PUT", "/api/v0/volumes/", { id: 21001, size: 20 });
    const elsewhere = await rent(31002, { env: { "-v V.5001:/data": "1" } });
    expect(elsewhere.body).toMatchObject({
      msg: 'env["-v V.5001:/data"]: volume V.5001 is on machine 41207; ask 31002 is on machine 38820',
    });
    const id = await rentedId(OUTSIDE, { env: { "-v V.5001:/data": "1" } });
    expect((await volumes())[0]?.instances).toEqual([id]);
    expect(errorOf(await emulator.call("DELETE", "/api/v0/volumes/", { id: 5001 }))).toEqual({
      status: 400,
      error: "invalid_args",
    });
  });

  it("keeps network volumes, mounts and overlays across a restart with a state file", async () => {
    await emulator.close();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpucloud-clusters-"));
    const stateFile = path.join(dir, "state.json");
    try {
      emulator = await startTestEmulator({ stateFile });
      await emulator.call("POST", "/api/v0/overlay/", { cluster_id: 7, name: "net" });
      await create({ id: NETWORK_ASK, size: 100 });
      const id = await rentedId(IN_CLUSTER, { env: "-n net -v V.5001:/data" });
      await emulator.close();
      emulator = await startTestEmulator({ stateFile });
      expect((await emulator.call("GET", "/api/v0/overlay/")).body).toMatchObject([
        { name: "net", instances: [id] },
      ]);
      expect((await volumes("network_volume"))[0]?.instances).toEqual([id]);
      expect((await search(CLIENT_QUERY))[0]?.disk_space).toBe(900);
    } finally {
      await emulator.close();
      fs.rmSync(dir, { recursive: true, force: true });
      emulator = await startTestEmulator();
    }
  });

  it("searches as misc and creates as instance_write, as the service's scopes say", async () => {
    await emulator.control("POST", "/_emulator/keys", {
      key: "instances-only",
      permissions: { api: { instance_read: {}, instance_write: {} } },
    });
    const searched = await emulator.call(
      "POST",
      "/api/v0/network_volumes/search/",
      {},
      "instances-only",
    );
    expect(errorOf(searched)).toEqual({ status: 403, error: "forbidden" });
    const created = await emulator.call(
      "PUT",
      "/api/v0/network_volumes/",
      { id: NETWORK_ASK, size: 10 },
      "instances-only",
    );
    expect(created.status).toBe(200);
  });
});
