import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, errorOf } from "./helpers";

const RELEASE_SECONDS = 0.3;

const ListSchema = z.object({
  instances: z.array(
    z.object({
      id: z.int(),
      actual_status: z.string().nullable(),
      intended_status: z.string(),
      gpu_name: z.string(),
      bundle_id: z.int(),
      image_uuid: z.string(),
      template_hash_id: z.string().nullable(),
      is_bid: z.boolean(),
    }),
  ),
});
const EndpointCreatedSchema = z.object({ success: z.literal(true), result: z.int() });
const GroupCreatedSchema = z.object({ success: z.literal(true), id: z.int() });
const DeletedSchema = z.object({
  success: z.literal(true),
  deleted_workers: z.array(z.int()),
  failed_workers: z.array(z.int()),
  msg: z.string(),
});

describe("serverless endpoints and worker groups", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, workerReleaseSeconds: RELEASE_SECONDS });
  });
  afterEach(async () => {
    await emulator.close();
  });

  const instances = async () =>
    ListSchema.parse((await emulator.call("GET", "/api/v1/instances/")).body).instances;
  const createEndpoint = async (body: object = {}) =>
    EndpointCreatedSchema.parse(
      (await emulator.call("POST", "/api/v0/endptjobs/", { endpoint_name: "llm", ...body })).body,
    ).result;
  const createTemplate = async () => {
    const reply = await emulator.call("POST", "/api/v0/template/", {
      name: "worker",
      image: "vllm/vllm-openai",
      tag: "v1",
      env: "-p 8000:8000",
      recommended_disk_space: 20,
    });
    return z.object({ template: z.object({ id: z.int(), hash_id: z.string() }) }).parse(reply.body)
      .template;
  };
  const createGroup = async (body: object) =>
    GroupCreatedSchema.parse((await emulator.call("POST", "/api/v0/workergroups/", body)).body).id;

  it("creates, lists, updates and deletes endpoints; none at all is the documented 400", async () => {
    const { call } = emulator;
    const none = await call("GET", "/api/v0/endptjobs/");
    expect(none.status).toBe(400);
    expect(none.body).toEqual({
      success: false,
      error: "invalid_args",
      msg: "No endpoints for user found",
    });

    // The official client's body: nulls and fields the description does not list.
    const id = await createEndpoint({
      client_id: "me",
      min_cold_load: 0,
      cold_workers: null,
      autoscaler_instance: "prod",
    });
    const listed = await call("GET", "/api/v0/endptjobs/");
    expect(listed.body).toEqual({
      success: true,
      results: [
        {
          id,
          endpoint_name: "llm",
          min_load: 10,
          min_cold_load: 0,
          target_util: 0.9,
          cold_mult: 2.5,
          cold_workers: 5,
          max_workers: 20,
          endpoint_state: "active",
          api_key: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
          user_id: 1,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
        },
      ],
    });

    const path = `/api/v0/endptjobs/${String(id)}/`;
    expect(
      (await call("PUT", path, { cold_workers: 0, target_util: 0.8, endpoint_name: null })).body,
    ).toEqual({ success: true });
    expect((await call("GET", "/api/v0/endptjobs/")).body).toMatchObject({
      results: [{ endpoint_name: "llm", cold_workers: 0, target_util: 0.8, max_workers: 20 }],
    });
    for (const body of [{ target_util: 1.5 }, { cold_workers: 1.5 }, { max_workers: -1 }]) {
      const reply = await call("PUT", path, body);
      expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
      expect(reply.body).toMatchObject({
        msg: expect.stringContaining(Object.keys(body)[0] ?? "") as unknown,
      });
    }
    expect(errorOf(await call("PUT", "/api/v0/endptjobs/999/", { cold_workers: 1 }))).toEqual({
      status: 400,
      error: "invalid_args",
    });
    expect(DeletedSchema.parse((await call("DELETE", path)).body)).toMatchObject({
      deleted_workers: [],
      failed_workers: [],
    });
    expect(errorOf(await call("DELETE", path))).toEqual({ status: 400, error: "invalid_args" });
    expect((await call("GET", "/api/v0/endptjobs/")).status).toBe(400);
  });

  it("keeps a group's cold workers as account instances, rented by its query, scaled by updates", async () => {
    const { call } = emulator;
    const template = await createTemplate();
    const endpoint = await createEndpoint({ cold_workers: 2, max_workers: 3 });
    expect(await instances()).toEqual([]);

    const group = await createGroup({
      endpoint_id: endpoint,
      template_hash: template.hash_id,
      search_params: "gpu_name=RTX_4090 verified=True rentable=True rented=False",
      gpu_ram: 24,
    });
    const workers = await instances();
    expect(workers).toHaveLength(2);
    for (const worker of workers) {
      expect(worker).toMatchObject({
        gpu_name: "RTX 4090",
        image_uuid: "vllm/vllm-openai:v1",
        template_hash_id: template.hash_id,
        is_bid: false,
      });
    }
    const rows = await call("GET", "/api/v0/workergroups/");
    expect(rows.body).toEqual({
      success: true,
      results: [
        expect.objectContaining({
          id: group,
          endpoint_id: endpoint,
          endpoint_name: "llm",
          template_hash: template.hash_id,
          template_id: template.id,
          search_query: {
            gpu_name: { eq: "RTX 4090" },
            verified: { eq: true },
            rentable: { eq: true },
            rented: { eq: false },
          },
          min_load: 1,
          target_util: 0.9,
          cold_mult: 3,
          test_workers: 3,
          gpu_ram: 24,
          api_key: expect.stringMatching(/^[0-9a-f]{64}$/) as unknown,
          user_id: 1,
        }) as unknown,
      ],
    });

    // An edit of the template (new hash) still reaches the group's next workers.
    await call("PUT", "/api/v0/template/", { hash_id: template.hash_id, tag: "v2" });
    // The group's own cold_workers wins over the endpoint's, within the endpoint's max_workers.
    await call("PUT", `/api/v0/workergroups/${String(group)}/`, { cold_workers: 5 });
    const scaled = await instances();
    expect(scaled.map((i) => i.image_uuid)).toEqual([
      "vllm/vllm-openai:v1",
      "vllm/vllm-openai:v1",
      "vllm/vllm-openai:v2",
    ]);
    // The endpoint's cap comes down: the extra workers are released.
    await call("PUT", `/api/v0/endptjobs/${String(endpoint)}/`, { max_workers: 1 });
    expect((await instances()).filter((i) => i.intended_status === "running")).toHaveLength(1);
    await sleep(RELEASE_SECONDS * 1000 + 200);
    expect(await instances()).toHaveLength(1);
  });

  it("releases the workers of a deleted group asynchronously; a failed release is reported and left running", async () => {
    const { call, control } = emulator;
    const endpoint = await createEndpoint({ cold_workers: 3 });
    const group = await createGroup({ endpoint_name: "llm", search_params: "num_gpus=1" });
    const ids = (await instances()).map((i) => i.id);
    expect(ids).toHaveLength(3);

    await control("PUT", "/_emulator/faults", { workerReleaseFails: { next: 1 } });
    const deleted = DeletedSchema.parse(
      (await call("DELETE", `/api/v0/workergroups/${String(group)}/`)).body,
    );
    expect(deleted.failed_workers).toEqual([ids[0]]);
    expect(deleted.deleted_workers).toEqual(ids.slice(1));
    expect(deleted.msg).toBe("Deleted workergroup and 2 workers");

    // Not at once: still on the account, stopped, until the release delay has passed.
    const releasing = await instances();
    expect(releasing.map((i) => i.id)).toEqual(ids);
    expect(releasing.filter((i) => i.intended_status === "stopped").map((i) => i.id)).toEqual(
      ids.slice(1),
    );
    await sleep(RELEASE_SECONDS * 1000 + 200);
    const left = await instances();
    expect(left.map((i) => i.id)).toEqual([ids[0]]);
    expect(left[0]?.intended_status).toBe("running");

    expect((await call("GET", "/api/v0/workergroups/")).body).toEqual({
      success: true,
      results: [],
    });
    const gone = await call("DELETE", `/api/v0/workergroups/${String(group)}/`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({
      success: false,
      error: "no_such_workergroup",
      msg: "No workergroup by that id is available.",
      id: group,
    });
    // A later change of the endpoint does not adopt the failed worker again.
    await call("PUT", `/api/v0/endptjobs/${String(endpoint)}/`, { cold_workers: 4 });
    expect((await instances()).map((i) => i.id)).toEqual([ids[0]]);
  });

  it("deletes an endpoint with its groups and their workers", async () => {
    const { call } = emulator;
    const endpoint = await createEndpoint({ cold_workers: 1 });
    await createGroup({ endpoint_id: endpoint, search_params: "gpu_name=RTX_4090" });
    // The official client's path and body for a worker group.
    const viaClient = await call("POST", "/api/v0/autojobs/", {
      client_id: "me",
      min_load: null,
      target_util: null,
      cold_mult: null,
      cold_workers: null,
      test_workers: 3,
      template_hash: null,
      template_id: null,
      search_params: '{"gpu_name": {"eq": "A100 SXM4"}}',
      launch_args: "--image nvidia/cuda:12.4.0-base-ubuntu22.04 --disk 12",
      gpu_ram: null,
      endpoint_name: "llm",
      endpoint_id: null,
      autoscaler_instance: "prod",
    });
    GroupCreatedSchema.parse(viaClient.body);
    const workers = await instances();
    expect(workers.map((w) => [w.gpu_name, w.image_uuid])).toEqual([
      ["RTX 4090", "vastai/base-image:@vastai-automatic-tag"],
      ["A100 SXM4", "nvidia/cuda:12.4.0-base-ubuntu22.04"],
    ]);
    expect((await call("GET", "/api/v0/autojobs/")).body).toMatchObject({
      results: [{ endpoint_id: endpoint }, { endpoint_id: endpoint }],
    });

    const deleted = DeletedSchema.parse(
      (await call("DELETE", `/api/v0/endptjobs/${String(endpoint)}/`)).body,
    );
    expect(deleted.deleted_workers.sort()).toEqual(workers.map((w) => w.id).sort());
    expect((await call("GET", "/api/v0/workergroups/")).body).toEqual({
      success: true,
      results: [],
    });
    await sleep(RELEASE_SECONDS * 1000 + 200);
    expect(await instances()).toEqual([]);
  });

  it.each([
    [{ search_params: "num_gpus=1" }, "endpoint"],
    [{ endpoint_name: "nope" }, "endpoint"],
    [{ endpoint_name: "llm", template_hash: "0".repeat(32) }, "template_hash"],
    [{ endpoint_name: "llm", template_id: 77 }, "template_id"],
    [{ endpoint_name: "llm", search_params: "no_such_field=3" }, "no_such_field"],
    [{ endpoint_name: "llm", search_params: '{"num_gpus": 1}' }, "search_params"],
    [{ endpoint_name: "llm", search_params: "{not json" }, "search_params"],
    [{ endpoint_name: "llm", cold_workers: -1 }, "cold_workers"],
    [{ endpoint_name: "llm", gpu_ram: "lots" }, "gpu_ram"],
  ])("rejects worker group %j with invalid_args naming %s", async (body, field) => {
    await createEndpoint({ cold_workers: 0 });
    const reply = await emulator.call("POST", "/api/v0/workergroups/", body);
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect(reply.body).toMatchObject({ msg: expect.stringContaining(field) as unknown });
  });

  it("rents workers exclusively from a market, as on-demand rents", async () => {
    await emulator.close();
    emulator = await startTestEmulator({
      apiKey: API_KEY,
      workerReleaseSeconds: RELEASE_SECONDS,
      market: { seed: 3, instanceOffers: 40, volumeOffers: 0 },
    });
    const endpoint = await createEndpoint({ cold_workers: 3 });
    await createGroup({
      endpoint_id: endpoint,
      search_params: JSON.stringify({ num_gpus: { eq: 1 }, gpu_ram: { gte: 20000 } }),
    });
    const workers = await instances();
    expect(workers).toHaveLength(3);
    expect(new Set(workers.map((w) => w.bundle_id)).size).toBe(3);
    const offers = z
      .object({ offers: z.array(z.object({ id: z.int() })) })
      .parse((await emulator.call("POST", "/api/v0/bundles/", {})).body).offers;
    for (const worker of workers) expect(offers.map((o) => o.id)).not.toContain(worker.bundle_id);
  });

  it("limits the worker-group list at its documented threshold, both paths one endpoint", async () => {
    await emulator.close();
    emulator = await startTestEmulator({ apiKey: API_KEY, rateLimits: "documented" });
    const { call } = emulator;
    // threshold=2.0: a burst of two, then refused.
    expect((await call("GET", "/api/v0/workergroups/")).status).toBe(200);
    expect((await call("GET", "/api/v0/autojobs/")).status).toBe(200);
    expect((await call("GET", "/api/v0/workergroups/")).status).toBe(429);
    // Another endpoint has its own bucket (endptjobs list: 3.0).
    expect((await call("GET", "/api/v0/endptjobs/")).status).toBe(400);
  });

  it("reads the official client's search words as the client does", async () => {
    await createEndpoint({ cold_workers: 0 });
    const id = await createGroup({
      endpoint_name: "llm",
      search_params:
        "gpu_ram>=23 num_gpus=1 gpu_name in [RTX_4090,RTX_3090] inet_down>128 dph<2.5 " +
        "cuda_vers>=12.1 geolocation notin [CN,RU] reliability>0.99 verified=True external=False",
    });
    const { results } = z
      .object({ results: z.array(z.object({ id: z.int(), search_query: z.unknown() })) })
      .parse((await emulator.call("GET", "/api/v0/workergroups/")).body);
    expect(results.find((g) => g.id === id)?.search_query).toEqual({
      gpu_ram: { gte: 23000 },
      num_gpus: { eq: "1" },
      gpu_name: { in: ["RTX 4090", "RTX 3090"] },
      inet_down: { gt: "128" },
      dph_total: { lt: "2.5" },
      cuda_max_good: { gte: "12.1" },
      geolocation: { notin: ["CN", "RU"] },
      reliability: { gt: "0.99" },
      verified: { eq: true },
      external: { eq: false },
    });
    const unreadable = await emulator.call("POST", "/api/v0/workergroups/", {
      endpoint_name: "llm",
      search_params: "gpu_name=RTX 4090",
    });
    expect(errorOf(unreadable)).toEqual({ status: 400, error: "invalid_args" });
  });

  it("answers the official client's list, which sends a JSON body with its GET", async () => {
    const id = await createEndpoint();
    const reply = await emulator.raw(
      "GET",
      "/api/v0/endptjobs/",
      { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
      JSON.stringify({ client_id: "me", api_key: API_KEY }),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ success: true, results: [{ id }] });
  });

  it("keeps endpoints, groups, workers and releases across a restart with a state file", async () => {
    await emulator.close();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpucloud-serverless-"));
    const stateFile = path.join(dir, "state.json");
    try {
      emulator = await startTestEmulator({
        apiKey: API_KEY,
        stateFile,
        workerReleaseSeconds: RELEASE_SECONDS,
      });
      const endpoint = await createEndpoint({ cold_workers: 2 });
      const group = await createGroup({ endpoint_id: endpoint, search_params: "num_gpus=1" });
      const workers = (await instances()).map((i) => i.id);
      expect(workers).toHaveLength(2);
      await emulator.close();

      emulator = await startTestEmulator({
        apiKey: API_KEY,
        stateFile,
        workerReleaseSeconds: RELEASE_SECONDS,
      });
      expect((await instances()).map((i) => i.id)).toEqual(workers);
      expect((await emulator.call("GET", "/api/v0/workergroups/")).body).toMatchObject({
        results: [{ id: group, endpoint_id: endpoint }],
      });
      await emulator.call("DELETE", `/api/v0/endptjobs/${String(endpoint)}/`);
      await emulator.close();

      // Released before the restart: gone once their time has come, whoever asks.
      emulator = await startTestEmulator({
        apiKey: API_KEY,
        stateFile,
        workerReleaseSeconds: RELEASE_SECONDS,
      });
      await sleep(RELEASE_SECONDS * 1000 + 200);
      expect(await instances()).toEqual([]);
    } finally {
      await emulator.close();
      fs.rmSync(dir, { recursive: true, force: true });
      emulator = await startTestEmulator({ apiKey: API_KEY });
    }
  });

  it("needs instance_read to list and instance_write to change endpoints and groups", async () => {
    const { call, control } = emulator;
    await control("POST", "/_emulator/keys", {
      key: "reader-key-2",
      permissions: { api: { instance_read: {} } },
    });
    expect((await call("GET", "/api/v0/workergroups/", undefined, "reader-key-2")).status).toBe(
      200,
    );
    for (const [method, path] of [
      ["POST", "/api/v0/endptjobs/"],
      ["POST", "/api/v0/workergroups/"],
      ["DELETE", "/api/v0/workergroups/1/"],
      ["PUT", "/api/v0/instances/bid_price/1/"],
    ] as const) {
      expect(errorOf(await call(method, path, {}, "reader-key-2"))).toEqual({
        status: 403,
        error: "forbidden",
      });
    }
  });
});
