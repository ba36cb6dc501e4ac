import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { ConnectionPools, GpuCloudClient } from "../../../provider/client";
import { clientAreas } from "../../../provider/client/areas";
import { startTestEmulator, type TestEmulator } from "../../support/emulator";
import { fastRetryPolicy } from "../../support/clients";

/**
 * Every request the client can send, checked against what the service's documents give:
 * method, path, query parameters and body fields (each area's `documents`, client-area.ts).
 * Each method of each area of the client is called for real, against a strict emulator, through
 * a proxy that notes what crosses the wire; a method added to the client without a call here
 * fails the test.
 */

/** Every area's documented operations, by `<METHOD> <path>`. */
const DOCUMENTED_OPERATIONS = Object.fromEntries(
  clientAreas.flatMap((area) => Object.entries(area.documents)),
);

/** What the documents do not name but another document of the service justifies. */
const JUSTIFIED: Readonly<Record<string, { readonly fields: readonly string[]; why: string }>> = {
  "PUT /api/v0/template/": {
    fields: ["args_str", "docker_login_user", "docker_login_pass"],
    why:
      "the service's templates guide (api-reference_creating-and-using-templates-with-api): an " +
      "edit by hash_id takes any field of its template fields table; the OpenAPI's PUT takes " +
      "additional properties and its POST names these",
  },
};

/** Private helpers a list bound at construction calls, not through the area: who reaches them. */
const REACHED_THROUGH: Readonly<Record<string, string>> = {
  "endpoints.fetchList": "endpoints.list",
};

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly query: readonly string[];
  readonly body: readonly string[];
}

/** A pass-through to the emulator that notes each request's method, path and field names. */
async function recordingProxy(
  target: string,
): Promise<{ url: string; sent: Sent[]; close: () => Promise<void> }> {
  const sent: Sent[] = [];
  const forward = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(incoming.url ?? "/", target);
    const parsed: unknown = text === "" ? undefined : JSON.parse(text);
    sent.push({
      method: incoming.method ?? "",
      path: url.pathname,
      query: [...new Set(url.searchParams.keys())],
      body:
        typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
          ? Object.keys(parsed)
          : [],
    });
    const headers = Object.fromEntries(
      Object.entries(incoming.headers).filter(
        (entry): entry is [string, string] =>
          typeof entry[1] === "string" && !["host", "connection"].includes(entry[0]),
      ),
    );
    const answer = await request(url, {
      method: (incoming.method ?? "GET") as "GET",
      headers,
      ...(text === "" ? {} : { body: text }),
    });
    const contentType = answer.headers["content-type"];
    outgoing.writeHead(answer.statusCode, {
      ...(typeof contentType === "string" ? { "content-type": contentType } : {}),
    });
    outgoing.end(await answer.body.text());
  };
  const server: Server = createServer((incoming, outgoing) => {
    forward(incoming, outgoing).catch((error: unknown) => {
      outgoing.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    sent,
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

/** The connections of the file's clients, closed after it. */
const pools = new ConnectionPools();

/** The client's areas, each behind a proxy that notes which of its methods ran. */
function watchedClient(baseUrl: string, apiKey: string) {
  const client = new GpuCloudClient({ baseUrl, apiKey, retryPolicy: fastRetryPolicy, pools });
  const called = new Set<string>();
  const methods: string[] = [];
  for (const [area, api] of Object.entries(client)) {
    if (typeof api !== "object" || api === null) continue;
    const prototype = Object.getPrototypeOf(api) as object;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      if (name !== "constructor") methods.push(`${area}.${name}`);
    }
    const watched = new Proxy(api as object, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value === "function" && typeof property === "string") {
          called.add(`${area}.${property}`);
        }
        return value;
      },
    });
    Object.defineProperty(client, area, { value: watched });
  }
  return { client, called, methods };
}

/** Runs a call for the request it sends: a refusal by the emulator is the audit's to judge. */
async function sends(call: () => Promise<unknown>): Promise<void> {
  await call().catch(() => undefined);
}

