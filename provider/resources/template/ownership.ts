import type { SavedTemplate, Template as TemplateWire } from "../../client";
import type { Run } from "../../run/run";
import type { TemplateInputs } from "./inputs";
import { toWire } from "./wire";

// Ownership: a template is this stack's only when this provider created it; never adopted.
// Searches are narrowed to the caller's templates (its user id, read once per run); the
// templates this run created are in run.made (a later create answered with one is refused).

export async function ownTemplateIds(run: Run): Promise<Set<number>> {
  const rows = await run.client.templates.search({
    filters: { creator_id: { eq: await run.reads.accountId() } },
    columns: ["id"],
  });
  return new Set(rows.map((row) => row.id));
}

/** The caller's template with this numeric id, if it still exists. */
export async function findOwn(run: Run, templateId: number): Promise<TemplateWire | undefined> {
  const rows = await run.client.templates.search({
    filters: { id: { eq: templateId }, creator_id: { eq: await run.reads.accountId() } },
  });
  return rows.find((row) => row.id === templateId);
}

export function notOurs(inputs: TemplateInputs, existing: SavedTemplate): Error {
  return new Error(
    `template "${inputs.name}": the account already has template ${existing.id} ` +
      `(hash ${existing.hash_id}) with exactly this content, and the service answers a create ` +
      `with it; this stack does not adopt a template it did not create. Change a field (e.g. ` +
      `description) so that the content differs, or use that template's hash directly ` +
      `(templateHashId: "${existing.hash_id}") instead of declaring it here.`,
  );
}

/**
 * After a create whose reply was lost: the one template of the caller's that was not there
 * before, not taken by another create of this run, and that carries what was sent.
 */
export async function lostCreate(
  run: Run,
  inputs: TemplateInputs,
  before: ReadonlySet<number>,
): Promise<SavedTemplate | undefined> {
  const rows = await run.client.templates.search({
    filters: { creator_id: { eq: await run.reads.accountId() }, name: { eq: inputs.name } },
  });
  const sent = toWire(inputs);
  const candidates = rows.filter(
    (row) =>
      !before.has(row.id) &&
      !run.made.templateIds.has(row.id) &&
      typeof row.hash_id === "string" &&
      row.image === sent.image &&
      (row.tag ?? "latest") === sent.tag &&
      (row.desc ?? "") === sent.desc,
  );
  const [only] = candidates;
  return candidates.length === 1 && only?.hash_id
    ? { id: only.id, hash_id: only.hash_id }
    : undefined;
}
