import { request } from "undici";
import { z } from "zod";
import { GpuCloudClient, isEndpointGone } from "../../provider/client";
import {
  type EndpointInputs,
  type EndpointOutputs,
  implementation as provider,
} from "../../provider/resources/endpoint";
import { unknownValue } from "../../provider/shared/validation";
import type { TestEmulator } from "../support/emulator";
import { useEmulator } from "../support/use-emulator";
import { failureOf } from "./harness";
import { createTemplate, emptyAccount, eventually } from "./serverless-support";

// Serverless endpoints: the client against the emulator, and the Endpoint resource's provider
// methods as the dynamic-provider process calls them.

/** The rows as the service sends them, api_key included (the client never passes it on). */
async function rawRows(emulator: TestEmulator, path: string) {
  const response = await request(`${emulator.url}${path}`, {
    headers: { authorization: `Bearer ${emulator.apiKey}` },
  });
  return z
    .object({ results: z.array(z.looseObject({ api_key: z.string() })).optional() })
    .catch({})
    .parse(await response.body.json()).results;
}

const fields = {
  endpoint_name: "llm",
  min_load: 1,
  target_util: 0.9,
  cold_mult: 2.5,
  cold_workers: 2,
  max_workers: 4,
};

jest.setTimeout(30_000);

describe("serverless endpoints", () => {
  let client!: GpuCloudClient;
  const providers = useEmulator({ per: "file" });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  afterEach(async () => {
    await emptyAccount(client);
  });

  describe("the client", () => {
    it("lists none on an account without endpoints (the service's 400 is an empty list)", async () => {
      expect(await rawRows(emulator, "/api/v0/endptjobs/")).toBeUndefined();
      expect(await client.endpoints.list()).toEqual([]);
    });

    it("creates, lists without the api_key, updates in place and deletes", async () => {
      const id = await client.endpoints.create(fields);
      const raw = await rawRows(emulator, "/api/v0/endptjobs/");
      const apiKey = raw?.[0]?.api_key ?? "";
      expect(apiKey).not.toBe("");

      const listed = await client.endpoints.list();
      expect(listed).toEqual([
        expect.objectContaining({ id, ...fields, endpoint_state: "active" }),
      ]);
      expect(listed[0]).not.toHaveProperty("api_key");
      expect(JSON.stringify(listed)).not.toContain(apiKey);

      await client.endpoints.update(id, { target_util: 0.5, endpoint_name: "renamed" });
      expect(await client.endpoints.find(id)).toMatchObject({
        id,
        target_util: 0.5,
        endpoint_name: "renamed",
        cold_workers: 2,
      });

      expect(await client.endpoints.delete(id)).toMatchObject({
        success: true,
        deleted_workers: [],
        failed_workers: [],
      });
      expect(await client.endpoints.list()).toEqual([]);
    });

    it("says an unknown endpoint is gone", async () => {
      await client.endpoints.create(fields);
      expect(isEndpointGone(await failureOf(client.endpoints.delete(999)))).toBe(true);
      expect(isEndpointGone(await failureOf(client.endpoints.update(999, { min_load: 2 })))).toBe(
        true,
      );
    });
  });

  describe("the Endpoint provider", () => {
    const declared: EndpointInputs = {
      endpointName: "llm",
      minLoad: 1,
      targetUtil: 0.9,
      coldMult: 2.5,
      coldWorkers: 2,
      maxWorkers: 4,
      deleteTimeoutSeconds: 60,
    };

    it("checks bounds at preview: one line per field, the service's defaults filled in", async () => {
      await emulator.clearRequests();
      expect(
        await provider.check?.(providers.run, {} as never, { endpointName: "llm" } as never),
      ).toEqual({
        inputs: {
          ...declared,
          minLoad: 10,
          coldWorkers: 5,
          maxWorkers: 20,
          deleteTimeoutSeconds: 600,
        },
        failures: [],
      });
      const checked = await provider.check?.(
        providers.run,
        {} as never,
        {
          endpointName: "llm",
          targetUtil: 1.2,
          coldWorkers: 5,
          maxWorkers: 3,
        } as never,
      );
      expect(checked?.failures?.map((failure) => failure.reason)).toEqual([
        "targetUtil: is a fraction of capacity, more than 0 and at most 1 (1 keeps no headroom); got 1.2",
        "coldWorkers: (5) must be at most maxWorkers (3): the service never keeps more workers than maxWorkers",
      ]);
      const defaulted = await provider.check?.(
        providers.run,
        {} as never,
        { endpointName: "llm", maxWorkers: 2 } as never,
      );
      expect(defaulted?.failures?.map((failure) => failure.reason)).toEqual([
        "coldWorkers: (default 5) must be at most maxWorkers (2): set coldWorkers to 2 or less",
      ]);
      // Not known yet at preview: left for the real run.
      const unknown = await provider.check?.(
        providers.run,
        {} as never,
        {
          endpointName: unknownValue,
          maxWorkers: unknownValue,
        } as never,
      );
      expect(unknown?.failures ?? []).toEqual([]);
      expect(await emulator.writes()).toEqual([]);
    });

    it("creates (its cold workers appear), reads, records drift, updates in place and deletes", async () => {
      const hash = await createTemplate(emulator, "endpoint-provider");
      const created = await provider.create(providers.run, declared);
      const outs = created.outs as EndpointOutputs;
      const apiKey = (await rawRows(emulator, "/api/v0/endptjobs/"))?.[0]?.api_key;
      // How a program calls it: the route URL on the configured address, the endpoint's own key.
      expect(created).toEqual({
        id: String(outs.endpointId),
        outs: {
          ...declared,
          endpointId: outs.endpointId,
          routeUrl: `${emulator.url}/route/`,
          apiKey,
        },
      });
      const groupId = await client.workerGroups.create({
        endpoint_id: outs.endpointId,
        template_hash: hash,
        search_params: JSON.stringify({ gpu_name: { eq: "RTX 4090" } }),
      });
      // The group keeps the endpoint's cold workers.
      const workers = (await client.instances.list()).map((instance) => instance.id);
      expect(workers).toHaveLength(2);

      // Found as recorded: no inputs (the engine keeps the recorded ones).
      expect(await provider.read(providers.run, created.id, outs)).toEqual({
        id: created.id,
        props: outs,
      });
      // Changed outside Pulumi: the drift is recorded, with inputs for the next diff.
      await client.endpoints.update(outs.endpointId, { cold_workers: 1, endpoint_name: "outside" });
      // Reads within 2 s share one list (SharedList): this read must come after.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const {
        endpointId: _id,
        routeUrl: _url,
        apiKey: _key,
        ...driftedInputs
      } = {
        ...outs,
        coldWorkers: 1,
        endpointName: "outside",
      };
      expect(await provider.read(providers.run, created.id, outs)).toEqual({
        id: created.id,
        props: { ...outs, coldWorkers: 1, endpointName: "outside" },
        inputs: driftedInputs,
      });
      expect(
        await provider.diff?.(providers.run, created.id, { ...outs, coldWorkers: 1 }, declared),
      ).toEqual({
        changes: true,
        replaces: [],
      });

      // In place: the same id; the engine follows the new number of cold workers.
      const updated = await provider.update?.(providers.run, created.id, outs, {
        ...declared,
        coldWorkers: 3,
      });
      expect(updated).toEqual({
        outs: {
          ...declared,
          coldWorkers: 3,
          endpointId: outs.endpointId,
          routeUrl: outs.routeUrl,
          apiKey: outs.apiKey,
        },
      });
      expect(
        (await client.endpoints.list(new AbortController().signal)).find(
          (e) => e.id === outs.endpointId,
        ),
      ).toMatchObject({
        cold_workers: 3,
        endpoint_name: "llm",
      });
      await eventually("three workers", async () => (await client.instances.list()).length === 3);

      // Delete takes the group with it and returns only once no worker is on the account.
      await provider.delete?.(providers.run, created.id, { ...outs, coldWorkers: 3 });
      expect(await client.instances.list()).toEqual([]);
      expect(await client.workerGroups.find(groupId)).toBeUndefined();
      expect(await provider.read(providers.run, created.id, outs)).toEqual({});
      // Deleting again (an interrupted delete retried) succeeds.
      await provider.delete?.(providers.run, created.id, outs);
    });

    it("outputs the key the service shows, read again by refresh; a state without it gets it", async () => {
      const created = await provider.create(providers.run, declared);
      const outs = created.outs as EndpointOutputs;
      expect(outs.apiKey).toMatch(/^[0-9a-f]{64}$/);
      // A recorded key that is not the service's (rotated outside Pulumi): refresh records the
      // service's.
      const recorded = { ...outs, apiKey: "an-older-key" };
      expect(await provider.read(providers.run, created.id, recorded)).toMatchObject({
        props: { apiKey: outs.apiKey, routeUrl: `${emulator.url}/route/` },
      });
      // A state from before these outputs: the next update fills them in.
      const older: Partial<EndpointOutputs> = { ...outs };
      delete older.apiKey;
      delete older.routeUrl;
      const updated = await provider.update?.(providers.run, created.id, older as EndpointOutputs, {
        ...declared,
        minLoad: 2,
      });
      expect(updated?.outs).toMatchObject({ apiKey: outs.apiKey, routeUrl: outs.routeUrl });
      // Imported by id: the same outputs.
      const imported = await provider.read(providers.run, created.id, undefined);
      expect(imported.props).toMatchObject({ apiKey: outs.apiKey, routeUrl: outs.routeUrl });
    });

    it("destroys the workers the service could not release before it returns", async () => {
      const hash = await createTemplate(emulator, "endpoint-failed-workers");
      const created = await provider.create(providers.run, { ...declared, coldWorkers: 2 });
      const outs = created.outs as EndpointOutputs;
      await client.workerGroups.create({ endpoint_id: outs.endpointId, template_hash: hash });
      expect(await client.instances.list()).toHaveLength(2);
      const faults: Parameters<TestEmulator["setFaults"]>[0] & {
        workerReleaseFails?: { next: number };
      } = { workerReleaseFails: { next: 1 } };
      await emulator.setFaults(faults);
      try {
        await emulator.clearRequests();
        await provider.delete?.(providers.run, created.id, outs);
      } finally {
        await emulator.clearFaults();
      }
      expect(await client.instances.list()).toEqual([]);
      // The one the service left running was destroyed by the provider.
      const destroys = (await emulator.requests()).filter(
        (entry) => entry.method === "DELETE" && entry.path.startsWith("/api/v0/instances/"),
      );
      expect(destroys).toHaveLength(1);
    });

    it("never takes a delete whose answer was lost for done", async () => {
      const hash = await createTemplate(emulator, "endpoint-lost-answer");
      const created = await provider.create(providers.run, { ...declared, coldWorkers: 1 });
      const outs = created.outs as EndpointOutputs;
      await client.workerGroups.create({ endpoint_id: outs.endpointId, template_hash: hash });
      const [worker] = await client.instances.list();
      // The service deletes it and cannot destroy the worker; the answer saying so is lost.
      const faults: Parameters<TestEmulator["setFaults"]>[0] & {
        workerReleaseFails?: { next: number };
      } = {
        workerReleaseFails: { next: 1 },
        drops: { next: 1, afterHandling: true, methods: ["DELETE"], paths: ["/api/v0/endptjobs/"] },
      };
      await emulator.setFaults(faults);
      const error = await Promise.resolve(provider.delete?.(providers.run, created.id, outs)).then(
        () => new Error("the delete succeeded"),
        (failure: unknown) => failure as Error,
      );
      await emulator.clearFaults();
      expect(error.message).toMatch(
        new RegExp(
          `^endpoint ${outs.endpointId} was deleted, but the service's answer, .* was lost`,
        ),
      );
      expect((await client.instances.list()).map((instance) => instance.id)).toEqual([worker?.id]);
    });
  });
});
