import * as fs from "node:fs";
import * as os from "node:os";
import * as nodePath from "node:path";
import { z } from "zod";
import { DOCUMENTED_FIELDS } from "./instance-fields";
import { type Call, type TestEmulator, startTestEmulator } from "../support/emulator";
import {
  INSTANCE_ASK_ID,
  createInstance,
  errorOf,
  pollUntilRunning,
  showInstance,
} from "./helpers";

async function showRow(call: Call, id: number) {
  const reply = await call("GET", `/api/v0/instances/${String(id)}/`);
  return z.object({ instances: z.record(z.string(), z.unknown()) }).parse(reply.body).instances;
}

describe("instances", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  it("lists the seeded instance asks with gpu_ram in MB", async () => {
    const reply = await emulator.call("POST", "/api/v0/bundles/", {});
    expect(reply.body).toMatchObject({
      offers: [
        {
          id: INSTANCE_ASK_ID,
          gpu_name: "RTX 4090",
          num_gpus: 1,
          gpu_ram: 24564,
          dph_total: 0.35,
          disk_space: 200,
          geolocation: expect.any(String) as unknown,
        },
        {},
        {},
        {},
      ],
    });
  });

  it("creates with POST or PUT and shows every field the description lists", async () => {
    const { call } = emulator;
    const before = Date.now() / 1000;
    const created = await call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, {
      client_id: "me",
      image: "vllm/vllm-openai:latest",
      disk: 32,
      onstart: "echo hi",
      env: { MODEL: "llama", "-p 8000:8000": "1" },
      label: "inference",
      runtype: "ssh",
      price: null,
      image_login: null,
    });
    // With the instance's own key (see instance-keys.test.ts).
    const ownKey = expect.stringMatching(/^[0-9a-f]{64}$/) as unknown;
    expect(created.body).toEqual({
      success: true,
      new_contract: 1000001,
      instance_api_key: ownKey,
    });
    const viaPut = await call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}`, {
      image: "x",
      disk: 8,
    });
    expect(viaPut.body).toEqual({ success: true, new_contract: 1000002, instance_api_key: ownKey });

    const shown = z
      .object({ instances: z.record(z.string(), z.unknown()) })
      .parse((await call("GET", "/api/v0/instances/1000001/?owner=me")).body).instances;
    expect(Object.keys(shown)).toEqual(expect.arrayContaining([...DOCUMENTED_FIELDS]));
    expect(shown).toMatchObject({
      id: 1000001,
      actual_status: null,
      intended_status: "running",
      cur_state: "running",
      next_state: "running",
      status_msg: null,
      label: "inference",
      image_uuid: "vllm/vllm-openai:latest",
      image_runtype: "ssh",
      runtype: "ssh",
      onstart: "echo hi",
      extra_env: [
        ["MODEL", "llama"],
        ["-p 8000:8000", "1"],
      ],
      disk_space: 32,
      gpu_ram: 24564,
      gpu_totalram: 24564,
      gpu_name: "RTX 4090",
      num_gpus: 1,
      geolocation: "Oregon, US",
      country_code: "US",
      bundle_id: INSTANCE_ASK_ID,
      is_bid: false,
      volume_info: [],
      // Nothing to connect to before it runs.
      ssh_host: null,
      ssh_port: null,
      public_ipaddr: null,
      local_ipaddrs: null,
      ports: null,
      uptime_mins: null,
    });
    // The official client computes an age from start_date: epoch seconds of the create.
    expect(shown["start_date"]).toBeGreaterThanOrEqual(Math.floor(before));
    expect(shown["start_date"]).toBeLessThanOrEqual(Date.now() / 1000);
    expect(shown["end_date"]).toBeGreaterThan(Number(shown["start_date"]));
    // The price splits into GPU and disk: the offer's 0.35 $/hour includes 8 GB of disk at its
    // 0.12 $/GB-month, and this instance has 32 (prices.test.ts holds every field to the offer).
    const dphBase = z.number().parse(shown["dph_base"]);
    const storage = z.number().parse(shown["storage_total_cost"]);
    expect(storage).toBeCloseTo((0.12 * 32) / 720, 10);
    expect(dphBase + storage).toBeCloseTo(z.number().parse(shown["dph_total"]), 10);
    expect(shown["dph_total"]).toBeCloseTo(0.35 + (0.12 * (32 - 8)) / 720, 10);
    expect((await call("GET", "/api/v0/instances/42/?owner=me")).body).toEqual({ instances: null });
  });

  it("shows addresses, ports and uptime once running, the same row as the list", async () => {
    const { call } = emulator;
    const id = await createInstance(call, { env: { "-p 8000:8000": "1" } });
    await pollUntilRunning(call, id);
    const row = z
      .object({ instances: z.record(z.string(), z.unknown()) })
      .parse((await call("GET", `/api/v0/instances/${String(id)}/`)).body).instances;

    expect(row).toMatchObject({
      actual_status: "running",
      status_msg: "success, running pytorch/pytorch:latest",
      ssh_host: "ssh1.emulator.local",
      ssh_idx: "1",
      public_ipaddr: expect.stringMatching(/^192\.0\.2\.\d+$/) as unknown,
      uptime_mins: expect.any(Number) as unknown,
      ports: {
        "22/tcp": [{ HostIp: "0.0.0.0", HostPort: String(row["ssh_port"]) }],
        "8000/tcp": [{ HostIp: "0.0.0.0", HostPort: String(row["direct_port_start"]) }],
      },
    });
    const listed = z
      .object({ instances: z.array(z.record(z.string(), z.unknown())) })
      .parse((await call("GET", "/api/v1/instances/")).body).instances;
    expect(Object.keys(listed[0] ?? {})).toEqual(Object.keys(row));
  });

  it("boots to running after the configured polls, with addresses only once running", async () => {
    await emulator.close();
    emulator = await startTestEmulator({ bootPolls: 3 });
    const id = await createInstance(emulator.call);
    expect(await showInstance(emulator.call, id)).toMatchObject({
      actual_status: null,
      ssh_host: null,
    });
    expect(await showInstance(emulator.call, id)).toMatchObject({
      actual_status: "loading",
      status_msg: "Pulling image",
      ssh_port: null,
    });
    expect(await showInstance(emulator.call, id)).toMatchObject({
      actual_status: "running",
      ssh_host: "ssh1.emulator.local",
      ssh_port: expect.any(Number) as unknown,
      public_ipaddr: expect.stringMatching(/^192\.0\.2\.\d+$/) as unknown,
    });
  });

  it("takes queued boot outcomes in order, then the default", async () => {
    const { call, control } = emulator;
    await control("PUT", "/_emulator/boots", {
      outcomes: [
        { status: "exited", afterPolls: 1 },
        { status: "offline", statusMsg: "gone" },
      ],
    });
    const exited = await createInstance(call);
    const offline = await createInstance(call);
    const normal = await createInstance(call);

    expect(await showInstance(call, exited)).toMatchObject({
      actual_status: "exited",
      status_msg: "Error: container exited with code 1",
      ssh_host: null,
    });
    await showInstance(call, offline);
    expect(await showInstance(call, offline)).toMatchObject({
      actual_status: "offline",
      status_msg: "gone",
    });
    // A dead end stays a dead end however long it is polled.
    expect(await showInstance(call, exited)).toMatchObject({ actual_status: "exited" });
    await pollUntilRunning(call, normal);
  });

  it("waits for afterSeconds as well as afterPolls", async () => {
    const { call, control } = emulator;
    await control("PUT", "/_emulator/boots", {
      outcomes: [{ status: "running", afterPolls: 0, afterSeconds: 3600 }],
    });
    const id = await createInstance(call);
    for (let poll = 0; poll < 5; poll++) await showInstance(call, id);
    expect(await showInstance(call, id)).toMatchObject({ actual_status: "loading" });
  });

  it("relabels and destroys, answering unknown ids with 404", async () => {
    const { call } = emulator;
    const id = await createInstance(call);
    const path = `/api/v0/instances/${String(id)}/`;
    expect((await call("PUT", path, { label: "renamed" })).body).toEqual({ success: true });
    expect(await showInstance(call, id)).toMatchObject({ label: "renamed" });
    expect(errorOf(await call("PUT", path, {}))).toEqual({ status: 400, error: "invalid_args" });

    expect((await call("DELETE", path)).body).toEqual({ success: true });
    expect(await showInstance(call, id)).toBeNull();
    const gone = { status: 404, error: "no_such_instance" };
    expect(errorOf(await call("DELETE", path))).toEqual(gone);
    expect(errorOf(await call("PUT", path, { label: "x" }))).toEqual(gone);
  });

  it("stops and starts: stopped at once, then back through loading to running", async () => {
    const { call } = emulator;
    const id = await createInstance(call);
    const path = `/api/v0/instances/${String(id)}/`;
    await pollUntilRunning(call, id);

    expect((await call("PUT", path, { state: "stopped" })).body).toEqual({ success: true });
    const stopped = await showRow(call, id);
    expect(stopped).toMatchObject({
      actual_status: "stopped",
      intended_status: "stopped",
      cur_state: "stopped",
      next_state: "stopped",
      ssh_host: null,
      public_ipaddr: null,
      ports: null,
      // A stopped instance pays for its disk only.
      instance: { gpuCostPerHour: 0 },
    });
    // Stopped stays stopped however often it is read, and stopping again changes nothing.
    expect(await showInstance(call, id)).toMatchObject({ actual_status: "stopped" });
    expect((await call("PUT", path, { state: "stopped" })).body).toEqual({ success: true });

    expect((await call("PUT", path, { state: "running" })).body).toEqual({ success: true });
    expect(await showRow(call, id)).toMatchObject({
      actual_status: "loading",
      intended_status: "running",
      cur_state: "running",
      ssh_host: null,
    });
    expect(await showRow(call, id)).toMatchObject({
      actual_status: "running",
      ssh_host: "ssh1.emulator.local",
    });
    // Starting a running instance changes nothing.
    expect((await call("PUT", path, { state: "running" })).body).toEqual({ success: true });
    expect(await showInstance(call, id)).toMatchObject({ actual_status: "running" });
  });

  it("keeps a dead end a dead end across stop and start", async () => {
    const { call, control } = emulator;
    await control("PUT", "/_emulator/boots", { outcomes: [{ status: "exited", afterPolls: 1 }] });
    const id = await createInstance(call);
    const path = `/api/v0/instances/${String(id)}/`;
    expect(await showInstance(call, id)).toMatchObject({ actual_status: "exited" });

    await call("PUT", path, { state: "stopped" });
    expect(await showInstance(call, id)).toMatchObject({ actual_status: "stopped" });
    await call("PUT", path, { state: "running" });
    expect(await showInstance(call, id)).toMatchObject({ actual_status: "loading" });
    expect(await showInstance(call, id)).toMatchObject({ actual_status: "exited" });
  });

  it("relabels and changes state in one call, and refuses what the description does not allow", async () => {
    const { call } = emulator;
    const id = await createInstance(call);
    const path = `/api/v0/instances/${String(id)}/`;
    expect((await call("PUT", path, { label: "both", state: "stopped" })).body).toEqual({
      success: true,
    });
    expect(await showRow(call, id)).toMatchObject({ label: "both", actual_status: "stopped" });

    for (const body of [{}, { state: "paused" }, { label: "x".repeat(1025) }, { label: 7 }]) {
      expect(errorOf(await call("PUT", path, body))).toEqual({
        status: 400,
        error: "invalid_args",
      });
    }
    expect((await call("PUT", path, { state: "paused" })).body).toMatchObject({
      msg: "state: must be stopped or running",
    });
    expect(errorOf(await call("PUT", "/api/v0/instances/99/", { state: "stopped" }))).toEqual({
      status: 404,
      error: "no_such_instance",
    });
  });

  it("stops, starts and destroys in bulk, answering per id", async () => {
    const { call } = emulator;
    const a = await createInstance(call);
    const b = await createInstance(call);
    const c = await createInstance(call);

    expect(
      (await call("PUT", "/api/v0/instances/", { ids: [a, b], state: "stopped" })).body,
    ).toEqual({
      success: true,
      results: [
        { id: a, success: true },
        { id: b, success: true },
      ],
    });
    expect(await showInstance(call, a)).toMatchObject({ actual_status: "stopped" });
    expect(await showInstance(call, b)).toMatchObject({ actual_status: "stopped" });
    expect(await showInstance(call, c)).not.toMatchObject({ actual_status: "stopped" });

    expect(
      (await call("PUT", "/api/v0/instances", { ids: [a, 99], state: "running" })).body,
    ).toEqual({
      success: false,
      msg: "No instance with id 99.",
      results: [
        { id: a, success: true },
        { id: 99, success: false, error: "no_such_instance", msg: "No instance with that id." },
      ],
    });
    expect(await showInstance(call, a)).toMatchObject({ actual_status: "loading" });

    expect((await call("DELETE", "/api/v0/instances/", { instance_ids: [a, c, 99] })).body).toEqual(
      {
        success: false,
        msg: "No instance with id 99.",
        results: [
          { id: a, success: true },
          { id: c, success: true },
          { id: 99, success: false, error: "no_such_instance", msg: "No instance with that id." },
        ],
      },
    );
    expect(await showInstance(call, a)).toBeNull();
    expect(await showInstance(call, c)).toBeNull();
    expect(await showInstance(call, b)).toMatchObject({ actual_status: "stopped" });

    for (const [method, body] of [
      ["PUT", { ids: [], state: "stopped" }],
      ["PUT", { ids: [b] }],
      ["PUT", { ids: ["x"], state: "running" }],
      ["DELETE", {}],
      ["DELETE", { ids: [b] }],
    ] as const) {
      expect(errorOf(await call(method, "/api/v0/instances/", body))).toEqual({
        status: 400,
        error: "invalid_args",
      });
    }
    expect(await showInstance(call, b)).not.toBeNull();
  });

  it("loads instances saved by the previous version, which had no stop/start fields", async () => {
    const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), "gpucloud-instances-"));
    try {
      const stateFile = nodePath.join(dir, "state.json");
      await emulator.close();
      emulator = await startTestEmulator({ stateFile });
      const id = await createInstance(emulator.call);
      await emulator.close();
      const saved = z
        .looseObject({ instances: z.array(z.record(z.string(), z.unknown())) })
        .parse(JSON.parse(fs.readFileSync(stateFile, "utf8")));
      for (const instance of saved.instances) {
        delete instance["intendedStatus"];
        delete instance["restartedAtMs"];
      }
      fs.writeFileSync(stateFile, JSON.stringify(saved));

      emulator = await startTestEmulator({ stateFile });
      expect(await showRow(emulator.call, id)).toMatchObject({ id, intended_status: "running" });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers an instance id that is not a number with 400 invalid_args", async () => {
    const { call } = emulator;
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { state: "stopped" }],
      ["DELETE", undefined],
    ] as const) {
      const reply = await call(method, "/api/v0/instances/abc/", body);
      expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
      expect(reply.body).toMatchObject({ msg: "invalid instance_id" });
    }
  });

  it("answers an unknown ask with 404 no_such_ask", async () => {
    const reply = await emulator.call("PUT", "/api/v0/asks/424242/", { image: "x", disk: 10 });
    expect(errorOf(reply)).toEqual({ status: 404, error: "no_such_ask" });
  });

  it.each([
    [{ disk: 10 }, "image"],
    [{ image: "", disk: 10 }, "image"],
    [{ image: "x" }, "disk"],
    [{ image: "x", disk: 7 }, "disk"],
    [{ image: "x", disk: 10, onstart: "a".repeat(4049) }, "onstart"],
    [{ image: "x", disk: 10, env: { A: 1 } }, "env"],
    [{ image: "x", disk: 10, env: ["A=1"] }, "env"],
    [{ image: "x", disk: 10, runtype: "docker" }, "runtype"],
    [{ image: "x", disk: 10, price: -0.1 }, "price"],
  ])("rejects create %j with invalid_args naming %s", async (body, field) => {
    const reply = await emulator.call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, body);
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect(reply.body).toMatchObject({ msg: expect.stringContaining(field) as unknown });
  });

  it("says which field is missing or wrong", async () => {
    const path = `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`;
    expect((await emulator.call("PUT", path, { disk: 10 })).body).toMatchObject({
      msg: "image: is required",
    });
    expect((await emulator.call("PUT", path, { image: "x", disk: 4 })).body).toMatchObject({
      msg: "disk: must be at least 8 GB",
    });
    expect((await emulator.call("PUT", path)).body).toMatchObject({
      msg: "request body: is required",
    });
  });

  it("accepts an onstart of exactly 4048 characters", async () => {
    await createInstance(emulator.call, { onstart: "a".repeat(4048) });
  });

  it("refuses a VM until the user has an SSH key", async () => {
    const { call, control } = emulator;
    const body = { image: "ubuntu", disk: 20, runtype: "vm" };
    const path = `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`;
    expect(errorOf(await call("PUT", path, body))).toEqual({
      status: 400,
      error: "no_ssh_key_for_vm",
    });
    await control("PUT", "/_emulator/user", { ssh_key: "ssh-ed25519 AAAA test" });
    expect((await call("PUT", path, body)).body).toMatchObject({ success: true });
  });

  it("shows the machine an instance was rented on as its offer showed it", async () => {
    const { call } = emulator;
    const search = await call("POST", "/api/v0/bundles/", { limit: 100 });
    const offers = z
      .object({ offers: z.array(z.looseObject({ id: z.int(), machine_id: z.int() })) })
      .parse(search.body).offers;
    const offer = offers.find((candidate) => candidate.id === INSTANCE_ASK_ID);
    const id = await createInstance(call);
    const shown = await call("GET", `/api/v0/instances/${id}/`);
    expect(offer).toBeDefined();
    expect(shown.body).toMatchObject({ instances: { machine_id: offer?.machine_id } });
  });

  it.each([
    ["ssh_direc ssh_proxy", "ssh"],
    ["ssh_proxy", "ssh"],
    ["jupyter_direc ssh_direc ssh_proxy", "jupyter"],
    ["jupyter_proxy ssh_proxy", "jupyter"],
    ["args", "args"],
  ])("takes the official client's launch mode %j as %s", async (runtype, shown) => {
    const { call } = emulator;
    const id = await createInstance(call, { runtype });
    const shownRow = await call("GET", `/api/v0/instances/${id}/`);
    expect(shownRow.body).toMatchObject({ instances: { image_runtype: shown } });
  });
});
