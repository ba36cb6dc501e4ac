import { z } from "zod";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

// Templates (/api/v0/template/): create (POST), edit by hash (PUT), delete by numeric id
// (DELETE), search (GET with JSON-encoded select_filters / select_cols / order_by).

const nullableString = z.string().nullable().optional();
const nullableNumber = z.number().nullable().optional();
const nullableBoolean = z.boolean().nullable().optional();

/**
 * A template as a search answers it (wire names), as far as the package reads it. The registry
 * password (`docker_login_pass`) is deliberately not declared: should a service ever send it,
 * parsing drops it, so it never reaches an output, a log or an error.
 */
export const templateSchema = z.object({
  id: z.number().int(),
  hash_id: nullableString,
  name: nullableString,
  image: nullableString,
  tag: nullableString,
  env: nullableString,
  onstart: nullableString,
  runtype: nullableString,
  args_str: nullableString,
  ssh_direct: nullableBoolean,
  use_ssh: nullableBoolean,
  jup_direct: nullableBoolean,
  jupyter_dir: nullableString,
  use_jupyter_lab: nullableBoolean,
  docker_login_repo: nullableString,
  docker_login_user: nullableString,
  extra_filters: z.record(z.string(), z.unknown()).nullable().optional(),
  /** GB */
  recommended_disk_space: nullableNumber,
  desc: nullableString,
  readme: nullableString,
  private: nullableBoolean,
  creator_id: nullableNumber,
  /** Seconds since the epoch. */
  created_at: nullableNumber,
  count_created: nullableNumber,
  recent_create_date: nullableNumber,
  recommended: nullableBoolean,
  default_tag: nullableString,
  href: nullableString,
  repo: nullableString,
});
export type Template = z.infer<typeof templateSchema>;

/** The fields a create or an edit sends (the OpenAPI's names). */
export const templateFieldsSchema = z.object({
  name: z.string(),
  image: z.string(),
  tag: z.string().optional(),
  /** Docker flags: `-e NAME=value -p 8000:8000`. */
  env: z.string().optional(),
  onstart: z.string().optional(),
  runtype: z.enum(["ssh", "jupyter", "args"]).optional(),
  args_str: z.string().optional(),
  ssh_direct: z.boolean().optional(),
  use_ssh: z.boolean().optional(),
  jup_direct: z.boolean().optional(),
  jupyter_dir: z.string().optional(),
  use_jupyter_lab: z.boolean().optional(),
  docker_login_repo: z.string().optional(),
  docker_login_user: z.string().optional(),
  docker_login_pass: z.string().optional(),
  extra_filters: z.record(z.string(), z.unknown()).optional(),
  /** GB */
  recommended_disk_space: z.number().optional(),
  desc: z.string().optional(),
  readme: z.string().optional(),
  private: z.boolean().optional(),
});
export type TemplateFields = z.infer<typeof templateFieldsSchema>;

const editBodySchema = templateFieldsSchema.partial().extend({ hash_id: z.string().min(1) });
const deleteBodySchema = z.object({ template_id: z.number().int() });

/**
 * What a create or an edit answers: the numeric id and the (new) hash. Only these are kept: the
 * answer is the stored template, which may carry the registry password it was sent.
 */
const savedTemplateSchema = z.object({ id: z.number().int(), hash_id: z.string() });
export type SavedTemplate = z.infer<typeof savedTemplateSchema>;
const createdSchema = z.object({
  success: z.boolean(),
  msg: z.string().optional(),
  template: savedTemplateSchema,
});
const editedSchema = z.object({ success: z.boolean(), template: savedTemplateSchema });
const successSchema = z.object({ success: z.boolean() });
const searchSchema = z.object({
  success: z.boolean(),
  templates_found: z.number().int().optional(),
  templates: z.array(templateSchema),
});

// ---- Typed search queries -------------------------------------------------------------------

export const templateOperators = ["eq", "neq", "lt", "lte", "gt", "gte", "in", "notin"] as const;
type TemplateOperator = (typeof templateOperators)[number];
type Kind = "text" | "number" | "boolean";

/** The templates guide's search fields: camelCase name → wire name and kind. */
const templateQueryFields = {
  creatorId: { api: "creator_id", kind: "number" },
  createdAt: { api: "created_at", kind: "number" },
  countCreated: { api: "count_created", kind: "number" },
  defaultTag: { api: "default_tag", kind: "text" },
  dockerLoginRepo: { api: "docker_login_repo", kind: "text" },
  templateId: { api: "id", kind: "number" },
  image: { api: "image", kind: "text" },
  jupyterDirect: { api: "jup_direct", kind: "boolean" },
  hashId: { api: "hash_id", kind: "text" },
  name: { api: "name", kind: "text" },
  recentCreateDate: { api: "recent_create_date", kind: "number" },
  diskGb: { api: "recommended_disk_space", kind: "number" },
  recommended: { api: "recommended", kind: "boolean" },
  sshDirect: { api: "ssh_direct", kind: "boolean" },
  tag: { api: "tag", kind: "text" },
  useSsh: { api: "use_ssh", kind: "boolean" },
} as const satisfies Record<string, { api: string; kind: Kind }>;
type TemplateQueryField = keyof typeof templateQueryFields;

