import { inspect } from "node:util";
import { request } from "undici";
import { GpuCloudError, type TemplateFields } from "../../provider/client";
import {
  implementation as provider,
  templateInputsSchema,
  type TemplateInputs,
  type TemplateOutputs,
  toWire,
} from "../../provider/resources/template";
import { checkInputs } from "../../provider/shared/validation";
import { useEmulator } from "../support/use-emulator";
import { clientFor } from "../support/clients";
import { everyRendering, failureOf, requestsTo } from "./harness";

const password = "dckr_pat_contract-Secret-42";
const hashPattern = /^[0-9a-f]{32}$/;

const body: TemplateFields = {
  name: "vllm server",
  image: "vllm/vllm-openai",
  tag: "v0.6",
  env: "-e MODEL_ID=meta/llama-3 -p 8000:8000",
  runtype: "ssh",
  ssh_direct: true,
  use_ssh: true,
  recommended_disk_space: 50,
  desc: "inference",
  private: true,
  extra_filters: { cuda_max_good: { gte: 12.6 } },
  docker_login_repo: "ghcr.io",
  docker_login_user: "me",
  docker_login_pass: password,
};

describe("templates client", () => {
  const h = useEmulator({ per: "test" });

  it("creates a template: a numeric id and a 32-hex content hash; search finds it, never with the password", async () => {
    const created = await h.client.templates.create(body);
    expect(created.id).toEqual(expect.any(Number));
    expect(created.hash_id).toMatch(hashPattern);

    const [found] = await h.client.templates.search({ filters: { id: { eq: created.id } } });
    expect(found).toMatchObject({
      id: created.id,
      hash_id: created.hash_id,
      name: body.name,
      image: body.image,
      tag: body.tag,
      env: body.env,
      runtype: "ssh",
      recommended_disk_space: 50,
      desc: "inference",
      private: true,
      extra_filters: body.extra_filters,
      docker_login_repo: "ghcr.io",
      docker_login_user: "me",
    });
    // Not in the parsed row, and not in what the service sends either.
    expect(JSON.stringify(found)).not.toContain(password);
    const raw = await request(`${h.emulator.url}/api/v0/template/`, {
      headers: { authorization: `Bearer ${h.emulator.apiKey}` },
    });
    expect(await raw.body.text()).not.toContain(password);
  });

  it("answers a create of content the account already has with the EXISTING template", async () => {
    const first = await h.client.templates.create(body);
    const again = await h.client.templates.create({ ...body, docker_login_pass: "other" });
    expect(again).toMatchObject({ id: first.id, hash_id: first.hash_id });
    const different = await h.client.templates.create({ ...body, desc: "another" });
    expect(different.id).not.toBe(first.id);
  });

  it("edits by hash: only the fields sent change, the id stays and the hash follows the content", async () => {
    const created = await h.client.templates.create(body);
    const edited = await h.client.templates.edit(created.hash_id, {
      desc: "updated",
      recommended_disk_space: 16,
    });
    expect(edited.id).toBe(created.id);
    expect(edited.hash_id).toMatch(hashPattern);
    expect(edited.hash_id).not.toBe(created.hash_id);
    const [found] = await h.client.templates.search({ filters: { id: { eq: created.id } } });
    expect(found).toMatchObject({
      desc: "updated",
      recommended_disk_space: 16,
      image: body.image,
      env: body.env,
      hash_id: edited.hash_id,
    });
    // The old hash is gone.
    const stale = await failureOf(h.client.templates.edit(created.hash_id, { desc: "x" }));
    expect(stale).toMatchObject({ status: 404, isNotFound: true });
  });

  it("deletes by numeric id; a second delete is not found", async () => {
    const created = await h.client.templates.create(body);
    await h.client.templates.delete(created.id);
    expect(await h.client.templates.search({ filters: { id: { eq: created.id } } })).toEqual([]);
    const again = await failureOf(h.client.templates.delete(created.id));
    expect(again).toMatchObject({ status: 404, isNotFound: true });
  });

  it("searches with JSON-encoded select_filters, select_cols and order_by", async () => {
    await h.client.templates.create(body);
    await h.client.templates.create({ ...body, name: "second", recommended_disk_space: 20 });
    await h.emulator.clearRequests();

    const rows = await h.client.templates.search({
      filters: { recommended_disk_space: { gte: 20 }, name: { in: ["vllm server", "second"] } },
      columns: ["id", "name", "recommended_disk_space"],
      orderBy: "recommended_disk_space",
    });
    expect(rows.map((row) => [row.name, row.recommended_disk_space])).toEqual([
      ["second", 20],
      ["vllm server", 50],
    ]);
    const [sent] = requestsTo(await h.emulator.requests(), "GET", "/api/v0/template/");
    const query = new URL(sent?.path ?? "", "http://x").searchParams;
    expect(JSON.parse(query.get("select_filters") ?? "")).toEqual({
      recommended_disk_space: { gte: 20 },
      name: { in: ["vllm server", "second"] },
    });
    expect(JSON.parse(query.get("select_cols") ?? "")).toEqual([
      "id",
      "name",
      "recommended_disk_space",
    ]);
    expect(query.get("order_by")).toBe("recommended_disk_space");
  });

  it("finds by a typed query: the caller's own templates and others' public ones", async () => {
    const own = await h.client.templates.create(body);
    const all = await h.client.templates.find({});
    expect(all.map((row) => row.id)).toContain(own.id);
    expect(all.length).toBeGreaterThan(1);
    const popular = await h.client.templates.find({ useSsh: true, countCreated: { gt: 100 } });
    expect(popular.length).toBeGreaterThan(0);
    expect(popular.every((row) => row.use_ssh === true && (row.count_created ?? 0) > 100)).toBe(
      true,
    );
    const mine = await h.client.templates.find({ hashId: own.hash_id });
    expect(mine.map((row) => row.id)).toEqual([own.id]);
  });
});

