import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { INSTANCE_ASK_ID, VOLUME_ASK_ID, errorOf } from "./helpers";

/** The description's VolumeOffer schema. */
const DOCUMENTED_VOLUME_OFFER_FIELDS = [
  "ask_contract_id", "bundle_id", "cpu_arch", "cpu_ghz", "cpu_name", "cuda_max_good", "disk_bw",
  "disk_name", "disk_space", "driver_vers", "driver_version", "duration", "end_date", "external",
  "geolocation", "geolocode", "gpu_arch", "host_id", "id", "inet_down", "inet_up", "machine_id",
  "mobo_name", "reliability", "reliability2", "reliability_mult", "start_date", "static_ip",
  "storage_cost", "storage_total_cost", "vericode", "verification", "vms_enabled",
]; // prettier-ignore

/** The description's Volume schema. */
const DOCUMENTED_VOLUME_FIELDS = [
  "instances", "driver_version", "cuda_max_good", "machine_id", "public_ipaddr", "reliability2",
  "host_id", "cpu_name", "mobo_name", "disk_space", "disk_name", "inet_up", "inet_down",
  "storage_total_cost", "os_version", "verification", "static_ip", "cpu_arch", "start_date", "id",
  "status",
]; // prettier-ignore

const VolumeOffersSchema = z.object({
  offers: z.array(
    z.looseObject({
      id: z.int(),
      disk_space: z.number(),
      storage_cost: z.number(),
      storage_total_cost: z.number(),
    }),
  ),
});

