import { z } from "zod";
import {
  INSTANCE_ASK_ID,
  type TestEmulator,
  createInstance,
  errorOf,
  pollUntilRunning,
  showInstance,
  startTestEmulator,
} from "./helpers";

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

  it("creates with POST or PUT and shows every field", async () => {
    const { call } = emulator;
    const created = await call("POST", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, {
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
    expect(created.body).toEqual({ success: true, new_contract: 1000001 });
    const viaPut = await call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}`, {
      image: "x",
      disk: 8,
    });
    expect(viaPut.body).toEqual({ success: true, new_contract: 1000002 });

    const shown = await call("GET", "/api/v0/instances/1000001/?owner=me");
    expect(shown.body).toEqual({
      instances: {
        id: 1000001,
        actual_status: null,
        intended_status: "running",
        cur_state: "running",
        status_msg: null,
        ssh_host: null,
        ssh_port: null,
        public_ipaddr: null,
        label: "inference",
        image_uuid: "vllm/vllm-openai:latest",
        onstart: "echo hi",
        extra_env: [
          ["MODEL", "llama"],
          ["-p 8000:8000", "1"],
        ],
        disk_space: 32,
        gpu_ram: 24564,
        gpu_name: "RTX 4090",
        num_gpus: 1,
        dph_total: 0.35,
        geolocation: "Oregon, US",
        runtype: "ssh",
      },
    });
    expect((await call("GET", "/api/v0/instances/42/?owner=me")).body).toEqual({ instances: null });
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

  it("pages the list 25 at a time and counts a poll for each listed instance", async () => {
    const { call } = emulator;
    for (let n = 0; n < 27; n++) await createInstance(call);
    const PageSchema = z.object({
      instances: z.array(z.object({ id: z.int(), actual_status: z.string().nullable() })),
      next_token: z.string().nullable(),
      total_instances: z.int(),
    });
    const first = PageSchema.parse((await call("GET", "/api/v1/instances/")).body);
    expect(first.instances).toHaveLength(25);
    expect(first.total_instances).toBe(27);
    expect(first.next_token).not.toBeNull();
    expect(first.instances[0]).toMatchObject({ id: 1000001, actual_status: null });

    const token = encodeURIComponent(first.next_token ?? "");
    const second = PageSchema.parse(
      (await call("GET", `/api/v1/instances?next_token=${token}`)).body,
    );
    expect(second.instances.map((i) => i.id)).toEqual([1000026, 1000027]);
    expect(second.next_token).toBeNull();

    const again = PageSchema.parse((await call("GET", "/api/v1/instances/")).body);
    expect(again.instances[0]).toMatchObject({ actual_status: "running" });

    expect(errorOf(await call("GET", "/api/v1/instances/?next_token=bogus"))).toEqual({
      status: 400,
      error: "invalid_args",
    });
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

  it("answers an unknown ask with 404 no_such_ask", async () => {
    const reply = await emulator.call("POST", "/api/v0/asks/424242/", { image: "x", disk: 10 });
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
    const reply = await emulator.call("POST", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, body);
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect(reply.body).toMatchObject({ msg: expect.stringContaining(field) as unknown });
  });

  it("says which field is missing or wrong", async () => {
    const path = `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`;
    expect((await emulator.call("POST", path, { disk: 10 })).body).toMatchObject({
      msg: "image: is required",
    });
    expect((await emulator.call("POST", path, { image: "x", disk: 4 })).body).toMatchObject({
      msg: "disk: must be at least 8 GB",
    });
    expect((await emulator.call("POST", path)).body).toMatchObject({
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
    expect(errorOf(await call("POST", path, body))).toEqual({
      status: 400,
      error: "no_ssh_key_for_vm",
    });
    await control("PUT", "/_emulator/user", { ssh_key: "ssh-ed25519 AAAA test" });
    expect((await call("POST", path, body)).body).toMatchObject({ success: true });
  });
});
