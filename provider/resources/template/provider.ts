import { deleteUnlessGone, GpuCloudError, type SavedTemplate } from "../../client";
import { readResult } from "../../shared/read-result";
import type { ResourceImplementation } from "../../shared/resource-implementation";
import type { Run } from "../../run/run";
import { recoverLostCreate } from "../../shared/lost-create";
import { checkInputs } from "../../shared/validation";
import { diffTemplate } from "./diff";
import { templateInputsSchema, type TemplateInputs, type TemplateOutputs } from "./inputs";
import { findOwn, lostCreate, notOurs, ownTemplateIds } from "./ownership";
import { editFields, fromWire, toWire } from "./wire";

/**
 * `pulumi import` by the template's numeric id (Template.templateId), among the caller's own
 * templates: every field the service shows, a missing one at its default. A registry login is
 * recorded with an empty password (the service never shows it; see keepsImportedLogin).
 */
async function importedTemplate(
  run: Run,
  id: string,
): Promise<{ id?: string; props?: TemplateOutputs; inputs?: TemplateInputs }> {
  const found = /^\d+$/.test(id.trim()) ? await findOwn(run, Number(id)) : undefined;
  if (!found) return {};
  if (typeof found.hash_id !== "string") {
    throw new Error(`template ${found.id} cannot be imported: the service shows no hash for it`);
  }
  // What a recorded template without these fields would hold: the inputs' defaults.
  const defaults = templateInputsSchema.parse({ name: "-", image: "-" });
  const inputs = fromWire(found, {
    ...defaults,
    templateId: found.id,
    hashId: found.hash_id,
  });
  return {
    id: String(found.id),
    props: { ...inputs, templateId: found.id, hashId: found.hash_id },
    inputs,
  };
}

/**
 * True when `news` keeps the registry login of an imported template as it was recorded: same
 * registry and user, the password still empty (the service never shows it). That login is left
 * as the service holds it; declaring the password sets it in place. Any other login, and every
 * new template's, needs a password.
 */
function keepsImportedLogin(olds: Record<string, unknown>, news: Record<string, unknown>): boolean {
  const [before, after] = [olds["dockerLogin"], news["dockerLogin"]] as Partial<
    Record<"repo" | "user" | "password", unknown>
  >[];
  return (
    before?.password === "" &&
    after?.password === "" &&
    before.repo === after.repo &&
    before.user === after.user
  );
}

export const implementation: ResourceImplementation<TemplateInputs, TemplateOutputs> = {
  async check(run, olds, news) {
    const keepsLogin = keepsImportedLogin(olds, news);
    const login = news["dockerLogin"] as Record<string, unknown> | undefined;
    // Checked as if a password were given; recorded empty again.
    const checked = checkInputs(
      templateInputsSchema,
      keepsLogin ? { ...news, dockerLogin: { ...login, password: "-" } } : news,
      { type: "Template" },
    );
    if (keepsLogin && checked.inputs.dockerLogin) {
      checked.inputs.dockerLogin = { ...checked.inputs.dockerLogin, password: "" };
    }
    return { ...checked, failures: [...(await run.configurationFailures()), ...checked.failures] };
  },

  async diff(_run, _id, olds, news) {
    return diffTemplate(olds, news);
  },

  /**
   * Creates the template, refusing one the service answers with that already existed: the
   * caller's templates are listed before the create, and an answered id among them (or one
   * another create of this run took) is an existing template, never adopted.
   */
  async create(run, inputs) {
    const templates = run.client.templates;
    const before = await ownTemplateIds(run);
    const createdHere = run.made.templateIds;
    const saved = await recoverLostCreate({
      create: () => templates.create(toWire(inputs)),
      findCreated: () => lostCreate(run, inputs, before),
    });
    if (before.has(saved.id) || createdHere.has(saved.id)) throw notOurs(inputs, saved);
    createdHere.add(saved.id);
    return {
      id: String(saved.id),
      outs: { ...inputs, templateId: saved.id, hashId: saved.hash_id },
    };
  },

  async read(run, id, props) {
    if (!props) return importedTemplate(run, id);
    const found = await findOwn(run, props.templateId);
    if (!found) return {};
    const inputs = fromWire(found, props);
    const outs: TemplateOutputs = {
      ...inputs,
      templateId: found.id,
      hashId: found.hash_id ?? props.hashId,
    };
    return readResult(id, props, outs, inputs);
  },

  /**
   * Edits in place by the recorded hash. Should that hash be stale (edited outside Pulumi, or a
   * retried edit whose first reply was lost), the template is found by its id and edited by its
   * current hash. The answered hash is recorded.
   */
  async update(run, _id, olds, news) {
    const templates = run.client.templates;
    const fields = editFields(olds, news);
    let saved: SavedTemplate;
    try {
      saved = await templates.edit(olds.hashId, fields);
    } catch (error) {
      if (!(error instanceof GpuCloudError) || !error.isNotFound) throw error;
      const current = await findOwn(run, olds.templateId);
      if (current?.hash_id === undefined || current.hash_id === null) {
        throw new Error(
          `template ${olds.templateId} no longer exists on the account: run pulumi refresh, then up to create it again`,
        );
      }
      saved = await templates.edit(current.hash_id, fields);
    }
    if (saved.id !== olds.templateId) {
      throw new Error(
        `the edit of template ${olds.templateId} was answered with template ${saved.id}: the ` +
          `account has another template with this content; change a field (e.g. description)`,
      );
    }
    return { outs: { ...news, templateId: olds.templateId, hashId: saved.hash_id } };
  },

  async delete(run, _id, props) {
    await deleteUnlessGone(run.client.templates.delete(props.templateId));
  },
};
