import { request } from "undici";
import { z } from "zod";
import { GpuCloudClient } from "../../provider/client";
import { releaseWorkers, WorkersLeftError } from "../../provider/serverless/release";
import {
  implementation as provider,
  searchQueryOf,
  type WorkerGroupInputs,
  type WorkerGroupOutputs,
} from "../../provider/resources/worker-group";
import { Run } from "../../provider/run/run";
import { unknownValue } from "../../provider/shared/validation";
import type { TestEmulator } from "../support/emulator";
import { useEmulator } from "../support/use-emulator";
import { createTemplate, emptyAccount, eventually } from "./serverless-support";
import { clientFor } from "../support/clients";
import { failureOf } from "./harness";

// Serverless worker groups: the client against the emulator's engine, and the WorkerGroup
// resource's provider methods as the dynamic-provider process calls them. Money first: a
// deleted group leaves no worker instance on the account.

async function rowKeys(emulator: TestEmulator): Promise<string[]> {
  const keys: string[] = [];
  for (const path of ["/api/v0/endptjobs/", "/api/v0/workergroups/"]) {
    const response = await request(`${emulator.url}${path}`, {
      headers: { authorization: `Bearer ${emulator.apiKey}` },
    });
    const body = z
      .object({ results: z.array(z.looseObject({ api_key: z.string() })).optional() })
      .catch({})
      .parse(await response.body.json());
    keys.push(...(body.results ?? []).map((row) => row.api_key));
  }
  return keys;
}

type Faults = Parameters<TestEmulator["setFaults"]>[0] & { workerReleaseFails?: { next: number } };

jest.setTimeout(30_000);

