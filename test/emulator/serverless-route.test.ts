import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY } from "./helpers";

// Calling a serverless endpoint as the service documents it: POST /route/ on the serverless
// address with the endpoint's name and a cost (the OpenAPI's `route`), authenticated by the
// endpoint's own key (the official client's), answered a ready worker's URL and a signature or a
// status to poll again on; then POST <url><worker route> with {auth_data, payload} to the worker
// (the PyWorker guide), here the emulator's stand-in.

const RowsSchema = z.object({
  results: z.array(z.object({ id: z.int(), endpoint_name: z.string(), api_key: z.string() })),
});
const ReadySchema = z.object({
  endpoint: z.string(),
  url: z.string(),
  cost: z.number(),
  reqnum: z.int(),
  signature: z.string(),
  __request_id: z.string(),
});
const WaitingSchema = z.object({
  endpoint: z.string(),
  status: z.string(),
  __request_id: z.string(),
});

async function post(url: string, body: unknown, key?: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify(body),
  });
  const answer: unknown = await response.json();
  return { status: response.status, body: answer };
}

describe("routing a request to a serverless endpoint's worker", () => {
  let emulator: TestEmulator;
  beforeEach(async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, bootPolls: 2 });
  });
  afterEach(async () => {
    await emulator.close();
  });

  /** An endpoint with one cold worker; its name and its own key (from the list). */
  async function endpointWithWorker(name: string) {
    const { call } = emulator;
    const created = await call("POST", "/api/v0/template/", {
      name: "worker",
      image: "vllm/vllm-openai",
      tag: "v1",
      recommended_disk_space: 20,
    });
    const hash = z.object({ template: z.object({ hash_id: z.string() }) }).parse(created.body)
      .template.hash_id;
    await call("POST", "/api/v0/endptjobs/", { endpoint_name: name, cold_workers: 1 });
    const row = RowsSchema.parse((await call("GET", "/api/v0/endptjobs/")).body).results.find(
      (r) => r.endpoint_name === name,
    );
    if (row === undefined) throw new Error("endpoint not listed");
    await call("POST", "/api/v0/workergroups/", {
      endpoint_id: row.id,
      template_hash: hash,
      search_params: "verified=True rentable=True rented=False",
      gpu_ram: 24,
    });
    return { name, key: row.api_key, id: row.id };
  }

  it("answers a status while no worker runs, then a worker whose stand-in serves the payload", async () => {
    const endpoint = await endpointWithWorker("llm");
    const route = `${emulator.url}/route/`;
    const ask = { endpoint: endpoint.name, cost: 100 };

    // Booting: the engine's own looks move it on (bootPolls), as a client's polling would.
    const first = await post(route, ask, endpoint.key);
    expect(first.status).toBe(200);
    expect(WaitingSchema.strict().parse(first.body)).toMatchObject({
      endpoint: "llm",
      status: expect.stringMatching(/provisioning: 1|loading: 1/) as unknown,
    });
    let answer = first.body;
    for (let n = 0; n < 5 && !ReadySchema.safeParse(answer).success; n++) {
      answer = (await post(route, ask, endpoint.key)).body;
    }
    const ready = ReadySchema.parse(answer);
    expect(ready).toMatchObject({ endpoint: "llm", cost: 100 });
    expect(ready.url).toMatch(new RegExp(`^${emulator.url}/serverless-workers/\\d+$`));

    const { signature: _s, __request_id: _r, ...unsigned } = ready;
    const payload = { inputs: "What is the answer?", parameters: { max_new_tokens: 8 } };
    const served = await post(`${ready.url}/generate`, { auth_data: ready, payload }, endpoint.key);
    expect(served).toEqual({
      status: 200,
      body: {
        worker: expect.any(Number) as unknown,
        route: "/generate",
        reqnum: ready.reqnum,
        payload,
      },
    });

    // A forged or altered answer is refused by the worker.
    const forged = await post(`${ready.url}/generate`, {
      auth_data: { ...unsigned, cost: 1, signature: ready.signature },
      payload,
    });
    expect(forged).toEqual({
      status: 401,
      body: { error: "auth_data is not a route answer for this worker" },
    });
  });

  it("takes the endpoint's key in the body (as the official client also sends it) or an account key", async () => {
    const endpoint = await endpointWithWorker("llm");
    const route = `${emulator.url}/route/`;
    const inBody = await post(route, { endpoint: "llm", cost: 1, api_key: endpoint.key });
    expect(inBody.status).toBe(200);
    const account = await post(route, { endpoint: "llm", cost: 1 }, API_KEY);
    expect(account.status).toBe(200);
  });

  it("refuses a wrong key, another endpoint's key and a missing field, as the OpenAPI shows", async () => {
    const llm = await endpointWithWorker("llm");
    const other = await endpointWithWorker("other");
    const route = `${emulator.url}/route/`;
    const refused = { status: 401, body: { error: "Authentication failed" } };
    expect(await post(route, { endpoint: "llm", cost: 1 })).toEqual(refused);
    expect(await post(route, { endpoint: "llm", cost: 1 }, "not-a-key")).toEqual(refused);
    expect(await post(route, { endpoint: "llm", cost: 1 }, other.key)).toEqual(refused);
    expect(await post(route, { endpoint: "nope", cost: 1 }, llm.key)).toEqual(refused);
    const invalid = {
      status: 400,
      body: { error: "Invalid endpoint or missing required parameters" },
    };
    expect(await post(route, { endpoint: "llm" }, llm.key)).toEqual(invalid);
    expect(await post(route, { endpoint: "nope", cost: 1 }, API_KEY)).toEqual(invalid);
  });
});