type ValueOf<K extends Kind> = K extends "text" ? string : K extends "number" ? number : boolean;
type ConditionOf<T> =
  | T
  | {
      eq?: T;
      neq?: T;
      lt?: T;
      lte?: T;
      gt?: T;
      gte?: T;
      in?: T[];
      notin?: T[];
    };

/**
 * A template search: each field a plain value (meaning `eq`) or an operator object, e.g.
 * `{ useSsh: true, countCreated: { gt: 100 }, creatorId: { in: [38382, 48982] } }`; `orderBy`
 * names the field to sort by.
 */
export type TemplateQuery = {
  [F in TemplateQueryField]?: ConditionOf<ValueOf<(typeof templateQueryFields)[F]["kind"]>>;
} & { orderBy?: TemplateQueryField };

/** A search as the service takes it (wire names), before JSON encoding. */
export interface TemplateSearch {
  readonly filters?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Columns to return; all when absent. */
  readonly columns?: readonly string[];
  readonly orderBy?: string;
}

/** A query that cannot be sent; the message names the field and what is allowed. */
export class TemplateQueryError extends Error {}

const kindWords: Record<Kind, string> = {
  text: "a string",
  number: "a number",
  boolean: "true or false",
};

const listWords: Record<Kind, string> = {
  text: "a list of strings",
  number: "a list of numbers",
  boolean: "a list of true/false values",
};

function fits(kind: Kind, value: unknown): boolean {
  if (kind === "text") return typeof value === "string";
  if (kind === "number") return typeof value === "number" && Number.isFinite(value);
  return typeof value === "boolean";
}

/** Checks a typed query and turns it into the wire search; throws TemplateQueryError. */
export function compileTemplateQuery(query: TemplateQuery | undefined): TemplateSearch {
  if (query === undefined) return {};
  if (typeof query !== "object" || query === null || Array.isArray(query)) {
    throw new TemplateQueryError(
      'the template query must be an object such as { name: "vllm", useSsh: true }',
    );
  }
  const fieldNames = Object.keys(templateQueryFields);
  const filters: Record<string, Record<string, unknown>> = {};
  let orderBy: string | undefined;
  for (const [name, raw] of Object.entries(query as Record<string, unknown>)) {
    if (raw === undefined) continue;
    if (name === "orderBy") {
      const spec = templateQueryFields[raw as TemplateQueryField] as
        (typeof templateQueryFields)[TemplateQueryField] | undefined;
      if (typeof raw !== "string" || spec === undefined) {
        throw new TemplateQueryError(`orderBy: expected one of ${fieldNames.join(", ")}`);
      }
      orderBy = spec.api;
      continue;
    }
    const spec = templateQueryFields[name as TemplateQueryField] as
      (typeof templateQueryFields)[TemplateQueryField] | undefined;
    if (spec === undefined) {
      throw new TemplateQueryError(
        `${name}: not a field of template queries; the fields are ${fieldNames.join(", ")}, orderBy`,
      );
    }
    if (typeof raw !== "object" || raw === null) {
      if (!fits(spec.kind, raw)) {
        throw new TemplateQueryError(
          `${name}: expected ${kindWords[spec.kind]} or an operator object such as {eq: …} ` +
            `(${templateOperators.join(", ")})`,
        );
      }
      filters[spec.api] = { eq: raw };
      continue;
    }
    if (Array.isArray(raw)) {
      throw new TemplateQueryError(
        `${name}: got a list; write {in: [...]} for any of several values`,
      );
    }
    const entries = Object.entries(raw);
    if (entries.length === 0) throw new TemplateQueryError(`${name}: an empty operator object`);
    const condition: Record<string, unknown> = {};
    for (const [op, operand] of entries) {
      if (!(templateOperators as readonly string[]).includes(op)) {
        throw new TemplateQueryError(
          `${name}: operator ${JSON.stringify(op.slice(0, 20))} is not allowed; the operators are ` +
            templateOperators.join(", "),
        );
      }
      const list = op === "in" || op === "notin";
      const ok = list
        ? Array.isArray(operand) && operand.every((item) => fits(spec.kind, item))
        : fits(spec.kind, operand);
      if (!ok) {
        throw new TemplateQueryError(
          `${name}.${op}: expected ${list ? listWords[spec.kind] : kindWords[spec.kind]}`,
        );
      }
      condition[op as TemplateOperator] = operand;
    }
    filters[spec.api] = condition;
  }
  return { filters, ...(orderBy === undefined ? {} : { orderBy }) };
}

// ---- Docker flags (the template's env string) -----------------------------------------------

/** A port mapping as the env string writes it after `-p`: `8000:8000` or `5353:5353/udp`. */
export const portSpecPattern = /^([0-9]{1,5}):([0-9]{1,5})(\/(tcp|udp))?$/;