describe("serverless worker groups", () => {
  let client!: GpuCloudClient;
  let endpointId = 0;
  let hash = "";
  const providers = useEmulator({ per: "file" });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  beforeEach(async () => {
    endpointId = await client.endpoints.create({
      endpoint_name: "llm",
      min_load: 1,
      target_util: 0.9,
      cold_mult: 2.5,
      cold_workers: 1,
      max_workers: 4,
    });
    hash ||= await createTemplate(emulator, "worker-groups");
  });

  afterEach(async () => {
    await emulator.clearFaults();
    await emptyAccount(client);
  });

  // A read with a signal is never shared (SharedList): it sees the provider's own writes.
  const freshGroup = async (id: number) =>
    (await client.workerGroups.list(new AbortController().signal)).find((group) => group.id === id);
  const workerIds = async () => (await client.instances.list()).map((instance) => instance.id);

  describe("the client", () => {
    it("creates a group whose cold workers appear, lists it without the api_key, updates it", async () => {
      const id = await client.workerGroups.create({
        endpoint_id: endpointId,
        template_hash: hash,
        search_params: JSON.stringify(searchQueryOf({ gpuName: "RTX 3090" })),
        cold_workers: 2,
        launch_args: "--env LOG_LEVEL=debug",
      });
      const instances = await client.instances.list();
      expect(instances.map((instance) => instance.gpu_name)).toEqual(["RTX 3090", "RTX 3090"]);

      const listed = await client.workerGroups.list();
      expect(listed).toEqual([
        expect.objectContaining({
          id,
          endpoint_id: endpointId,
          template_hash: hash,
          search_query: searchQueryOf({ gpuName: "RTX 3090" }),
          launch_args: "--env LOG_LEVEL=debug",
          min_load: 1,
          target_util: 0.9,
          cold_mult: 3,
          test_workers: 3,
          gpu_ram: 24,
        }),
      ]);
      const keys = await rowKeys(emulator);
      expect(keys).toHaveLength(2);
      expect(listed[0]).not.toHaveProperty("api_key");
      for (const key of keys) expect(JSON.stringify(listed).includes(key)).toBe(false);

      await client.workerGroups.update(id, { min_load: 4, launch_args: "" });
      expect(await freshGroup(id)).toMatchObject({ min_load: 4, launch_args: "" });
      // The update the service describes does not take cold or max workers: never sent.
      const refused = await failureOf(client.workerGroups.update(id, { cold_workers: 1 } as never));
      expect(refused.message).toMatch(/was not sent: its body is invalid/);
    });

    it("deletes a group; its workers leave the account only after the release delay", async () => {
      const id = await client.workerGroups.create({
        endpoint_id: endpointId,
        template_hash: hash,
        cold_workers: 2,
      });
      const workers = await workerIds();
      expect(workers).toHaveLength(2);
      const answer = await client.workerGroups.delete(id);
      expect(answer).toMatchObject({ success: true, failed_workers: [] });
      expect([...answer.deleted_workers].sort()).toEqual([...workers].sort());
      // Released asynchronously: still listed right after the delete...
      expect((await workerIds()).sort()).toEqual([...workers].sort());
      // ...and gone a little later.
      await eventually("the workers to go", async () => (await workerIds()).length === 0);
      const missing = await failureOf(client.workerGroups.delete(id));
      expect(missing).toMatchObject({ status: 404, code: "no_such_workergroup", isNotFound: true });
    });
  });

  describe("the WorkerGroup provider", () => {
    const declared = (): WorkerGroupInputs => ({
      endpointId,
      templateHashId: hash,
      offerQuery: { gpuName: "RTX 4090", gpuRamGb: { gte: 16 } },
      launchArgs: "--env LOG_LEVEL=debug",
      minLoad: 1,
      targetUtil: 0.9,
      coldMult: 3,
      coldWorkers: 2,
      maxWorkers: 3,
      testWorkers: 3,
      gpuRamGb: 24,
      deleteTimeoutSeconds: 30,
    });

    it("checks at preview: one template, filters only, an existing endpoint, within bounds", async () => {
      await emulator.clearRequests();
      const reasons = async (news: Record<string, unknown>) =>
        (await provider.check?.(providers.run, {} as never, news as never))?.failures?.map(
          (f) => f.reason,
        );
      expect(await reasons({ endpointId })).toEqual([
        "templateHashId: required: the workers' template, by templateHashId (Template.hashId) or templateId (Template.templateId)",
      ]);
      expect(await reasons({ endpointId, templateHashId: hash, templateId: 3 })).toEqual([
        "templateHashId: give templateHashId or templateId, not both",
      ]);
      expect(
        await reasons({
          endpointId,
          templateId: 3,
          offerQuery: { gpuName: "RTX 4090", limit: 2 },
          coldWorkers: 4,
          maxWorkers: 2,
        }),
      ).toEqual([
        "offerQuery.limit: a worker group's query only filters offers (the service's engine chooses among them and rents on demand): remove order, limit and type",
        "coldWorkers: (4) must be at most maxWorkers (2): the service never keeps more workers than maxWorkers",
      ]);
      expect(await reasons({ endpointId: endpointId + 100, templateId: 3 })).toEqual([
        `endpointId: the account has no endpoint ${endpointId + 100}; give an Endpoint's endpointId`,
      ]);
      // The secret-looking launch arguments are never repeated.
      const failures = await reasons({
        endpointId,
        templateId: 3,
        launchArgs: ["--env", "TOKEN=abc123"],
      });
      expect(failures).toEqual([
        "launchArgs: expected a string, received a list of 2 (command-line style arguments, e.g. --env VAR=value)",
      ]);
      // An endpoint not created yet (preview) is not looked for.
      expect(await reasons({ endpointId: unknownValue, templateHashId: unknownValue })).toEqual([]);
      expect(await emulator.writes()).toEqual([]);
    });

    it("creates (cold workers from the query), reads, records drift, updates in place, deletes waiting for every worker", async () => {
      const inputs = declared();
      const created = await provider.create(providers.run, inputs);
      const outs = created.outs as WorkerGroupOutputs;
      const workerGroupId = outs.workerGroupId;
      expect(created).toEqual({
        id: String(workerGroupId),
        outs: { ...inputs, workerGroupId, searchQuery: searchQueryOf(inputs.offerQuery) },
      });
      const instances = await client.instances.list();
      expect(instances.map((instance) => instance.gpu_name)).toEqual(["RTX 4090", "RTX 4090"]);
      // No credential in the outputs.
      for (const key of await rowKeys(emulator)) expect(JSON.stringify(outs)).not.toContain(key);

      expect(await provider.read(providers.run, created.id, outs)).toEqual({
        id: created.id,
        props: outs,
      });

      // Changed outside Pulumi: recorded by read; the next diff wants the declared values back.
      const outside = { gpu_name: { eq: "RTX 3090" } };
      await client.workerGroups.update(workerGroupId, {
        min_load: 7,
        search_params: JSON.stringify(outside),
        launch_args: "",
      });
      await new Promise((resolve) => setTimeout(resolve, 2_100)); // past the shared list read
      const drift = await provider.read(providers.run, created.id, outs);
      const drifted = { ...outs, minLoad: 7, searchQuery: outside, launchArgs: "" };
      expect(drift.props).toEqual(drifted);
      expect(drift.inputs).not.toHaveProperty("searchQuery");
      expect(drift.inputs).not.toHaveProperty("workerGroupId");
      expect(await provider.diff?.(providers.run, created.id, drifted, inputs)).toEqual({
        changes: true,
        replaces: [],
      });
      const restored = await provider.update?.(providers.run, created.id, drifted, inputs);
      expect(restored?.outs).toEqual(outs);
      expect(await freshGroup(workerGroupId)).toMatchObject({
        min_load: 1,
        launch_args: "--env LOG_LEVEL=debug",
        search_query: searchQueryOf(inputs.offerQuery),
      });

      // In place: a new query and load, the same group.
      const changed = { ...inputs, offerQuery: "gpu_name=RTX_3090", minLoad: 3 };
      expect(await provider.diff?.(providers.run, created.id, outs, changed)).toEqual({
        changes: true,
        replaces: [],
      });
      const updated = await provider.update?.(providers.run, created.id, outs, changed);
      expect(updated?.outs).toEqual({
        ...changed,
        workerGroupId,
        searchQuery: searchQueryOf("gpu_name=RTX_3090"),
      });
      expect(await freshGroup(workerGroupId)).toMatchObject({
        min_load: 3,
        search_query: searchQueryOf("gpu_name=RTX_3090"),
      });
      // Cold and max workers: the service's update does not take them.
      expect(
        await provider.diff?.(providers.run, created.id, outs, { ...inputs, coldWorkers: 1 }),
      ).toEqual({
        changes: true,
        replaces: ["coldWorkers"],
      });

      // Delete returns only once no worker of the group is on the account.
      const workers = await workerIds();
      expect(workers.length).toBeGreaterThan(0);
      await provider.delete?.(providers.run, created.id, updated?.outs as WorkerGroupOutputs);
      expect(await workerIds()).toEqual([]);
      expect(await provider.read(providers.run, created.id, outs)).toEqual({});
      // A group already gone (with its endpoint, or outside Pulumi): nothing to do.
      await provider.delete?.(providers.run, created.id, outs);
    });

    it("takes the group a lost create reply made, sending the create once", async () => {
      await emulator.clearRequests();
      await emulator.setFaults({
        drops: {
          next: 1,
          afterHandling: true,
          methods: ["POST"],
          paths: ["/api/v0/workergroups/"],
        },
      });
      const created = await provider.create(providers.run, declared());
      const groups = await client.workerGroups.list(new AbortController().signal);
      expect(groups.map((group) => String(group.id))).toEqual([created.id]);
      const posts = (await emulator.requests()).filter(
        (entry) => entry.method === "POST" && entry.path === "/api/v0/workergroups/",
      );
      expect(posts).toHaveLength(1);
      await provider.delete?.(providers.run, created.id, created.outs as WorkerGroupOutputs);
      expect(await workerIds()).toEqual([]);
    });

    it("destroys the workers the service could not, before it returns", async () => {
      const created = await provider.create(providers.run, declared());
      const outs = created.outs as WorkerGroupOutputs;
      const workers = await workerIds();
      expect(workers).toHaveLength(2);
      const faults: Faults = { workerReleaseFails: { next: 2 } };
      await emulator.setFaults(faults);
      await emulator.clearRequests();
      await provider.delete?.(providers.run, created.id, outs);
      expect(await workerIds()).toEqual([]);
      const destroyed = (await emulator.requests())
        .filter((entry) => entry.method === "DELETE" && entry.path.startsWith("/api/v0/instances/"))
        .map((entry) => entry.path);
      expect(destroyed.sort()).toEqual(workers.map((id) => `/api/v0/instances/${id}/`).sort());
    });

    it("never takes a delete whose answer was lost for done: it names the instances to look at", async () => {
      const created = await provider.create(providers.run, { ...declared(), coldWorkers: 1 });
      const [worker] = await workerIds();
      // The service deletes the group and cannot destroy its worker; the answer saying so is lost.
      const faults: Faults = {
        workerReleaseFails: { next: 1 },
        drops: {
          next: 1,
          afterHandling: true,
          methods: ["DELETE"],
          paths: ["/api/v0/workergroups/"],
        },
      };
      await emulator.setFaults(faults);
      const error = await Promise.resolve(
        provider.delete?.(providers.run, created.id, created.outs as WorkerGroupOutputs),
      ).then(
        () => new Error("the delete succeeded"),
        (failure: unknown) => failure as Error,
      );
      expect(error.message).toMatch(
        new RegExp(
          `^worker group ${created.id} was deleted, but the service's answer, which names the worker instances it releases and those it could not, was lost .*instances launched from its template still on the account: ${worker} `,
        ),
      );
      expect(await workerIds()).toEqual([worker]);
    });

    it("sends a delete again when its answer was lost and the group is still there", async () => {
      const created = await provider.create(providers.run, { ...declared(), coldWorkers: 1 });
      await emulator.setFaults({
        drops: { next: 1, methods: ["DELETE"], paths: ["/api/v0/workergroups/"] },
      });
      await provider.delete?.(providers.run, created.id, created.outs as WorkerGroupOutputs);
      expect(await workerIds()).toEqual([]);
      expect(await freshGroup(Number(created.id))).toBeUndefined();
    });

    it("fails naming each worker it cannot remove, and what to do", async () => {
      await provider.create(providers.run, { ...declared(), coldWorkers: 1 });
      const [worker] = await workerIds();
      // Destroys fail (500) every time; a client with short retries.
      await emulator.setFaults({
        serverErrors: { rate: 1, methods: ["DELETE"], paths: ["/api/v0/instances/"], status: 500 },
      });
      const fast = clientFor(emulator.url, emulator.apiKey);
      const error = await releaseWorkers(
        new Run({ client: fast }),
        "worker group 9",
        { success: true, deleted_workers: [], failed_workers: [worker ?? 0] },
        { intervalMs: 50, timeoutMs: 2_000 },
      ).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(WorkersLeftError);
      expect((error as WorkersLeftError).instanceIds).toEqual([worker]);
      expect((error as Error).message.split("\n")).toEqual([
        "worker group 9 was deleted, but 1 of its worker instances could not be removed:",
        expect.stringMatching(
          new RegExp(
            `^worker instance ${worker} is still on the account \\d+ s after worker group 9 was deleted \\(destroying it failed: DELETE /api/v0/instances/${worker}/ failed with HTTP 500.*\\): destroy it yourself \\(the console, or DELETE /api/v0/instances/${worker}/\\); it is billed while it exists$`,
          ),
        ) as unknown as string,
      ]);
    });

    it("destroys a worker the service said it destroyed that outlives half the wait", async () => {
      await provider.create(providers.run, { ...declared(), coldWorkers: 1 });
      const [worker] = await workerIds();
      // An answer naming a worker that is, in fact, still running.
      await releaseWorkers(
        new Run({ client }),
        "worker group 9",
        { success: true, deleted_workers: [worker ?? 0], failed_workers: [] },
        { intervalMs: 50, timeoutMs: 1_000 },
      );
      expect(await workerIds()).toEqual([]);
    });
  });
});
