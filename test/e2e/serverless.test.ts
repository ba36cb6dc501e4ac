import { request } from "undici";
import { z } from "zod";
import type { TestEmulator } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import {
  dynamicResources,
  emulatorConfig,
  expectNoLeak,
  outsideClient,
  program,
} from "../support/programs";
import { callEndpoint } from "../support/serverless-call";
import { useEmulator } from "../support/use-emulator";

// A template, a serverless endpoint and a worker group under the real Pulumi CLI, against the
// emulator's serverless engine: the group's cold workers are instances of the account; each
// changes in place; destroy leaves no worker instance, group, endpoint or template.

interface Declared {
  targetUtil: number;
  groupMinLoad: number;
  gpuNames: string[];
  model?: string;
  groupColdWorkers?: number;
}

const serverlessProgram = (declared: Declared) =>
  program(`
const template = new gpucloud.Template("worker-image", {
  name: "serverless-e2e",
  image: "vllm/vllm-openai",
  tag: "v0.6.3",
  env: { MODEL_NAME: "${declared.model ?? "Qwen/Qwen3-8B"}" },
  diskGb: 20,
});
const endpoint = new gpucloud.Endpoint("llm", {
  endpointName: "e2e-llm",
  minLoad: 1,
  targetUtil: ${declared.targetUtil},
  coldWorkers: 2,
  maxWorkers: 4,
  deleteTimeoutSeconds: 60,
});
const group = new gpucloud.WorkerGroup("llm-workers", {
  endpointId: endpoint.endpointId,
  templateHashId: template.hashId,
  offerQuery: { gpuName: { in: ${JSON.stringify(declared.gpuNames)} }, gpuRamGb: { gte: 16 } },
  launchArgs: "--env LOG_LEVEL=debug",
  minLoad: ${declared.groupMinLoad},
  coldWorkers: ${declared.groupColdWorkers ?? 2},
  maxWorkers: 3,
  gpuRamGb: 24,
  deleteTimeoutSeconds: 60,
});
exports.endpointId = endpoint.endpointId;
exports.workerGroupId = group.workerGroupId;
exports.templateHashId = template.hashId;
exports.searchQuery = group.searchQuery;
exports.routeUrl = endpoint.routeUrl;
exports.endpointName = endpoint.endpointName;
exports.apiKey = endpoint.apiKey;
exports.instances = group.workerGroupId.apply(() => gpucloud.getInstances());
`);

/** The emulator's fault that leaves the next released worker running (failed_workers). */
const releaseFails: Parameters<TestEmulator["setFaults"]>[0] & {
  workerReleaseFails?: { next: number };
} = { workerReleaseFails: { next: 1 } };

/** The account's worker groups, read afresh (a read with a signal is never shared). */
async function freshGroups(emulator: TestEmulator) {
  return outsideClient(emulator).workerGroups.list(new AbortController().signal);
}

/** The account's instance ids (workers included), as another tool would list them. */
async function instanceIds(emulator: TestEmulator): Promise<number[]> {
  return (await outsideClient(emulator).instances.list()).map((instance) => instance.id);
}