/** Calls every method of every area, in an order whose ids exist when they are needed. */
async function exerciseEveryMethod(client: GpuCloudClient): Promise<void> {
  await client.users.current();
  await client.secrets.create("AUDIT", "value");
  await client.secrets.update("AUDIT", "other");
  await client.secrets.list();
  await client.secrets.delete("AUDIT");

  await client.webhooks.notificationTypes();
  const hook = await client.webhooks.create({
    webhook_url: "https://hooks.example.com/audit",
    event_types: ["client:low_credit"],
    name: "audit",
  });
  await client.webhooks.update(hook.id, { name: null });
  await client.webhooks.rotateSecret(hook.id);
  await sends(() => client.webhooks.sendTest(hook.id));
  await client.webhooks.list();
  await client.webhooks.delete(hook.id);

  const sshKey = await client.sshKeys.create("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAudit audit");
  await client.sshKeys.update(sshKey.id, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAudit2 audit");
  await client.sshKeys.list();

  const apiKey = await client.apiKeys.create({ name: "audit", permissions: { api: { misc: {} } } });
  await client.apiKeys.list();
  await client.apiKeys.delete(apiKey.id);

  await client.searchOffers({ gpuName: "RTX 4090", order: [["dollarsPerHour", "asc"]], limit: 5 });
  await client.offers.searchInstances("num_gpus>=1 cuda_vers>=12");
  await client.searchVolumeOffers({ diskSpaceGb: { gte: 10 }, cudaMaxGood: { gte: 12 } });
  await client.offers.searchNetworkVolumes({ diskSpaceGb: { gte: 10 } });
  const [volumeAsk] = await client.volumes.searchOffers({});
  await client.volumes.searchNetworkVolumeOffers({});
  const [instanceAsk] = await client.instances.searchOffers({ rented: {} });
  if (volumeAsk === undefined || instanceAsk === undefined) throw new Error("no offers to rent");

  const volume = await client.volumes.acceptVolumeAsk(volumeAsk.id, 10, { name: "audit" });
  await sends(() => client.volumes.createNetworkVolume(25001, 100, { name: "audit-net" }));
  await client.volumes.list();

  const instanceId = await client.instances.create(instanceAsk.id, {
    image: "pytorch/pytorch:latest",
    disk: 16,
    label: "audit",
    onstart: "echo audit",
    env: { AUDIT: "1" },
    runtype: "ssh",
  });
  await client.instances.show(instanceId);
  await client.instances.showAmongMany(instanceId);
  await client.instances.nextStatus(instanceId, 100);
  await client.instances.list({ selectFilters: { label: { eq: "audit" } } });
  await client.instances.filterValues();
  await client.instances.logs(instanceId, { filter: "audit", tail: 100 });
  await client.instances.relabel(instanceId, "audited");
  await client.instances.setState(instanceId, "stopped");
  await client.instances.setStates([instanceId], "running");
  await sends(() => client.instances.changeBid(instanceId, 0.5));
  await client.instances.prepay(instanceId, 1);
  await client.instances.rebuildContainer(instanceId, {
    image: "pytorch/pytorch:2.4.0",
    env: { AUDIT: "1" },
    onstart: "echo audit",
  });
  await client.instances.rebootContainer(instanceId);
  await client.instances.recycleContainer(instanceId);
  await client.sshKeys.attach(instanceId, "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAudit3 audit");
  const [attached] = await client.sshKeys.onInstance(instanceId);
  if (attached !== undefined) await client.sshKeys.detach(instanceId, attached.id);
  await sends(() =>
    client.commands.startRemoteCopy({
      srcId: String(instanceId),
      dstId: String(instanceId),
      srcPath: "/a",
      dstPath: "/b",
    }),
  );
  await sends(() => client.commands.cancelRsyncCopy(String(instanceId)));

  const [clusterOffer] = await client.searchOffers({ clusterId: { neq: null } });
  const clusterId = clusterOffer?.clusterId ?? 101;
  const overlay = await client.overlays.create(clusterId, "audit-net");
  await sends(() => client.overlays.join("audit-net", instanceId));
  await client.overlays.list();
  await client.overlays.named("audit-net");
  await client.overlays.delete(overlay.overlay_id);

  await client.instances.destroy(instanceId);
  await sends(() => client.instances.destroyMany([instanceId]));
  await client.volumes.delete(volume.volumeId);
  await client.sshKeys.delete(sshKey.id);

  const template = await client.templates.create({
    name: "audit",
    image: "pytorch/pytorch",
    docker_login_user: "",
    docker_login_pass: "",
    args_str: "",
  });
  const edited = await client.templates.edit(template.hash_id, { desc: "audited" });
  await client.templates.search({});
  await client.templates.find({});

  const endpointId = await client.endpoints.create({
    endpoint_name: "audit",
    min_load: 0,
    target_util: 0.9,
    cold_mult: 2,
    cold_workers: 0,
    max_workers: 1,
  });
  await client.endpoints.update(endpointId, { max_workers: 2 });
  await client.endpoints.list();
  await client.endpoints.find(endpointId);
  await client.endpoints.keyOf(endpointId);
  const groupId = await client.workerGroups.create({
    endpoint_id: endpointId,
    template_hash: edited.hash_id,
    search_params: JSON.stringify({ gpu_name: { eq: "RTX 4090" } }),
    cold_workers: 0,
  });
  await client.workerGroups.update(groupId, { test_workers: 1 });
  await client.workerGroups.list();
  await client.workerGroups.find(groupId);
  await client.workerGroups.delete(groupId);
  await client.endpoints.delete(endpointId);
  await client.templates.delete(template.id);

  // A page apiece, so that a page's token goes back as after_token.
  const today = Math.floor(Date.now() / 86_400_000) * 86_400;
  await client.billing.charges({
    selectFilters: {
      day: { gte: today - 86_400, lte: today },
      type: { in: ["instance", "volume"] },
    },
    format: "table",
    latestFirst: false,
    limit: 2,
  });
  await client.billing.invoices({
    selectFilters: { when: { gte: 0, lte: today + 86_400 }, service: { in: ["stripe_payments"] } },
    orderBy: [{ col: "when", dir: "desc" }],
    latestFirst: true,
    limit: 1,
  });
}

function templateOf(operation: string): { method: string; pattern: RegExp } {
  const [method = "", path = ""] = operation.split(" ");
  const pattern = path.replace(/\/$/, "").replace(/\{[^}]+\}/g, "[^/]+");
  return { method, pattern: new RegExp(`^${pattern}/?$`) };
}