// The resource's provider methods, called as the dynamic-provider process calls them.
describe("Template provider against the emulator", () => {
  const providers = useEmulator({ per: "file" });
  const { emulator } = providers;
  const outside = () => clientFor(emulator.url, emulator.apiKey);

  let counter = 0;
  /** Checked inputs with a name of their own, so that tests sharing the emulator never collide. */
  function inputsOf(news: Record<string, unknown> = {}): TemplateInputs {
    counter += 1;
    const { inputs, failures } = checkInputs(
      templateInputsSchema,
      {
        name: `tpl-${counter}`,
        image: "vllm/vllm-openai",
        ...news,
      },
      { type: "Template" },
    );
    expect(failures).toEqual([]);
    return inputs;
  }

  async function rowOf(templateId: number) {
    const [row] = await outside().templates.search({ filters: { id: { eq: templateId } } });
    return row;
  }

  it("check: fails at preview naming the field, never the password, and sends no write", async () => {
    await emulator.clearRequests();
    const checked = await provider.check?.(
      providers.run,
      {} as never,
      {
        name: "x",
        image: "a b",
        dockerLogin: { repo: "docker.io", user: "me", password: 123456789 },
      } as never,
    );
    expect(checked?.failures).toMatchObject([
      {
        property: "",
        reason:
          "image: must be a Docker image path with no spaces, e.g. vllm/vllm-openai " +
          "(received a string of 3 characters)",
      },
      {
        property: "",
        reason: "dockerLogin.password: the registry access token or password, a non-empty string",
      },
    ]);
    expect(JSON.stringify(checked?.failures)).not.toContain("123456789");
    expect(await emulator.writes()).toEqual([]);
  });

  it("creates, reads unchanged, edits in place (hash changes, id stays), sees drift, deletes", async () => {
    const inputs = inputsOf({
      env: { MODEL_ID: "meta/llama-3" },
      ports: [8000],
      runtype: "ssh",
      diskGb: 50,
      searchFilters: { cudaMaxGood: { gte: 12.6 }, gpuRamGb: { gte: 24 } },
      dockerLogin: { repo: "ghcr.io", user: "me", password },
    });
    const created = await provider.create(providers.run, inputs);
    const outs = created.outs as TemplateOutputs;
    expect(created.id).toBe(String(outs.templateId));
    expect(outs.hashId).toMatch(hashPattern);
    expect(outs).toEqual({ ...inputs, templateId: outs.templateId, hashId: outs.hashId });
    expect(await rowOf(outs.templateId)).toMatchObject({
      env: "-e MODEL_ID=meta/llama-3 -p 8000:8000",
      recommended_disk_space: 50,
      extra_filters: { cuda_max_good: { gte: 12.6 }, gpu_ram: { gte: 24000 } },
      docker_login_repo: "ghcr.io",
    });

    // Found as recorded: no inputs; the password (never answered) is kept from the outputs.
    expect(await provider.read(providers.run, created.id, outs)).toEqual({
      id: created.id,
      props: outs,
    });
    // And the next up, comparing what is declared with what was recorded, changes nothing.
    expect((await provider.diff?.(providers.run, created.id, outs, inputs))?.changes).toBe(false);

    // An edit in place: the PUT goes by the recorded hash; the new hash is recorded.
    await emulator.clearRequests();
    const news = { ...inputs, description: "v2", diskGb: 60 };
    expect(await provider.diff?.(providers.run, created.id, outs, news)).toEqual({
      changes: true,
      replaces: [],
    });
    const updated = (await provider.update?.(providers.run, created.id, outs, news))
      ?.outs as TemplateOutputs;
    expect(updated.templateId).toBe(outs.templateId);
    expect(updated.hashId).toMatch(hashPattern);
    expect(updated.hashId).not.toBe(outs.hashId);
    expect(updated.dockerLogin?.password).toBe(password);
    expect((await emulator.writes()).map((w) => `${w.method} ${w.path}`)).toEqual([
      "PUT /api/v0/template/",
    ]);
    expect(await rowOf(outs.templateId)).toMatchObject({
      desc: "v2",
      recommended_disk_space: 60,
      hash_id: updated.hashId,
    });
    expect(await provider.read(providers.run, created.id, updated)).toEqual({
      id: created.id,
      props: updated,
    });

    // Edited outside Pulumi: the drift shows, with the inputs the next up compares with.
    const outsideEdit = await outside().templates.edit(updated.hashId, {
      desc: "by hand",
      env: "-e MODEL_ID=other -p 9000:9000",
      extra_filters: { num_gpus: { gte: 2 } },
    });
    const drift = await provider.read(providers.run, created.id, updated);
    const driftInputs = {
      ...news,
      description: "by hand",
      env: { MODEL_ID: "other" },
      ports: ["9000:9000"],
      searchFilters: { numGpus: { gte: 2 } },
    };
    expect(drift).toEqual({
      id: created.id,
      props: { ...driftInputs, templateId: outs.templateId, hashId: outsideEdit.hash_id },
      inputs: driftInputs,
    });

    // The next up puts back what is declared.
    const refreshed = drift.props as TemplateOutputs;
    const restored = (await provider.update?.(providers.run, created.id, refreshed, news))
      ?.outs as TemplateOutputs;
    expect(restored.templateId).toBe(outs.templateId);
    expect(await rowOf(outs.templateId)).toMatchObject({
      desc: "v2",
      env: "-e MODEL_ID=meta/llama-3 -p 8000:8000",
      extra_filters: { cuda_max_good: { gte: 12.6 }, gpu_ram: { gte: 24000 } },
      hash_id: restored.hashId,
    });

    // A recorded hash gone stale (edited again outside, no refresh): the edit finds the
    // template by its id and edits it by its current hash.
    await outside().templates.edit(restored.hashId, { readme: "touched" });
    const renamed = { ...news, name: `${news.name}-renamed` };
    const afterStale = (await provider.update?.(providers.run, created.id, restored, renamed))
      ?.outs as TemplateOutputs;
    expect(afterStale.templateId).toBe(outs.templateId);
    expect(await rowOf(outs.templateId)).toMatchObject({
      name: renamed.name,
      hash_id: afterStale.hashId,
    });

    // Only the password changes: sent (with its login) in place; the service keeps the hash.
    const rotated = {
      ...news,
      dockerLogin: { repo: "ghcr.io", user: "me", password: "rotated-9" },
    };
    const afterRotation = (await provider.update?.(providers.run, created.id, restored, rotated))
      ?.outs as TemplateOutputs;
    expect(afterRotation.dockerLogin?.password).toBe("rotated-9");
    expect(afterRotation.templateId).toBe(outs.templateId);
    expect(afterRotation.hashId).toBe(afterStale.hashId);

    await provider.delete?.(providers.run, created.id, afterRotation);
    expect(await rowOf(outs.templateId)).toBeUndefined();
    expect(await provider.read(providers.run, created.id, afterRotation)).toEqual({});
    // Deleting what is gone succeeds.
    await provider.delete?.(providers.run, created.id, afterRotation);
  });

  it("refuses to adopt a template the account already has with the same content, and leaves it alone", async () => {
    const inputs = inputsOf({
      description: "made by hand",
      dockerLogin: { repo: "ghcr.io", user: "me", password },
    });
    const existing = await outside().templates.create(toWire(inputs));
    const before = await rowOf(existing.id);
    await emulator.clearRequests();

    const error = await provider.create(providers.run, inputs).then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error).toBeInstanceOf(Error);
    const message = error?.message ?? "";
    expect(message).toContain(`the account already has template ${existing.id}`);
    expect(message).toContain(existing.hash_id);
    expect(message).toMatch(/Change a field \(e\.g\. description\)/);
    expect(message).not.toMatch(/\n/);
    expect(everyRendering(error as Error)).not.toContain(password);
    // Nothing but the create was written: the existing template is neither changed nor deleted.
    expect((await emulator.writes()).map((w) => `${w.method} ${w.path}`)).toEqual([
      "POST /api/v0/template/",
    ]);
    expect(await rowOf(existing.id)).toEqual(before);

    // With one field changed, it is a template of its own.
    const own = await provider.create(providers.run, {
      ...inputs,
      description: "made by this stack",
    });
    expect((own.outs as TemplateOutputs).templateId).not.toBe(existing.id);
  });

  it("refuses the second of two identical templates created in one run", async () => {
    const inputs = inputsOf({ description: "twins" });
    const first = await provider.create(providers.run, inputs);
    await expect(provider.create(providers.run, inputs)).rejects.toThrow(
      `the account already has template ${first.id} `,
    );
    expect(await rowOf(Number(first.id))).toBeDefined();
  });

  it("takes the template a lost create reply made, once", async () => {
    const inputs = inputsOf({ description: "lost reply" });
    await emulator.clearRequests();
    await emulator.setFaults({ drops: { next: 1, afterHandling: true, methods: ["POST"] } });
    let created;
    try {
      created = await provider.create(providers.run, inputs);
    } finally {
      await emulator.clearFaults();
    }
    const outs = created.outs as TemplateOutputs;
    const mine = await outside().templates.find({ name: inputs.name });
    expect(mine.map((row) => row.id)).toEqual([outs.templateId]);
    expect(requestsTo(await emulator.requests(), "POST", "/api/v0/template/")).toHaveLength(1);
  });

  it("fails an edit that would duplicate another template with the service's reason, never the password", async () => {
    const a = inputsOf({
      description: "a",
      dockerLogin: { repo: "ghcr.io", user: "me", password },
    });
    const b = inputsOf({ description: "b", dockerLogin: a.dockerLogin });
    const createdA = (await provider.create(providers.run, a)).outs as TemplateOutputs;
    await provider.create(providers.run, b);
    const error = await failureOf(
      provider.update?.(providers.run, String(createdA.templateId), createdA, b) ??
        Promise.resolve(),
    );
    expect(error).toBeInstanceOf(GpuCloudError);
    expect(error.message).toMatch(/PUT \/api\/v0\/template\/ failed with HTTP 400 \(invalid_args/);
    expect(everyRendering(error)).not.toContain(password);
    expect(inspect(error)).not.toContain(password);
  });

  it("says how to recover when the template was deleted outside Pulumi before an edit", async () => {
    const inputs = inputsOf();
    const outs = (await provider.create(providers.run, inputs)).outs as TemplateOutputs;
    await outside().templates.delete(outs.templateId);
    await expect(
      provider.update?.(providers.run, String(outs.templateId), outs, {
        ...inputs,
        description: "x",
      }),
    ).rejects.toThrow(
      `template ${outs.templateId} no longer exists on the account: run pulumi refresh, then up to create it again`,
    );
  });
});
