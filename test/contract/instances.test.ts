import { deadEndStatuses, type GpuCloudClient } from "../../provider/client";
import { clientFor, fastRetryPolicy } from "../support/clients";
import { useEmulator } from "../support/use-emulator";
import { failureOf, requestsTo, sendJson, startFakeServer, summary } from "./harness";

const ASK = 31001; // a seeded ask: RTX 4090, 24564 MB
const basic = { image: "pytorch/pytorch:latest", disk: 16 };

describe("instances", () => {
  const h = useEmulator({ per: "test" });

  it("creates an instance from an ask and returns new_contract, the instance id", async () => {
    const id = await h.client.instances.create(ASK, {
      ...basic,
      label: "trainer",
      onstart: "echo hello",
      env: { MODE: "train" },
      runtype: "ssh",
      price: 0.4,
    });

    expect(id).toBe(1000001);
    const [stored] = (await h.emulator.state()).instances;
    expect(stored).toMatchObject({
      id,
      label: "trainer",
      onstart: "echo hello",
      image: basic.image,
      diskGb: 16,
      env: { MODE: "train" },
      runtype: "ssh",
      bidDollarsPerHour: 0.4,
    });
    expect(summary(await h.emulator.writes())).toEqual([`PUT /api/v0/asks/${String(ASK)}/ 200`]);
  });

  it("shows an instance as it boots, until it is running", async () => {
    await h.emulator.queueBoots([{ status: "running", afterPolls: 3 }]);
    const id = await h.client.instances.create(ASK, { ...basic, label: "boot" });

    const statuses: (string | null | undefined)[] = [];
    for (let poll = 0; poll < 2; poll++) {
      statuses.push((await h.client.instances.show(id))?.actual_status);
    }
    const running = await h.client.instances.show(id);

    expect(statuses).toEqual([null, "loading"]);
    expect(running).toMatchObject({
      id,
      actual_status: "running",
      label: "boot",
      image_uuid: basic.image,
      disk_space: 16,
      gpu_ram: 24564,
    });
    // The address to connect to is set once it runs.
    expect(running?.ssh_host).toEqual(expect.any(String));
    expect(running?.ssh_port).toEqual(expect.any(Number));
  });

  it("shows a dead end: an instance that exited, with the service's message", async () => {
    await h.emulator.queueBoots([{ status: "exited", afterPolls: 1, statusMsg: "Error: OOM" }]);
    const id = await h.client.instances.create(ASK, basic);

    const shown = await h.client.instances.show(id);

    expect(shown).toMatchObject({ id, actual_status: "exited", status_msg: "Error: OOM" });
    expect(deadEndStatuses).toContain(shown?.actual_status);
  });

  it("shows undefined for an instance that does not exist", async () => {
    expect(await h.client.instances.show(424242)).toBeUndefined();
    expect(summary(await h.emulator.requests())).toEqual([
      "GET /api/v0/instances/424242/?owner=me 200",
    ]);
  });

  it("lists 60 instances, each exactly once, sending each next_token back as after_token", async () => {
    const created: number[] = [];
    for (let i = 0; i < 60; i++) {
      created.push(await h.client.instances.create(ASK, { ...basic, label: `n${String(i)}` }));
    }
    await h.emulator.clearRequests();

    const listed = await h.client.instances.list();

    expect(listed.map((instance) => instance.id)).toEqual(created);
    expect(listed.map((instance) => instance.label)).toEqual(
      created.map((_, i) => `n${String(i)}`),
    );
    const pages = requestsTo(await h.emulator.requests(), "GET", "/api/v1/instances/");
    expect(pages.map((page) => page.path.includes("after_token="))).toEqual([false, true, true]);
    expect(pages.some((page) => page.path.includes("next_token="))).toBe(false);
  });

  async function createInstances(count: number): Promise<number[]> {
    const created: number[] = [];
    for (let i = 0; i < count; i++) created.push(await h.client.instances.create(ASK, basic));
    await h.emulator.clearRequests();
    return created;
  }

  const showsById = (requests: readonly { path: string }[]) =>
    requests.filter((request) => /^\/api\/v0\/instances\/\d+\//.test(request.path)).length;

  it("answers reads of many instances in an account of up to 50 from the list's two pages", async () => {
    const created = await createInstances(30);

    const shown = await Promise.all(created.map((id) => h.client.instances.showAmongMany(id)));

    expect(shown.map((instance) => instance?.id)).toEqual(created);
    const requests = await h.emulator.requests();
    expect(requestsTo(requests, "GET", "/api/v1/instances/")).toHaveLength(2);
    expect(showsById(requests)).toBe(0);
    // One not listed is shown by id, to tell that it is gone.
    expect(await h.client.instances.showAmongMany(424242)).toBeUndefined();
    expect(showsById(await h.emulator.requests())).toBe(1);
  });

  it("shows by id those not on the first page in an account of more than 50", async () => {
    const created = await createInstances(55);

    const shown = await Promise.all(created.map((id) => h.client.instances.showAmongMany(id)));

    expect(shown.map((instance) => instance?.id)).toEqual(created);
    const requests = await h.emulator.requests();
    expect(requestsTo(requests, "GET", "/api/v1/instances/")).toHaveLength(1);
    expect(showsById(requests)).toBe(30);
  });

  it("fails the reads with the list's error while the service does not answer it, showing none by id", async () => {
    const created = await createInstances(3);
    await h.emulator.setFaults({
      serverErrors: { rate: 1, methods: ["GET"], paths: ["/api/v1/instances"] },
    });

    const together = await Promise.all(
      created.map((id) => failureOf(h.client.instances.showAmongMany(id))),
    );
    // The engine's next reads come just after: they meet the same failure, sending nothing.
    const after = await failureOf(h.client.instances.showAmongMany(created[0] ?? 0));

    for (const error of [...together, after]) expect(error.status).toBe(503);
    const requests = await h.emulator.requests();
    expect(requestsTo(requests, "GET", "/api/v1/instances/")).toHaveLength(
      fastRetryPolicy.maxAttempts,
    );
    expect(showsById(requests)).toBe(0);
  });

  it("fails the read with the second page's error while the service does not answer it", async () => {
    const created = await createInstances(30);
    expect((await h.client.instances.showAmongMany(created[0] ?? 0))?.id).toBe(created[0]);
    await h.emulator.setFaults({
      serverErrors: { rate: 1, methods: ["GET"], paths: ["/api/v1/instances"] },
    });

    const error = await failureOf(h.client.instances.showAmongMany(created[29] ?? 0));

    expect(error).toMatchObject({ status: 503, endpoint: "GET /api/v1/instances/" });
    const requests = await h.emulator.requests();
    const refused = requests.filter((request) => request.status === 503);
    expect(refused).toHaveLength(fastRetryPolicy.maxAttempts);
    // The second page's, after the first page the reads share.
    for (const request of refused) expect(request.path).toContain("after_token=");
    expect(showsById(requests)).toBe(0);
  });

  it("fails the read with the list's error when nothing answers, trying no show", async () => {
    const server = await startFakeServer(() => undefined);
    const { url } = server;
    await server.close();

    const error = await failureOf(clientFor(url, "any-key").instances.showAmongMany(1));

    expect(error).toMatchObject({ network: "not-connected", endpoint: "GET /api/v1/instances/" });
  });

  it("shows by id when the service answers the list with 500, which it does not retry", async () => {
    const [id] = await createInstances(1);
    await h.emulator.setFaults({
      serverErrors: { rate: 1, status: 500, methods: ["GET"], paths: ["/api/v1/instances"] },
    });

    expect((await h.client.instances.showAmongMany(id ?? 0))?.id).toBe(id);
    const requests = await h.emulator.requests();
    expect(requestsTo(requests, "GET", "/api/v1/instances/")).toHaveLength(1);
    expect(showsById(requests)).toBe(1);
  });

  it("shows by id when the service refuses the list as a request", async () => {
    const [id] = await createInstances(1);
    const shown = await h.emulator.call("GET", `/api/v0/instances/${String(id)}/?owner=me`);
    expect(shown.status).toBe(200);
    const server = await startFakeServer((request, _body, response) => {
      if (request.url?.startsWith("/api/v1/instances/")) {
        sendJson(response, 400, { success: false, error: "invalid_request", msg: "no list" });
      } else sendJson(response, 200, shown.body);
    });
    try {
      const client = clientFor(server.url, h.emulator.apiKey);

      expect((await client.instances.showAmongMany(id ?? 0))?.id).toBe(id);
      expect(server.received.filter((line) => line.startsWith("GET /api/v0/instances/"))).toEqual([
        `GET /api/v0/instances/${String(id)}/?owner=me`,
      ]);
    } finally {
      await server.close();
    }
  });

  it.each([
    ["a relabel", (c: GpuCloudClient, id: number) => c.instances.relabel(id, "after")],
    ["a stop", (c: GpuCloudClient, id: number) => c.instances.setState(id, "stopped")],
    ["a destroy", (c: GpuCloudClient, id: number) => c.instances.destroy(id)],
    ["a create", (c: GpuCloudClient) => c.instances.create(ASK, basic)],
  ])("reads among many afresh after %s", async (_case, write) => {
    const id = await h.client.instances.create(ASK, { ...basic, label: "before" });
    const before = await h.client.instances.showAmongMany(id);
    expect(before?.label).toBe("before");

    await write(h.client, id);

    // A second list, not the one read before the write.
    await h.client.instances.showAmongMany(id);
    expect(requestsTo(await h.emulator.requests(), "GET", "/api/v1/instances/")).toHaveLength(2);
  });

  it("lists only the instances matching filters, in the order asked", async () => {
    const a = await h.client.instances.create(ASK, { ...basic, label: "train" });
    await h.client.instances.create(ASK, { ...basic, label: "serve" });
    const c = await h.client.instances.create(ASK, { ...basic, label: "train" });
    await h.client.instances.setState(c, "stopped");

    const trained = await h.client.instances.list({
      selectFilters: { label: { eq: "train" } },
      orderBy: [{ col: "id", dir: "desc" }],
    });
    expect(trained.map((instance) => instance.id)).toEqual([c, a]);

    const stopped = await h.client.instances.list({
      selectFilters: { actual_status: { in: ["stopped"] } },
    });
    expect(stopped.map((instance) => instance.id)).toEqual([c]);

    const error = await failureOf(
      h.client.instances.list({ selectFilters: { dph_total: { lt: 1 } } }),
    );
    expect(error).toMatchObject({ status: 400, code: "invalid_request" });
  });

  it("reads the values the list can be filtered on", async () => {
    const id = await h.client.instances.create(ASK, basic);
    await h.client.instances.setState(id, "stopped");

    expect(await h.client.instances.filterValues()).toEqual([
      { actual_status: "stopped", verification: "verified", gpu_name: "RTX 4090" },
    ]);
  });

  it("lists nothing on a new account", async () => {
    expect(await h.client.instances.list()).toEqual([]);
  });

  it("destroys an instance", async () => {
    const keep = await h.client.instances.create(ASK, basic);
    const drop = await h.client.instances.create(ASK, basic);

    await h.client.instances.destroy(drop);

    expect(await h.client.instances.show(drop)).toBeUndefined();
    expect((await h.emulator.state()).instances.map((instance) => instance.id)).toEqual([keep]);
  });

  it("counts destroying an instance that is already gone as done", async () => {
    await expect(h.client.instances.destroy(777)).resolves.toBeUndefined();
    // The service did answer 404: the client read that as "already destroyed".
    expect(summary(await h.emulator.requests())).toEqual(["DELETE /api/v0/instances/777/ 404"]);
  });

  it("relabels an instance", async () => {
    const id = await h.client.instances.create(ASK, { ...basic, label: "old" });

    await h.client.instances.relabel(id, "new");

    expect((await h.client.instances.show(id))?.label).toBe("new");
  });

  it("rejects relabelling an unknown instance with no_such_instance", async () => {
    const error = await failureOf(h.client.instances.relabel(777, "x"));

    expect(error).toMatchObject({
      status: 404,
      code: "no_such_instance",
      endpoint: "PUT /api/v0/instances/777/",
      isNotFound: true,
    });
  });

  it("shows when the instance started, in epoch seconds", async () => {
    const before = Date.now() / 1000;
    const id = await h.client.instances.create(ASK, basic);

    const shown = await h.client.instances.show(id);

    expect(shown?.start_date).toBeGreaterThanOrEqual(Math.floor(before));
    expect(shown?.start_date).toBeLessThanOrEqual(Date.now() / 1000);
  });

  it("stops an instance and starts it again, back through loading to running", async () => {
    const id = await h.client.instances.create(ASK, basic);
    await h.client.instances.show(id);
    expect((await h.client.instances.show(id))?.actual_status).toBe("running");

    await h.client.instances.setState(id, "stopped");
    expect(await h.client.instances.show(id)).toMatchObject({
      actual_status: "stopped",
      intended_status: "stopped",
      cur_state: "stopped",
      ssh_host: null,
    });

    await h.client.instances.setState(id, "running");
    const statuses = [
      (await h.client.instances.show(id))?.actual_status,
      (await h.client.instances.show(id))?.actual_status,
    ];
    expect(statuses).toEqual(["loading", "running"]);
    expect(summary(await h.emulator.writes()).slice(1)).toEqual([
      `PUT /api/v0/instances/${String(id)}/ 200`,
      `PUT /api/v0/instances/${String(id)}/ 200`,
    ]);
  });

  it("rejects stopping an unknown instance with no_such_instance", async () => {
    const error = await failureOf(h.client.instances.setState(777, "stopped"));

    expect(error).toMatchObject({
      status: 404,
      code: "no_such_instance",
      endpoint: "PUT /api/v0/instances/777/",
    });
  });

  it("stops, starts and destroys several instances in one call", async () => {
    const a = await h.client.instances.create(ASK, basic);
    const b = await h.client.instances.create(ASK, basic);

    await h.client.instances.setStates([a, b], "stopped");
    expect((await h.client.instances.show(a))?.actual_status).toBe("stopped");
    expect((await h.client.instances.show(b))?.actual_status).toBe("stopped");

    await h.client.instances.setStates([a], "running");
    expect((await h.client.instances.show(a))?.intended_status).toBe("running");

    await h.client.instances.destroyMany([a, b]);
    expect(await h.client.instances.list()).toEqual([]);
  });

  it("fails a bulk call naming the unknown ids, having changed the others", async () => {
    const a = await h.client.instances.create(ASK, basic);

    const error = await failureOf(h.client.instances.setStates([a, 777], "stopped"));
    expect(error).toMatchObject({ endpoint: "PUT /api/v0/instances/", status: 200 });
    expect(error.message).toContain("777");
    expect((await h.client.instances.show(a))?.actual_status).toBe("stopped");

    const gone = await failureOf(h.client.instances.destroyMany([a, 778]));
    expect(gone.message).toContain("778");
    expect(await h.client.instances.show(a)).toBeUndefined();
  });

  it("searches instance offers, with GPU RAM in MB", async () => {
    const offers = await h.client.instances.searchOffers();

    expect(offers.map((offer) => offer.id)).toEqual([31001, 31002, 31003, 31004]);
    expect(offers[0]).toMatchObject({
      id: 31001,
      gpu_name: "RTX 4090",
      num_gpus: 1,
      gpu_ram: 24564,
      dph_total: 0.35,
      disk_space: 200,
    });
  });

  it("rejects an unknown ask with 404 no_such_ask", async () => {
    const error = await failureOf(h.client.instances.create(99, basic));

    expect(error).toMatchObject({
      status: 404,
      code: "no_such_ask",
      serviceMessage: "No instance ask with that id.",
      endpoint: "PUT /api/v0/asks/99/",
      mayHaveCreated: false,
    });
    expect(error.message).toBe(
      "PUT /api/v0/asks/99/ failed with HTTP 404 (no_such_ask: No instance ask with that id.)",
    );
    expect((await h.emulator.state()).instances).toEqual([]);
  });

  it("rejects a disk under 8 GB with 400 invalid_args", async () => {
    const error = await failureOf(h.client.instances.create(ASK, { ...basic, disk: 4 }));

    expect(error).toMatchObject({
      status: 400,
      code: "invalid_args",
      serviceMessage: "disk: must be at least 8 GB",
      endpoint: `PUT /api/v0/asks/${String(ASK)}/`,
      mayHaveCreated: false,
    });
    expect((await h.emulator.state()).instances).toEqual([]);
  });

  it("rejects a VM without a registered SSH key with no_ssh_key_for_vm, then accepts it", async () => {
    const error = await failureOf(h.client.instances.create(ASK, { ...basic, runtype: "vm" }));

    expect(error).toMatchObject({
      status: 400,
      code: "no_ssh_key_for_vm",
      endpoint: `PUT /api/v0/asks/${String(ASK)}/`,
      mayHaveCreated: false,
    });
    expect(error.message).toContain("no_ssh_key_for_vm");
    expect((await h.emulator.state()).instances).toEqual([]);

    await h.emulator.setUser({ ssh_key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample" });
    const id = await h.client.instances.create(ASK, { ...basic, runtype: "vm" });
    expect((await h.emulator.state()).instances.map((instance) => instance.id)).toEqual([id]);
  });
});
