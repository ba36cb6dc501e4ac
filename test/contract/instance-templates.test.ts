import { request } from "undici";
import { z } from "zod";
import { environmentOf, GpuCloudClient } from "../../provider/client";
import {
  diffInstance,
  implementation as instanceProvider,
  instanceInputsSchema,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import type { TestEmulator } from "../support/emulator";
import { useEmulator } from "../support/use-emulator";
import { summary } from "./harness";

const ASK = 31001; // a seeded ask

const templateAnswer = z.object({
  success: z.literal(true),
  template: z.looseObject({ id: z.number(), hash_id: z.string() }),
});

/** A template made through the service's API, as a program's Template (or a teammate) would. */
async function templateCall(
  emulator: TestEmulator,
  method: "POST" | "PUT",
  body: Record<string, unknown>,
) {
  const response = await request(`${emulator.url}/api/v0/template/`, {
    method,
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", authorization: `Bearer ${emulator.apiKey}` },
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`template ${method}: ${text}`);
  return templateAnswer.parse(JSON.parse(text)).template;
}

const vllm = {
  name: "vllm server",
  image: "vllm/vllm-openai",
  tag: "v0.6.0",
  env: "-e MODEL_ID=org/model-a -e MAX_TOKENS=4096 -p 8000:8000",
  onstart: "vllm serve $MODEL_ID",
  runtype: "args",
  recommended_disk_space: 40,
  docker_login_repo: "",
  docker_login_user: "",
  docker_login_pass: "",
};

describe("instances launched from a template", () => {
  let client: GpuCloudClient;
  const providers = useEmulator({ per: "file", bootPolls: 1 });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });
  beforeEach(async () => {
    for (const instance of await client.instances.list()) {
      await client.instances.destroy(instance.id);
    }
    await emulator.clearRequests();
  });

  const inputs = (fields: Record<string, unknown>) =>
    instanceInputsSchema.parse({
      askId: ASK,
      pollIntervalSeconds: 0.05,
      owner: "p/s/gpu",
      ...fields,
    });

  it("check requires image and diskGb without a template, and leaves them to one", async () => {
    const without = await instanceProvider.check?.(
      providers.run,
      {} as never,
      { askId: ASK } as never,
    );
    expect((without?.failures ?? []).map((failure) => failure.reason)).toEqual([
      "image: required: the container image, e.g. pytorch/pytorch (or templateHashId, a " +
        "template that provides it)",
      "diskGb: required: the disk size in GB, at least 8 (or templateHashId, a template that " +
        "recommends one)",
    ]);

    const hash = "4e17788f74f075dd9aab7d0d4427968f";
    const withTemplate = await instanceProvider.check?.(
      providers.run,
      {} as never,
      { askId: ASK, templateHashId: hash } as never,
    );
    expect(withTemplate?.failures).toEqual([]);
    // The template's runtype applies: none is defaulted.
    expect(withTemplate?.inputs).not.toHaveProperty("runtype");

    const plain = await instanceProvider.check?.(
      providers.run,
      {} as never,
      { askId: ASK, image: "img", diskGb: 10 } as never,
    );
    expect(plain?.failures).toEqual([]);
    expect(plain?.inputs).toMatchObject({ runtype: "ssh" });
    expect(await emulator.writes()).toEqual([]);
  });

  it("launches with the template's values, the instance's own overriding them", async () => {
    const template = await templateCall(emulator, "POST", vllm);
    await emulator.clearRequests();

    const declared = inputs({
      templateHashId: template.hash_id,
      env: { MODEL_ID: "org/model-b", HF_HOME: "/data/hf" },
      label: "served",
    });
    const created = await instanceProvider.create(providers.run, declared);

    const [stored] = (await emulator.state()).instances;
    expect(stored).toMatchObject({
      id: Number(created.id),
      image: "vllm/vllm-openai:v0.6.0",
      diskGb: 40,
      onstart: "vllm serve $MODEL_ID",
      runtype: "args",
    });
    const shown = await client.instances.show(Number(created.id));
    if (!shown) throw new Error("instance not shown");
    // env merged by name: the instance's value wins, the template's others stay.
    expect(environmentOf(shown)).toMatchObject({
      MODEL_ID: "org/model-b",
      MAX_TOKENS: "4096",
      HF_HOME: "/data/hf",
    });
    expect(shown.template_hash_id).toBe(template.hash_id);
    expect(summary(await emulator.writes())).toEqual([`PUT /api/v0/asks/${ASK}/ 200`]);

    // A refresh finds what was launched: the template's values are no drift.
    const outs = created.outs as InstanceOutputs;
    expect(outs).not.toHaveProperty("image");
    const read = await instanceProvider.read?.(providers.run, created.id, outs);
    expect(read?.inputs).toBeUndefined();
    expect(read?.props).toEqual(outs);
    // Nor does the next diff against the same declaration find any change.
    expect(diffInstance(outs, declared).changes).toBe(false);
  });

  it("rebuilds the container in place from an edited template's new hash: the same instance, the template's new onstart", async () => {
    const template = await templateCall(emulator, "POST", { ...vllm, name: "edited later" });
    const created = await instanceProvider.create(
      providers.run,
      inputs({ templateHashId: template.hash_id }),
    );
    const olds = created.outs as InstanceOutputs;
    const edited = await templateCall(emulator, "PUT", {
      hash_id: template.hash_id,
      onstart: "vllm serve $MODEL_ID --max-model-len 8192",
    });
    expect(edited.hash_id).not.toBe(template.hash_id);
    await emulator.clearRequests();

    const news = inputs({ templateHashId: edited.hash_id });
    expect(diffInstance(olds, news)).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    const updated = await instanceProvider.update?.(providers.run, created.id, olds, news);

    expect(updated?.outs).toMatchObject({
      instanceId: olds.instanceId,
      templateHashId: edited.hash_id,
      actualStatus: "running",
    });
    const writes = await emulator.writes();
    expect(writes.map((w) => `${w.method} ${w.path}`)).toEqual([
      `PUT /api/v0/instances/update_template/${String(olds.instanceId)}/`,
    ]);
    const state = await emulator.state();
    expect(state.instances).toHaveLength(1);
    expect(state.instances[0]).toMatchObject({
      id: olds.instanceId,
      onstart: "vllm serve $MODEL_ID --max-model-len 8192",
    });
  });

  it("fails at once on a hash the service does not know, renting nothing", async () => {
    await expect(
      instanceProvider.create(
        providers.run,
        inputs({ templateHashId: "0123456789abcdef0123456789abcdef", maxAttempts: 3 }),
      ),
    ).rejects.toThrow(
      /^gpu: PUT \/api\/v0\/asks\/31001\/ failed with HTTP 400 \(invalid_args: .*\); no instance was created and retrying cannot help/,
    );
    expect(
      (await emulator.requests()).filter((entry) => entry.path.startsWith("/api/v0/asks/")),
    ).toHaveLength(1);
    expect((await emulator.state()).instances).toEqual([]);
  });
});