describe("volumes and volume offers", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("answers every documented volume-offer field for the seeded asks", async () => {
    const reply = await emulator.call("POST", "/api/v0/volumes/search/", {});
    const { offers } = VolumeOffersSchema.parse(reply.body);
    expect(offers.map((o) => [o.id, o.disk_space, o.storage_cost])).toEqual([
      [21001, 100, 0.1],
      [21002, 500, 0.08],
      [21003, 2000, 0.05],
    ]);
    for (const offer of offers) {
      expect(Object.keys(offer).sort()).toEqual(
        [...DOCUMENTED_VOLUME_OFFER_FIELDS, "score"].sort(),
      );
    }
    expect(offers[0]).toMatchObject({
      ask_contract_id: 21001,
      geolocation: "Oregon, US",
      verification: "verified",
      external: false,
      static_ip: true,
      // Priced for the 15 GB a create makes by default: 15 × $0.1 / 720 h.
      storage_total_cost: 0.002083,
    });
    expect((await emulator.call("POST", "/api/v0/volumes/search")).status).toBe(200);
  });

  it("accepts the official client's default volume query as it sends it", async () => {
    const reply = await emulator.call("POST", "/api/v0/volumes/search/", {
      verified: { eq: true },
      external: { eq: false },
      disk_space: { gte: 1 },
      cuda_vers: { gte: "12.3" },
      order: [["score", "desc"]],
      allocated_storage: 1.0,
    });
    const { offers } = VolumeOffersSchema.parse(reply.body);
    expect(offers.map((o) => o.id).sort()).toEqual([21001, 21003]);
    for (const offer of offers) {
      expect(offer.storage_total_cost).toBeCloseTo(offer.storage_cost / 720, 6);
    }
  });

  it.each([
    ["eq", { disk_space: { eq: 500 } }, [21002]],
    ["neq", { disk_space: { neq: 500 } }, [21001, 21003]],
    ["gt", { disk_space: { gt: 500 } }, [21003]],
    ["gte", { disk_space: { gte: 500 } }, [21002, 21003]],
    ["lt", { storage_cost: { lt: 0.08 } }, [21003]],
    ["lte", { storage_cost: { lte: 0.08 } }, [21002, 21003]],
    ["in", { geolocation: { in: ["US", "DE"] } }, [21001, 21003]],
    ["notin", { id: { notin: [21001] } }, [21002, 21003]],
    ["order", { order: [["storage_cost", "asc"]] }, [21003, 21002, 21001]],
    ["order and limit", { order: [["disk_space", "desc"]], limit: 1 }, [21003]],
  ])("filters volume offers with %s", async (_case, query, expected) => {
    const reply = await emulator.call("POST", "/api/v0/volumes/search/", query);
    expect(VolumeOffersSchema.parse(reply.body).offers.map((o) => o.id)).toEqual(expected);
  });

  it("answers at most 64 volume offers unless the query asks for more", async () => {
    await emulator.close();
    const volumeAsks = Array.from({ length: 70 }, (_, i) => ({
      id: 1 + i,
      diskGb: 10 + i,
      storageCostPerGbMonth: 0.1,
      geolocation: "Oregon, US",
    }));
    emulator = await startTestEmulator({ volumeAsks });
    const count = async (query: object) =>
      VolumeOffersSchema.parse((await emulator.call("POST", "/api/v0/volumes/search/", query)).body)
        .offers.length;
    expect(await count({})).toBe(64);
    expect(await count({ limit: 100 })).toBe(70);
  });

  it.each([
    ["an unknown field", { colour: { eq: "red" } }, "colour"],
    ["an unknown operator", { disk_space: { above: 1 } }, "disk_space"],
    ["a list operand for eq", { disk_space: { eq: [1] } }, "disk_space"],
  ])("rejects a volume search with %s: 400 invalid_args", async (_case, query, named) => {
    const reply = await emulator.call("POST", "/api/v0/volumes/search/", query);
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect(reply.body).toMatchObject({ msg: expect.stringContaining(named) as unknown });
  });

  it("accepts an ask (reusably), lists and deletes volumes", async () => {
    const { call } = emulator;
    const first = await call("PUT", "/api/v0/volumes/", { id: VOLUME_ASK_ID, size: 15 });
    expect(first.body).toEqual({ success: true, volume_name: "V.5001" });
    const second = await call("PUT", "/api/v0/volumes", { id: VOLUME_ASK_ID, size: 100 });
    expect(second.body).toEqual({ success: true, volume_name: "V.5002" });

    const listed = await call("GET", "/api/v0/volumes/?owner=me&type=all_volume");
    const { volumes } = z.object({ volumes: z.array(z.looseObject({})) }).parse(listed.body);
    expect(volumes).toMatchObject([
      { id: 5001, name: "V.5001", status: "created", label: null, disk_space: 15, ask_id: 21001 },
      { id: 5002, name: "V.5002", status: "created", label: null, disk_space: 100, ask_id: 21001 },
    ]);
    for (const volume of volumes) {
      expect(Object.keys(volume)).toEqual(expect.arrayContaining(DOCUMENTED_VOLUME_FIELDS));
    }
    expect(volumes[0]).toMatchObject({
      machine_id: 41207,
      geolocation: "Oregon, US",
      instances: [],
      // $0.1 per GB-month for 15 GB, by the hour.
      storage_total_cost: 0.002083,
    });

    expect((await call("DELETE", "/api/v0/volumes/?id=5001")).body).toEqual({ success: true });
    expect(errorOf(await call("DELETE", "/api/v0/volumes/?id=5001"))).toEqual({
      status: 404,
      error: "no_such_volume",
    });
    expect(errorOf(await call("DELETE", "/api/v0/volumes/?id=abc"))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect((await call("GET", "/api/v0/volumes/")).body).toMatchObject({ volumes: [{ id: 5002 }] });
    // The description sends the id in the body.
    expect((await call("DELETE", "/api/v0/volumes/", { id: 5002 })).body).toEqual({
      success: true,
    });
    expect(errorOf(await call("DELETE", "/api/v0/volumes/", {}))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect((await call("GET", "/api/v0/volumes/")).body).toEqual({ volumes: [] });
  });

  it("makes 15 GB when the create gives no size, as the description says", async () => {
    const { call } = emulator;
    expect((await call("PUT", "/api/v0/volumes/", { id: VOLUME_ASK_ID })).body).toEqual({
      success: true,
      volume_name: "V.5001",
    });
    expect((await call("GET", "/api/v0/volumes/")).body).toMatchObject({
      volumes: [{ id: 5001, disk_space: 15 }],
    });
  });

  it("refuses to mount a volume on a VM: volumes are for docker instances only", async () => {
    const { call, control } = emulator;
    await control("PUT", "/_emulator/user", { ssh_key: "ssh-ed25519 AAAA test" });
    await call("PUT", "/api/v0/volumes/", { id: VOLUME_ASK_ID, size: 15 });
    const vm = {
      image: "ubuntu",
      disk: 20,
      runtype: "vm",
      volume_info: { create_new: false, volume_id: 5001, mount_path: "/data" },
    };
    const refused = await call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, vm);
    expect(errorOf(refused)).toEqual({ status: 400, error: "invalid_args" });
    expect(refused.body).toMatchObject({ msg: expect.stringContaining("not VMs") as unknown });
    expect((await call("GET", "/api/v1/instances/")).body).toMatchObject({ instances: [] });
  });

  it("dates a volume from its create and keeps the name it was given", async () => {
    const { call } = emulator;
    const before = Date.now() / 1000;
    await call("PUT", "/api/v0/volumes/", { id: 21002, size: 50, name: "datasets" });
    await call("PUT", "/api/v0/volumes/", { id: 21002, size: 50, name: null });
    const after = Date.now() / 1000;
    const { volumes } = z
      .object({
        volumes: z.array(z.looseObject({ label: z.string().nullable(), start_date: z.number() })),
      })
      .parse((await call("GET", "/api/v0/volumes/")).body);
    expect(volumes.map((v) => v.label)).toEqual(["datasets", null]);
    for (const volume of volumes) {
      expect(volume.start_date).toBeGreaterThanOrEqual(before - 1);
      expect(volume.start_date).toBeLessThanOrEqual(after + 1);
    }
    expect(errorOf(await call("PUT", "/api/v0/volumes/", { id: 21002, size: 5, name: 7 }))).toEqual(
      {
        status: 400,
        error: "invalid_args",
      },
    );
  });

  it.each([
    [{ size: 15 }, "id"],
    [{ id: "21001", size: 15 }, "id"],
    [{ id: VOLUME_ASK_ID, size: 0 }, "size"],
    [{ id: VOLUME_ASK_ID, size: 1.5 }, "size"],
    [{ id: 99999, size: 15 }, "id"],
    [{ id: VOLUME_ASK_ID, size: 101 }, "size"],
  ])("rejects accepting %j with 400 invalid_args naming %s", async (body, field) => {
    const reply = await emulator.call("PUT", "/api/v0/volumes/", body);
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect(reply.body).toMatchObject({ msg: expect.stringContaining(field) as unknown });
  });

  it("loads a state file written before asks had machine fields and volumes their ask", async () => {
    await emulator.close();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpucloud-emulator-"));
    const stateFile = path.join(dir, "state.json");
    const oldState = {
      version: 1,
      user: { id: 1, email: "dev@example.com", creditDollars: 100, sshKey: "" },
      volumeAsks: [
        { id: 21001, diskGb: 100, storageCostPerGbMonth: 0.1, geolocation: "Oregon, US" },
      ],
      instanceAsks: [
        {
          id: 31001,
          gpuName: "RTX 4090",
          numGpus: 1,
          gpuRamMb: 24564,
          dollarsPerHour: 0.35,
          diskGb: 200,
          geolocation: "Oregon, US",
        },
      ],
      secrets: [],
      webhooks: [],
      volumes: [{ id: 5001, askId: 21001, sizeGb: 10, label: null, createdAtMs: 1767225600000 }],
      instances: [],
      copies: [
        {
          srcInstanceId: 1000001,
          dstInstanceId: 1000002,
          srcPath: "/a",
          dstPath: "/b",
          startedAtMs: 1767225600000,
        },
      ],
      bootQueue: [],
      nextIds: { webhook: 1, volume: 5002, instance: 1000003 },
    };
    fs.writeFileSync(stateFile, JSON.stringify(oldState));
    try {
      emulator = await startTestEmulator({ stateFile });
      expect((await emulator.call("GET", "/api/v0/volumes/")).body).toMatchObject({
        volumes: [{ id: 5001, start_date: 1767225600, machine_id: expect.any(Number) as unknown }],
      });
      expect((await emulator.call("POST", "/api/v0/bundles/", {})).body).toMatchObject({
        offers: [{ id: 31001, dph_total: 0.35, verification: "verified", rentable: true }],
      });
      expect((await emulator.control("GET", "/_emulator/state")).body).toMatchObject({
        copies: [{ source: "instance", srcInstanceId: 1000001, srcVolumeId: null }],
      });
    } finally {
      await emulator.close();
      fs.rmSync(dir, { recursive: true, force: true });
      emulator = await startTestEmulator();
    }
  });
});