const operations = Object.keys(DOCUMENTED_OPERATIONS).map((operation) => ({
  operation,
  ...templateOf(operation),
}));

/** The documented operation a request is, static paths (instances/filters) before {id} ones. */
function operationOf(request: Sent) {
  return operations
    .filter((op) => op.method === request.method && op.pattern.test(request.path))
    .sort((a, b) => a.operation.split("{").length - b.operation.split("{").length)[0];
}

/** What a request sent beyond its documents: an empty list when nothing. */
function beyondDocuments(request: Sent): string[] {
  const match = operationOf(request);
  if (match === undefined) return [`${request.method} ${request.path}: no document gives it`];
  const documented = DOCUMENTED_OPERATIONS[match.operation];
  const justified = JUSTIFIED[match.operation]?.fields ?? [];
  const problems = [
    ...request.query
      .filter((name) => !(documented?.query ?? []).includes(name))
      .map((name) => `query ${name}`),
    ...request.body
      .filter((name) => !(documented?.body ?? []).includes(name) && !justified.includes(name))
      .map((name) => `body field ${name}`),
  ];
  return problems.map((problem) => `${match.operation}: ${problem} is in no document`);
}

// One test calls every method of the client, about a hundred requests: seconds on a loaded machine.
jest.setTimeout(30_000);

describe("every request the client can send is one the service documents", () => {
  let emulator: TestEmulator;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  beforeAll(async () => {
    emulator = await startTestEmulator({ market: { seed: 1 } });
    for (const createdAtSeconds of [1_767_225_600, 1_767_312_000]) {
      await emulator.addInvoice({ amountDollars: -25, createdAtSeconds });
    }
    proxy = await recordingProxy(emulator.url);
  });
  afterAll(async () => {
    await pools.close();
    await proxy.close();
    await emulator.close();
  });

  it("calls each method of the client; each request's method, path and fields are documented", async () => {
    const { client, called, methods } = watchedClient(proxy.url, emulator.apiKey);
    await exerciseEveryMethod(client);

    const reached = (method: string) => called.has(REACHED_THROUGH[method] ?? method);
    expect(methods.filter((method) => !reached(method))).toEqual([]);
    expect(proxy.sent.length).toBeGreaterThan(50);
    expect(proxy.sent.flatMap(beyondDocuments)).toEqual([]);
    // Every documented operation listed is one the client sends: the table holds no guesses.
    const sentOperations = new Set(proxy.sent.map((request) => operationOf(request)?.operation));
    expect(Object.keys(DOCUMENTED_OPERATIONS).filter((op) => !sentOperations.has(op))).toEqual([]);
    // The billing lists were followed to their second page.
    for (const path of ["/api/v0/charges/", "/api/v1/invoices/"]) {
      const paged = proxy.sent.filter((r) => r.path === path && r.query.includes("after_token"));
      expect({ path, paged: paged.length > 0 }).toEqual({ path, paged: true });
    }
    // The strict emulator refused nothing the client sent.
    expect(proxy.sent.length).toBe((await emulator.requests()).length);
    expect((await emulator.requests()).filter((entry) => entry.status === 405)).toEqual([]);
  });

  it("has each operation's documents from one area", () => {
    const given = clientAreas.flatMap((area) => Object.keys(area.documents));
    expect(given.filter((operation, at) => given.indexOf(operation) !== at)).toEqual([]);
    expect(given.length).toBeGreaterThan(50);
  });

  it("would catch an instance created with POST, as the specification's summary has it", () => {
    expect(
      beyondDocuments({ method: "POST", path: "/api/v0/asks/31001/", query: [], body: [] }),
    ).toEqual(["POST /api/v0/asks/31001/: no document gives it"]);
    expect(
      beyondDocuments({ method: "PUT", path: "/api/v0/asks/31001/", query: [], body: ["gpus"] }),
    ).toEqual(["PUT /api/v0/asks/{id}/: body field gpus is in no document"]);
  });
});
