import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { INSTANCE_ASK_ID, createInstance, errorOf } from "./helpers";

const TemplateSchema = z.object({
  id: z.int(),
  hash_id: z.string().regex(/^[0-9a-f]{32}$/),
  name: z.string(),
  image: z.string(),
  count_created: z.int(),
});
const SavedSchema = z.object({ success: z.literal(true), template: TemplateSchema });
const FoundSchema = z.object({
  success: z.literal(true),
  templates_found: z.int(),
  templates: z.array(z.record(z.string(), z.unknown())),
});
const PASSWORD = "dckr_pat_s3cr3t-Value-91";

const vllm = {
  name: "my vllm",
  image: "vllm/vllm-openai",
  tag: "v0.6.0",
  env: "-e MODEL_ID=Qwen/Qwen3-8B -e MAX_TOKENS=4096 -p 8000:8000",
  onstart: "echo start",
  runtype: "ssh",
  ssh_direct: true,
  use_ssh: true,
  recommended_disk_space: 40,
  docker_login_repo: "docker.io",
  docker_login_user: "bob",
  docker_login_pass: PASSWORD,
  private: true,
};

describe("templates", () => {
  let emulator: TestEmulator;

  beforeEach(async () => {
    emulator = await startTestEmulator();
  });
  afterEach(async () => {
    await emulator.close();
  });

  const queryOf = (params: Record<string, unknown>) =>
    new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [
        k,
        typeof v === "string" ? v : JSON.stringify(v),
      ]),
    ).toString();
  const search = async (params: Record<string, unknown> = {}) => {
    const reply = await emulator.call("GET", `/api/v0/template/?${queryOf(params)}`);
    return { reply, found: FoundSchema.parse(reply.body) };
  };

  it("creates with a content hash, answers the existing template for the same content", async () => {
    const { call } = emulator;
    const first = await call("POST", "/api/v0/template/", vllm);
    const created = SavedSchema.parse(first.body).template;
    expect(first.body).toMatchObject({
      template: { name: "my vllm", image: "vllm/vllm-openai", tag: "v0.6.0", private: true },
    });
    expect(first.text).not.toContain(PASSWORD);

    const again = SavedSchema.parse((await call("POST", "/api/v0/template/", vllm)).body);
    expect(again.template).toMatchObject({ id: created.id, hash_id: created.hash_id });
    const other = SavedSchema.parse(
      (await call("POST", "/api/v0/template/", { ...vllm, tag: "v0.7.0" })).body,
    );
    expect(other.template.id).not.toBe(created.id);
    expect(other.template.hash_id).not.toBe(created.hash_id);

    // The official client's form: nulls for options not given, the disk as text.
    const cli = await call("POST", "/api/v0/template/", {
      name: "cli",
      image: "library/ubuntu",
      tag: null,
      env: null,
      recommended_disk_space: "8.0",
      readme_visible: true,
      extra_filters: { verified: { eq: true } },
    });
    expect(cli.body).toMatchObject({
      success: true,
      template: { tag: "latest", recommended_disk_space: 8, runtype: "args", private: true },
    });
  });

  it.each([
    [{ image: "x" }, "name"],
    [{ name: "x" }, "image"],
    [{ name: "x", image: "y", runtype: "vm" }, "runtype"],
    [{ name: "x", image: "y", recommended_disk_space: "lots" }, "recommended_disk_space"],
    [{ name: "x", image: "y", extra_filters: "gpu_ram>=24" }, "extra_filters"],
  ])("rejects create %j with invalid_args naming %s", async (body, field) => {
    const reply = await emulator.call("POST", "/api/v0/template/", body);
    expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    expect(reply.body).toMatchObject({ msg: expect.stringContaining(field) as unknown });
  });

  it("edits in place: the id stays, the hash changes; deletes by numeric id", async () => {
    const { call } = emulator;
    const created = SavedSchema.parse((await call("POST", "/api/v0/template/", vllm)).body);
    const edited = await call("PUT", "/api/v0/template/", {
      hash_id: created.template.hash_id,
      desc: "Updated",
      recommended_disk_space: 16,
      image: null,
    });
    const after = SavedSchema.parse(edited.body).template;
    expect(after).toMatchObject({ id: created.template.id, image: "vllm/vllm-openai" });
    expect(after.hash_id).not.toBe(created.template.hash_id);
    expect(edited.body).toMatchObject({
      template: { desc: "Updated", recommended_disk_space: 16 },
    });
    expect(edited.text).not.toContain(PASSWORD);

    expect(
      errorOf(await call("PUT", "/api/v0/template/", { hash_id: created.template.hash_id })),
    ).toEqual({ status: 404, error: "no_such_template" });
    expect(errorOf(await call("DELETE", "/api/v0/template/", { template_id: 1 }))).toEqual({
      status: 404,
      error: "no_such_template",
    });
    expect((await call("DELETE", "/api/v0/template/", { template_id: after.id })).body).toEqual({
      success: true,
      msg: expect.any(String) as unknown,
    });
    const { found } = await search({ select_filters: { id: { eq: after.id } } });
    expect(found.templates_found).toBe(0);
  });

  it("searches own and public templates by filters, columns and order, never the password", async () => {
    const { call } = emulator;
    const mine = SavedSchema.parse((await call("POST", "/api/v0/template/", vllm)).body).template;

    const all = await search();
    expect(all.found.templates.map((t) => t.id)).toEqual([100001, 100002, 100003, mine.id]);
    expect(all.reply.text).not.toContain(PASSWORD);
    expect(all.reply.text).not.toContain("docker_login_pass");

    const popular = await search({
      select_filters: { count_created: { gt: 100 }, use_ssh: { eq: true } },
      select_cols: ["id", "name", "hash_id"],
    });
    expect(popular.found.templates).toEqual([
      { id: 100001, name: "PyTorch (cuDNN Devel)", hash_id: expect.any(String) as unknown },
    ]);
    const byCreator = await search({
      select_filters: { id: { in: [100002, mine.id] }, recommended: { neq: true } },
    });
    expect(byCreator.found.templates.map((t) => t.id)).toEqual([mine.id]);
    const ordered = await search({ order_by: "-count_created", select_cols: ["*"] });
    expect(ordered.found.templates.map((t) => t.id)).toEqual([100001, 100002, 100003, mine.id]);
    const disk = await search({ select_filters: { recommended_disk_space: { lte: 32 } } });
    expect(disk.found.templates.map((t) => t.id)).toEqual([100001, 100003]);

    for (const params of [
      { select_filters: "{not json" },
      { select_filters: { gpu_name: { eq: "x" } } },
      { select_filters: { id: { like: 3 } } },
      { select_cols: ["nope"] },
      { order_by: "nope" },
    ]) {
      const reply = await call("GET", `/api/v0/template/?${queryOf(params)}`);
      expect(errorOf(reply)).toEqual({ status: 400, error: "invalid_args" });
    }
  });

  it("launches an instance from a template: template defaults, request fields win, env merged", async () => {
    const { call } = emulator;
    const template = SavedSchema.parse(
      (await call("POST", "/api/v0/template/", vllm)).body,
    ).template;

    // Only the hash: image:tag, disk, onstart, runtype and env all come from the template.
    const plain = await call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, {
      template_hash_id: template.hash_id,
    });
    const plainId = z.object({ new_contract: z.int() }).parse(plain.body).new_contract;
    const shown = await call("GET", `/api/v0/instances/${String(plainId)}/`);
    expect(shown.body).toMatchObject({
      instances: {
        image_uuid: "vllm/vllm-openai:v0.6.0",
        disk_space: 40,
        onstart: "echo start",
        image_runtype: "ssh",
        template_id: template.id,
        template_hash_id: template.hash_id,
        template_name: "my vllm",
      },
    });
    expect(shown.text).not.toContain(PASSWORD);

    const id = await createInstance(call, {
      image: "library/ubuntu:22.04",
      disk: 20,
      template_hash_id: template.hash_id,
      env: { MODEL_ID: "mistralai/Mistral-7B-v0.1", HF_TOKEN: "hf_x" },
    });
    const { instances } = z
      .object({
        instances: z.object({
          image_uuid: z.string(),
          disk_space: z.number(),
          extra_env: z.array(z.tuple([z.string(), z.string()])),
        }),
      })
      .parse((await call("GET", `/api/v0/instances/${String(id)}/`)).body);
    expect(instances.image_uuid).toBe("library/ubuntu:22.04");
    expect(instances.disk_space).toBe(20);
    expect(Object.fromEntries(instances.extra_env)).toEqual({
      MODEL_ID: "mistralai/Mistral-7B-v0.1",
      MAX_TOKENS: "4096",
      "-p 8000:8000": "1",
      HF_TOKEN: "hf_x",
    });

    const counted = await search({ select_filters: { id: { eq: template.id } } });
    expect(counted.found.templates[0]).toMatchObject({
      count_created: 2,
      recent_create_date: expect.any(Number) as unknown,
    });

    // A public template of another user launches too; an unknown hash is refused.
    const [pytorch] = (await search({ select_filters: { id: { eq: 100001 } } })).found.templates;
    await createInstance(call, {
      image: undefined,
      disk: undefined,
      template_hash_id: pytorch?.hash_id,
    });
    expect(
      errorOf(
        await call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, {
          template_hash_id: "0".repeat(32),
        }),
      ),
    ).toEqual({ status: 400, error: "invalid_args" });
    expect(
      errorOf(await call("PUT", `/api/v0/asks/${String(INSTANCE_ASK_ID)}/`, { disk: 10 })),
    ).toEqual({ status: 400, error: "invalid_args" });
  });

  it("parses a template's Docker flags as a shell would, quotes and all", async () => {
    const { call } = emulator;
    const template = SavedSchema.parse(
      (
        await call("POST", "/api/v0/template/", {
          name: "tgi",
          image: "ghcr.io/huggingface/text-generation-inference:1.0.3",
          env: "-p 3000:3000 -e MODEL_ARGS='--model-id TheBloke/Llama-2-7B-chat-GPTQ --quantize gptq' -e \"QUOTED=a b\" -h worker",
        })
      ).body,
    ).template;
    const id = await createInstance(call, { image: undefined, template_hash_id: template.hash_id });
    const { instances } = z
      .object({
        instances: z.object({
          image_uuid: z.string(),
          extra_env: z.array(z.tuple([z.string(), z.string()])),
        }),
      })
      .parse((await call("GET", `/api/v0/instances/${String(id)}/`)).body);
    // The image names its tag: used as is.
    expect(instances.image_uuid).toBe("ghcr.io/huggingface/text-generation-inference:1.0.3");
    expect(Object.fromEntries(instances.extra_env)).toEqual({
      "-p 3000:3000": "1",
      MODEL_ARGS: "--model-id TheBloke/Llama-2-7B-chat-GPTQ --quantize gptq",
      QUOTED: "a b",
      "-h worker": "1",
    });
  });

  it("needs user_read to search and user_write to change templates", async () => {
    const { call, control } = emulator;
    await control("POST", "/_emulator/keys", {
      key: "reader-key-1",
      permissions: { api: { user_read: {} } },
    });
    expect((await call("GET", "/api/v0/template/", undefined, "reader-key-1")).status).toBe(200);
    expect(errorOf(await call("POST", "/api/v0/template/", vllm, "reader-key-1"))).toEqual({
      status: 403,
      error: "forbidden",
    });
    expect(errorOf(await call("GET", "/api/v0/template/", undefined, null))).toEqual({
      status: 401,
      error: "unauthorized",
    });
  });
});