async function eventually(what: string, condition: () => Promise<boolean>, timeoutMs = 20_000) {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The `api_key` values the service shows in its endpoint or group rows (credentials). */
async function rowKeys(
  emulator: TestEmulator,
  path: "/api/v0/endptjobs/" | "/api/v0/workergroups/",
): Promise<string[]> {
  const keys: string[] = [];
  {
    const response = await request(`${emulator.url}${path}`, {
      headers: { authorization: `Bearer ${emulator.apiKey}` },
    });
    const body = z
      .object({ results: z.array(z.object({ api_key: z.string().optional() })).optional() })
      .catch({})
      .parse(await response.body.json());
    for (const row of body.results ?? []) if (row.api_key) keys.push(row.api_key);
  }
  return keys;
}

describe("Serverless endpoint and worker group under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test" });

  it("creates workers, refreshes unchanged, updates each in place and destroys every worker", async () => {
    const declared: Declared = {
      targetUtil: 0.9,
      groupMinLoad: 1,
      gpuNames: ["RTX 4090", "RTX 3090"],
    };
    await withStack(
      { program: serverlessProgram(declared), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, exportState, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 4 });
        const endpointId = up.outputs["endpointId"]?.value as number;
        const workerGroupId = up.outputs["workerGroupId"]?.value as number;
        expect(up.outputs["searchQuery"]?.value).toMatchObject({
          gpu_name: { in: declared.gpuNames },
          gpu_ram: { gte: 16000 },
        });

        // The group's cold workers are instances of the account.
        await eventually(
          "two cold workers",
          async () => (await instanceIds(emulator)).length === 2,
        );
        const workers = await instanceIds(emulator);
        // getInstances sees them, as summaries without their environment.
        const summaries = z
          .array(z.looseObject({ instanceId: z.number(), gpuName: z.string().nullable() }))
          .parse(up.outputs["instances"]?.value);
        expect(summaries.map((summary) => summary.instanceId).sort()).toEqual([...workers].sort());
        expect(JSON.stringify(summaries)).not.toContain("Qwen/Qwen3-8B");
        for (const summary of summaries) {
          expect(summary["templateHashId"]).toBe(up.outputs["templateHashId"]?.value);
        }
        const client = outsideClient(emulator);
        expect((await client.endpoints.list()).map((endpoint) => endpoint.id)).toEqual([
          endpointId,
        ]);

        // The program exports what a client calls the endpoint with, and the call answers.
        const [endpointKey] = await rowKeys(emulator, "/api/v0/endptjobs/");
        expect(up.outputs["routeUrl"]).toEqual({ value: `${emulator.url}/route/`, secret: false });
        expect(up.outputs["endpointName"]).toEqual({ value: "e2e-llm", secret: false });
        // Compared, never printed: a failure must not show the key.
        expect(up.outputs["apiKey"]?.secret).toBe(true);
        expect(up.outputs["apiKey"]?.value === endpointKey).toBe(true);
        const payload = { inputs: "What is the answer?" };
        const { route, served } = await callEndpoint(
          {
            routeUrl: z.string().parse(up.outputs["routeUrl"]?.value),
            endpointName: "e2e-llm",
            apiKey: z.string().parse(up.outputs["apiKey"]?.value),
          },
          payload,
        );
        expect(workers.map((id) => `${emulator.url}/serverless-workers/${String(id)}`)).toContain(
          route.url,
        );
        expect(served).toMatchObject({ route: "/generate", payload });
        expect(await client.workerGroups.list()).toEqual([
          expect.objectContaining({ id: workerGroupId, endpoint_id: endpointId }),
        ]);

        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 4 });
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ same: 4 });

        // The endpoint's target and the group's load and query change in place, same ids.
        const changed: Declared = { targetUtil: 0.7, groupMinLoad: 5, gpuNames: ["RTX 4090"] };
        await setProgram(serverlessProgram(changed));
        const update = await stack.up({ onOutput });
        expect(update.summary.resourceChanges).toEqual({ same: 2, update: 2 });
        expect(await client.endpoints.list()).toEqual([
          expect.objectContaining({ id: endpointId, target_util: 0.7 }),
        ]);
        expect(await client.workerGroups.list()).toEqual([
          expect.objectContaining({
            id: workerGroupId,
            min_load: 5,
            search_query: expect.objectContaining({ gpu_name: { in: ["RTX 4090"] } }) as unknown,
          }),
        ]);
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({ same: 4 });

        // Changed outside Pulumi: refresh records it, up restores the program's values.
        await client.endpoints.update(endpointId, { target_util: 0.5 });
        await client.workerGroups.update(workerGroupId, { min_load: 9 });
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({
          same: 2,
          update: 2,
        });
        expect((await stack.up({ onOutput })).summary.resourceChanges).toEqual({
          same: 2,
          update: 2,
        });
        expect((await client.endpoints.list())[0]?.target_util).toBe(0.7);
        expect((await client.workerGroups.list())[0]?.min_load).toBe(5);

        // The rows' API keys (credentials): a group's is nowhere in the state or the CLI's
        // output; the endpoint's only in its apiKey output, a secret (encrypted in the state).
        const groupKeys = await rowKeys(emulator, "/api/v0/workergroups/");
        expect(groupKeys.length).toBeGreaterThan(0);
        expect(JSON.stringify(dynamicResources(await exportState(true)))).not.toContain("api_key");
        expectNoLeak([await exportState(true), await exportState(false), ...output], groupKeys);
        expectNoLeak([await exportState(false), ...output], [endpointKey ?? "no key"]);
        expect((await exportState(true)).includes(endpointKey ?? "no key")).toBe(true);

        // A template edit changes its hash in place; the group follows it in place.
        const hashBefore = up.outputs["templateHashId"]?.value as string;
        const edited: Declared = { ...changed, model: "Qwen/Qwen3-14B" };
        await setProgram(serverlessProgram(edited));
        const templateEdit = await stack.up({ onOutput });
        expect(templateEdit.summary.resourceChanges).toEqual({ same: 2, update: 2 });
        const hashAfter = templateEdit.outputs["templateHashId"]?.value as string;
        expect(hashAfter).not.toBe(hashBefore);
        expect((await freshGroups(emulator))[0]).toMatchObject({
          id: workerGroupId,
          template_hash: hashAfter,
        });

        // Fewer cold workers: the service's update does not take them, so the group is
        // replaced; the old group's workers are gone when up returns.
        await setProgram(serverlessProgram({ ...edited, groupColdWorkers: 1 }));
        const replaced = await stack.up({ onOutput });
        expect(replaced.summary.resourceChanges).toEqual({ same: 3, replace: 1 });
        const newGroupId = replaced.outputs["workerGroupId"]?.value as number;
        expect(newGroupId).not.toBe(workerGroupId);
        expect((await freshGroups(emulator)).map((group) => group.id)).toEqual([newGroupId]);
        const remaining = await instanceIds(emulator);
        expect(remaining).toHaveLength(1);
        for (const worker of workers) expect(remaining).not.toContain(worker);

        // Destroy leaves no worker instance, group, endpoint or template, even when the
        // service fails to release a worker (the provider destroys it).
        await emulator.setFaults(releaseFails);
        await emulator.clearRequests();
        await stack.destroy({ onOutput });
        expect(await instanceIds(emulator)).toEqual([]);
        expect(
          (await emulator.requests()).filter(
            (entry) =>
              entry.method === "DELETE" && entry.path === `/api/v0/instances/${remaining[0]}/`,
          ),
        ).toHaveLength(1);
        expect(await client.workerGroups.list()).toEqual([]);
        expect(await client.endpoints.list()).toEqual([]);
        const own = (await client.templates.search({})).filter(
          (template) => template.name === "serverless-e2e",
        );
        expect(own).toEqual([]);
      },
    );
  });
});
