import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { GpuCloudClient } from "../../provider/client";
import { templateInputsSchema, toWire } from "../../provider/resources/template";
import { checkInputs } from "../../provider/shared/validation";
import { withStack } from "../support/pulumi-stack";
import {
  dynamicResources,
  emulatorConfig,
  expectNoLeak,
  outsideClient,
  program,
} from "../support/programs";
import { useEmulator } from "../support/use-emulator";

const password = "dckr_pat_e2e-Registry-Secret-7781";

const declared = {
  name: "vllm server",
  image: "vllm/vllm-openai",
  tag: "v0.6",
  env: { MODEL_ID: "meta/llama-3" },
  ports: [8000],
  runtype: "ssh",
  sshDirect: true,
  useSsh: true,
  diskGb: 40,
  description: "inference",
  searchFilters: { cudaMaxGood: { gte: 12.0 } },
  dockerLogin: { repo: "ghcr.io", user: "ci", password },
};

/** A Template of these fields, and an Instance launched from its hash if asked, as program text. */
const templateBody = (fields: Record<string, unknown>, instance = false) => `
const tpl = new gpucloud.Template("tpl", ${JSON.stringify(fields)});
exports.templateId = tpl.templateId;
exports.hashId = tpl.hashId;
exports.dockerLogin = tpl.dockerLogin;
${
  instance
    ? `const gpu = new gpucloud.Instance("gpu", { askId: 31001, templateHashId: tpl.hashId, pollIntervalSeconds: 0.05 });
exports.instanceId = gpu.instanceId;`
    : ""
}
`;
const templateProgram = (fields: Record<string, unknown>, instance = false) =>
  program(templateBody(fields, instance));

/** The account's own templates (not the seeded public ones). */
async function ownTemplates(client: GpuCloudClient) {
  const me = (await client.users.current()).id;
  return client.templates.search({ filters: { creator_id: { eq: me } } });
}

/** Every file of the stack's backend (state, history, backups), as text. */
async function backendFiles(workDir: string): Promise<string[]> {
  const root = path.join(workDir, ".state");
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map((entry) => readFile(path.join(entry.parentPath, entry.name), "utf8")),
  );
}