/** Environment variables and ports as Docker flags: `-e NAME=value -p 8000:8000`. */
export function envStringOf(
  env: Readonly<Record<string, string>>,
  ports: readonly string[],
): string {
  return [
    ...Object.entries(env).map(([name, value]) => `-e ${name}=${value}`),
    ...ports.map((port) => `-p ${port}`),
  ].join(" ");
}

/**
 * The env string's variables and ports (`-e NAME=value`, `-p host:container[/proto]`); other
 * flags are not the template's to manage and are left out. A `-p` of one port means the same
 * port on both sides.
 */
export function parseEnvString(text: string | null | undefined): {
  env: Record<string, string>;
  ports: string[];
} {
  const env: Record<string, string> = {};
  const ports: string[] = [];
  const tokens = (text ?? "").split(/\s+/).filter((token) => token !== "");
  for (let i = 0; i < tokens.length; i++) {
    const flag = tokens[i];
    const next = tokens[i + 1];
    if (next === undefined) break;
    if (flag === "-e") {
      const at = next.indexOf("=");
      if (at > 0) env[next.slice(0, at)] = next.slice(at + 1);
      i++;
    } else if (flag === "-p") {
      ports.push(normalizePort(next));
      i++;
    }
  }
  return { env, ports };
}

/** `8000` → `8000:8000`; `8000/tcp` → `8000:8000`; `8000:80/udp` as is. */
export function normalizePort(spec: string): string {
  const match = /^([0-9]+)(?::([0-9]+))?(?:\/(tcp|udp))?$/.exec(spec);
  if (!match) return spec;
  const host = match[1] ?? "";
  const container = match[2] ?? host;
  return `${host}:${container}${match[3] === "udp" ? "/udp" : ""}`;
}

// ---- The API ----------------------------------------------------------------------------------

const path = "/api/v0/template/";

export class TemplatesApi {
  constructor(private readonly transport: Transport) {}

  /**
   * Creates a template. The service answers content identical to a template the account already
   * has with that EXISTING template (same id and hash): a caller that must not adopt it compares
   * the answered id with the templates it saw before (see the Template resource).
   */
  async create(fields: TemplateFields, signal?: AbortSignal): Promise<SavedTemplate> {
    const body = await this.transport.request({
      method: "POST",
      path,
      body: fields,
      bodySchema: templateFieldsSchema,
      response: createdSchema,
      creates: true,
      signal,
    });
    return body.template;
  }

  /**
   * Edits the template whose hash is `hashId`: only the fields given change. The numeric id stays;
   * the answered hash is the template's new one. 404 when the hash is not one of the caller's.
   */
  async edit(
    hashId: string,
    fields: Partial<TemplateFields>,
    signal?: AbortSignal,
  ): Promise<SavedTemplate> {
    const body = await this.transport.request({
      method: "PUT",
      path,
      body: { ...fields, hash_id: hashId },
      bodySchema: editBodySchema,
      response: editedSchema,
      signal,
    });
    return body.template;
  }

  /** Deletes the template with this numeric id (not its hash); 404 when not the caller's. */
  async delete(templateId: number, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path,
      body: { template_id: templateId },
      bodySchema: deleteBodySchema,
      response: successSchema,
      signal,
    });
  }

  /** Templates matching the search (wire names): the caller's own and others' public ones. */
  async search(search: TemplateSearch = {}, signal?: AbortSignal): Promise<Template[]> {
    const query: Record<string, string> = {};
    if (search.filters !== undefined) query["select_filters"] = JSON.stringify(search.filters);
    if (search.columns !== undefined) query["select_cols"] = JSON.stringify(search.columns);
    if (search.orderBy !== undefined) query["order_by"] = search.orderBy;
    const body = await this.transport.request({
      method: "GET",
      path,
      query,
      response: searchSchema,
      signal,
    });
    return body.templates;
  }

  /** Templates matching a typed query (see TemplateQuery); a malformed query sends nothing. */
  find(query?: TemplateQuery, signal?: AbortSignal): Promise<Template[]> {
    return this.search(compileTemplateQuery(query), signal);
  }
}

/** The fields the documents give both a create and an edit of a template. */
const templateFields = [
  "desc",
  "docker_login_repo",
  "env",
  "extra_filters",
  "hash_id",
  "href",
  "image",
  "jup_direct",
  "jupyter_dir",
  "name",
  "onstart",
  "private",
  "readme",
  "readme_visible",
  "recommended_disk_space",
  "repo",
  "runtype",
  "ssh_direct",
  "tag",
  "use_jupyter_lab",
  "use_ssh",
];

export const area: ClientArea = {
  property: "templates",
  Api: TemplatesApi,
  documents: {
    "DELETE /api/v0/template/": { by: documentedBy.all, body: ["hash_id", "template_id"] },
    "GET /api/v0/template/": {
      by: documentedBy.all,
      query: ["order_by", "select_cols", "select_filters"],
    },
    "POST /api/v0/template/": {
      by: documentedBy.all,
      body: [
        ...templateFields,
        "args_str",
        "docker_login_pass",
        "docker_login_user",
        "volume_info",
      ],
    },
    "PUT /api/v0/template/": { by: documentedBy.all, body: [...templateFields, "id"] },
  },
};
