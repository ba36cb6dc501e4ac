import { z } from "zod";
import { invalidArgs } from "../shared/http";
import { type Row, parseQuery, runQuery } from "../shared/query";
import type { Template } from "./template-state";

/** A template as the API shows it: never its Docker password. */
export function describeTemplate(template: Template): Record<string, unknown> {
  const { content } = template;
  return {
    id: template.id,
    hash_id: template.hashId,
    creator_id: template.creatorId,
    ...content,
    default_tag: content.tag,
    created_at: template.createdAtSeconds,
    count_created: template.countCreated,
    recent_create_date: template.recentCreateDateSeconds,
    recommended: template.recommended,
  };
}

/** The filter fields the templates guide lists (and `private`, which the official client lists). */
const FILTER_FIELDS: ReadonlySet<string> = new Set([
  "creator_id",
  "created_at",
  "count_created",
  "default_tag",
  "docker_login_repo",
  "id",
  "image",
  "jup_direct",
  "hash_id",
  "name",
  "recent_create_date",
  "recommended_disk_space",
  "recommended",
  "ssh_direct",
  "tag",
  "use_ssh",
  "private",
]);

/** The columns a row has (describeTemplate), for checking select_cols and order_by. */
const COLUMNS: Readonly<Record<string, true>> = Object.fromEntries(
  [
    "id",
    "hash_id",
    "creator_id",
    "name",
    "image",
    "tag",
    "env",
    "onstart",
    "runtype",
    "ssh_direct",
    "use_ssh",
    "jup_direct",
    "jupyter_dir",
    "use_jupyter_lab",
    "docker_login_repo",
    "docker_login_user",
    "extra_filters",
    "recommended_disk_space",
    "desc",
    "readme",
    "readme_visible",
    "private",
    "args_str",
    "href",
    "repo",
    "volume_info",
    "default_tag",
    "created_at",
    "count_created",
    "recent_create_date",
    "recommended",
  ].map((col) => [col, true]),
);

const SEARCH = { fields: FILTER_FIELDS, defaults: {}, options: z.object({}) };

/** Query values arrive as text holding JSON (the official client JSON-encodes them). */
function jsonParam(value: unknown, name: string): unknown {
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string") throw invalidArgs(`${name}: must be given once`);
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw invalidArgs(`${name}: must be JSON`);
  }
}

const ParamsSchema = z.object({
  select_filters: z.unknown().optional(),
  select_cols: z.unknown().optional(),
  order_by: z.string().optional(),
});
const ColsSchema = z.array(z.string()).min(1);

/**
 * GET /api/v0/template/: `select_filters` ({field: {op: value}}), `select_cols` (["*"] or
 * columns) and `order_by` (a column; `-column` or `column desc` for descending).
 */
export function searchTemplates(templates: readonly Template[], rawParams: unknown) {
  const params = ParamsSchema.safeParse(rawParams);
  if (!params.success) throw invalidArgs("order_by: must be a column name");
  const filters = jsonParam(params.data.select_filters, "select_filters") ?? {};
  const query = parseQuery(filters, SEARCH);
  const rows = templates.map(describeTemplate);
  const orderBy = params.data.order_by?.trim();
  const order: Array<[string, "asc" | "desc"]> = [];
  if (orderBy) {
    const match = /^(-)?([a-z_]+)(?:\s+(asc|desc))?$/i.exec(orderBy);
    const column = match?.[2];
    if (!match || column === undefined || !(column in COLUMNS)) {
      throw invalidArgs(`order_by: unknown column "${orderBy}"`);
    }
    order.push([column, match[1] === "-" || match[3]?.toLowerCase() === "desc" ? "desc" : "asc"]);
  }
  const found = runQuery(
    rows,
    { ...query, order: order.length > 0 ? order : query.order },
    (row): Row => row,
  );
  const cols = jsonParam(params.data.select_cols, "select_cols");
  if (cols === undefined) return found;
  const parsed = ColsSchema.safeParse(cols);
  if (!parsed.success) throw invalidArgs('select_cols: must be a list of columns, or ["*"]');
  if (parsed.data.includes("*")) return found;
  const unknown = parsed.data.find((col) => !(col in COLUMNS));
  if (unknown !== undefined) throw invalidArgs(`select_cols: unknown column "${unknown}"`);
  return found.map((row) => Object.fromEntries(parsed.data.map((col) => [col, row[col]])));
}