// What the engine adds to templates: the registry password a secret in the state and never
// printed, an Instance launched from a Template's hash (an output of the same program), drift
// seen by refresh and put back by up, the adoption refusal and the functions' queries as the
// CLI prints them. What the Template's methods do on their own (read unchanged after a create or
// an edit, no change at the next diff, the drift's inputs) is test/contract/templates.test.ts.
describe("Template under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test", bootPolls: 2 });

  it("creates, edits in place (new hash, same id), shows drift at refresh and puts it back while launching an instance from it, records a later edit in the instance in place, and destroys", async () => {
    await withStack(
      { program: templateProgram(declared), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, exportState, output, workDir }) => {
        const onOutput = (text: string) => output.push(text);
        const outside = outsideClient(emulator);
        const up = await stack.up({ onOutput });
        expect(up.summary.resourceChanges).toEqual({ create: 2 });
        const templateId = up.outputs["templateId"]?.value as number;
        const firstHash = up.outputs["hashId"]?.value as string;
        expect(firstHash).toMatch(/^[0-9a-f]{32}$/);
        expect(up.outputs["dockerLogin"]?.secret).toBe(true);
        const [created] = await ownTemplates(outside);
        expect(created).toMatchObject({
          id: templateId,
          hash_id: firstHash,
          env: "-e MODEL_ID=meta/llama-3 -p 8000:8000",
          extra_filters: { cuda_max_good: { gte: 12.0 } },
          recommended_disk_space: 40,
        });

        // An edit in place: the numeric id stays, the hash in the outputs is the new one.
        const v2 = { ...declared, description: "inference v2", diskGb: 60 };
        await setProgram(templateProgram(v2));
        const edit = await stack.up({ onOutput });
        expect(edit.summary.resourceChanges).toEqual({ same: 1, update: 1 });
        expect(edit.outputs["templateId"]?.value).toBe(templateId);
        const editedHash = edit.outputs["hashId"]?.value as string;
        expect(editedHash).toMatch(/^[0-9a-f]{32}$/);
        expect(editedHash).not.toBe(firstHash);
        expect(await ownTemplates(outside)).toEqual([
          expect.objectContaining({
            id: templateId,
            hash_id: editedHash,
            desc: "inference v2",
            recommended_disk_space: 60,
          }),
        ]);

        // Edited outside Pulumi: refresh shows the drift, up puts back what is declared. The
        // same up launches an instance from the template's hash (known once the template is
        // put back): the template's image, tag and disk.
        await outside.templates.edit(editedHash, { desc: "by hand" });
        const drift = await stack.refresh({ onOutput });
        expect(drift.summary.resourceChanges).toEqual({ same: 1, update: 1 });
        await setProgram(templateProgram(v2, true));
        const launch = await stack.up({ onOutput });
        // The template updated; the instance sweeper and the instance created.
        expect(launch.summary.resourceChanges).toEqual({ same: 1, update: 1, create: 2 });
        const [restored] = await ownTemplates(outside);
        expect(restored).toMatchObject({ id: templateId, desc: "inference v2" });
        const restoredHash = launch.outputs["hashId"]?.value as string;
        expect(restoredHash).toBe(restored?.hash_id);
        const [instance] = (await emulator.state()).instances;
        expect(instance).toMatchObject({
          id: launch.outputs["instanceId"]?.value as number,
          image: "vllm/vllm-openai:v0.6",
          diskGb: 60,
          template: expect.objectContaining({ id: templateId }) as unknown,
        });

        // Editing the template later changes its hash: the instance records it in place and
        // is not relaunched.
        await setProgram(templateProgram({ ...v2, description: "inference v3" }, true));
        const later = await stack.up({ onOutput });
        expect(later.summary.resourceChanges?.["create"]).toBeUndefined();
        expect(later.summary.resourceChanges?.["delete"]).toBeUndefined();
        expect(later.summary.resourceChanges?.["replace"]).toBeUndefined();
        expect(later.outputs["templateId"]?.value).toBe(templateId);
        expect(later.outputs["hashId"]?.value).not.toBe(restoredHash);
        expect((await emulator.state()).instances.map((row) => row.id)).toEqual([instance?.id]);

        // The registry password: encrypted in the state, never printed, never in a state file.
        const decrypted = JSON.stringify(dynamicResources(await exportState(true)));
        expect(decrypted).toContain(password);
        expectNoLeak(
          [await exportState(false), ...output, ...(await backendFiles(workDir))],
          [password, emulator.apiKey],
        );

        await stack.destroy({ onOutput });
        expect(await ownTemplates(outside)).toEqual([]);
        expect((await emulator.state()).instances).toEqual([]);
        expectNoLeak([...output, ...(await backendFiles(workDir))], [password]);
      },
    );
  });

  it("refuses to adopt a template the account already has with the same content; getTemplates searches by a typed query, and fails on a field templates lack; env given as a secret stays one", async () => {
    const outside = outsideClient(emulator);
    const fields = { ...declared, description: "made by hand" };
    const { inputs, failures } = checkInputs(templateInputsSchema, fields, { type: "Template" });
    expect(failures).toEqual([]);
    const existing = await outside.templates.create(toWire(inputs));
    const token = "hf_e2eSecretToken0099";
    const queries = `
const secretEnv = new gpucloud.Template("secret-env", {
  name: "with token",
  image: "vllm/vllm-openai",
  env: pulumi.secret({ HF_TOKEN: "${token}" }),
});
exports.env = secretEnv.env;
exports.popular = gpucloud.getTemplates({ useSsh: true, countCreated: { gt: 100 }, orderBy: "countCreated" });
exports.mine = secretEnv.hashId
  .apply((hashId) => gpucloud.getTemplates({ hashId }))
  .apply((rows) => rows.map((row) => ({ ...row, env: Object.keys(row.env) })));
`;
    await withStack(
      { program: templateProgram(fields), config: emulatorConfig(emulator) },
      async ({ stack, setProgram, exportState, output, workDir }) => {
        const onOutput = (text: string) => output.push(text);
        const up = stack.up({ onOutput });
        await expect(up).rejects.toThrow(
          new RegExp(
            `the account already has template ${existing.id} \\(hash ${existing.hash_id}\\) ` +
              `with exactly this content.*Change a field \\(e\\.g\\. description\\)`,
          ),
        );
        // The existing template is untouched, and the stack records nothing of it.
        const own = await ownTemplates(outside);
        expect(own).toEqual([
          expect.objectContaining({ id: existing.id, hash_id: existing.hash_id }),
        ]);
        expectNoLeak(output, [password]);

        // The fix the message gives: a field changed, and the stack has its own template. The
        // same up runs the template queries, and a template whose env is a secret.
        await setProgram(
          program(templateBody({ ...fields, description: "made by this stack" }) + queries),
        );
        const fixed = await stack.up({ onOutput });
        expect(fixed.outputs["templateId"]?.value).not.toBe(existing.id);
        expect(fixed.outputs["env"]?.secret).toBe(true);
        const popular = fixed.outputs["popular"]?.value as Record<string, unknown>[];
        expect(popular.length).toBeGreaterThan(0);
        expect(popular[0]).toMatchObject({
          templateId: expect.any(Number) as unknown,
          hashId: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown,
          useSsh: true,
        });
        expect(popular.every((row) => (row["countCreated"] as number) > 100)).toBe(true);
        const mine = fixed.outputs["mine"]?.value as Record<string, unknown>[];
        expect(mine).toEqual([expect.objectContaining({ name: "with token", env: ["HF_TOKEN"] })]);
        expect(JSON.stringify(mine)).not.toMatch(/docker_login_pass|password/i);
        expectNoLeak(
          [await exportState(false), ...output, ...(await backendFiles(workDir))],
          [token, password],
        );

        await setProgram(program(`exports.bad = gpucloud.getTemplates({ gpuName: "RTX 4090" });`));
        await expect(stack.up({ onOutput })).rejects.toThrow(
          /gpuName: not a field of template queries; the fields are creatorId/,
        );
      },
    );
    // The stack's templates are destroyed with it; the one made by hand stays.
    expect((await ownTemplates(outside)).map((row) => row.id)).toEqual([existing.id]);
  });
});
