import { request } from "undici";
import { z } from "zod";
import type { GpuCloudClient } from "../../provider/client";
import type { TestEmulator } from "../support/emulator";

// Helpers of the serverless contract tests (endpoints.test.ts, worker-groups.test.ts).

/** Creates a template through the API; its hash. */
export async function createTemplate(emulator: TestEmulator, name: string): Promise<string> {
  const response = await request(`${emulator.url}/api/v0/template/`, {
    method: "POST",
    headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name, image: "vllm/vllm-openai", tag: "v0.6.3", env: "-e A=1" }),
  });
  const body = z
    .object({ template: z.object({ hash_id: z.string() }) })
    .parse(await response.body.json());
  return body.template.hash_id;
}

/** Polls `condition` every 100 ms until it holds, failing after `timeoutMs`. */
export async function eventually(
  what: string,
  condition: () => Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Deletes every endpoint and group, destroys every instance, and waits until none is left. */
export async function emptyAccount(client: GpuCloudClient): Promise<void> {
  for (const group of await client.workerGroups.list()) await client.workerGroups.delete(group.id);
  for (const endpoint of await client.endpoints.list()) await client.endpoints.delete(endpoint.id);
  for (const instance of await client.instances.list()) {
    await client.instances.destroy(instance.id).catch(() => undefined);
  }
  await eventually("an empty account", async () => (await client.instances.list()).length === 0);
}
