import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check } from "../shared/http";
import { visibleTemplates } from "./template-launch";
import { describeTemplate, searchTemplates } from "./template-search";
import {
  TEMPLATE_DEFAULTS,
  type Template,
  type TemplateContent,
  TemplateContentSchema,
  templateHash,
} from "./template-state";

// The official client sends null for every option it was not given: null is "not given".
const text = z.string().nullish();
const flag = z.boolean().nullish();
/** GB; the official client sends its --disk_space as text ("8.0"). */
const DiskSchema = z
  .union([z.number(), z.string().regex(/^[0-9]+(\.[0-9]+)?$/, "must be a number of GB")])
  .transform(Number)
  .pipe(z.number().positive("must be a positive number of GB"));

const FieldsSchema = z.object({
  name: z.string().min(1, "Template name is required").nullish(),
  image: z.string().min(1, "must name an image").nullish(),
  tag: text,
  env: text,
  onstart: text,
  runtype: z.enum(["ssh", "jupyter", "args"], "must be ssh, jupyter or args").nullish(),
  ssh_direct: flag,
  use_ssh: flag,
  jup_direct: flag,
  jupyter_dir: text,
  use_jupyter_lab: flag,
  docker_login_repo: text,
  docker_login_user: text,
  docker_login_pass: text,
  extra_filters: z.record(z.string(), z.unknown(), "must be an object").nullish(),
  recommended_disk_space: DiskSchema.nullish(),
  desc: text,
  readme: text,
  readme_visible: flag,
  private: flag,
  args_str: text,
  href: text,
  repo: text,
  volume_info: z.record(z.string(), z.unknown(), "must be an object or null").nullish(),
});
type Fields = z.infer<typeof FieldsSchema>;
const CreateSchema = FieldsSchema.extend({
  name: z.string().min(1, "Template name is required"),
  image: z.string().min(1, "must name an image"),
});
const EditSchema = FieldsSchema.extend({ hash_id: z.string().min(1, "names the template") });
const DeleteSchema = z
  .object({ template_id: z.int().positive().nullish(), hash_id: z.string().nullish() })
  .refine((body) => body.template_id != null || body.hash_id != null, {
    message: "template_id: is required (the template's numeric id)",
  });

const CONTENT_KEYS: ReadonlySet<string> = new Set(TemplateContentSchema.keyof().options);

/** The given content fields over `base` (not the Docker password, nor the hash_id naming it). */
function merged(base: TemplateContent, fields: Fields): TemplateContent {
  const given = Object.entries(fields).filter(
    ([key, value]) => value !== null && value !== undefined && CONTENT_KEYS.has(key),
  );
  return { ...base, ...Object.fromEntries(given) };
}

export function registerTemplateRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store } = ctx;
  // The templates guide: searching needs user_read; templates are the user's configuration.
  const read = { category: "user_read" } as const;
  const write = { category: "user_write" } as const;
  const own = () => store.state.templates.filter((t) => t.creatorId === store.state.user.id);
  const notFound = () => new ApiError(404, "no_such_template", "Template not found.");

  app.get("/api/v0/template/", { config: read }, async (request) => {
    const templates = searchTemplates(visibleTemplates(store.state), request.query);
    return { success: true, templates_found: templates.length, templates };
  });

  app.post("/api/v0/template/", { config: write }, async (request) => {
    const input = check(CreateSchema, request.body, "invalid_args");
    const userId = store.state.user.id;
    const content = merged({ ...TEMPLATE_DEFAULTS, name: input.name, image: input.image }, input);
    const hashId = templateHash(userId, content);
    const existing = own().find((t) => t.hashId === hashId);
    if (existing) {
      return {
        success: true,
        msg: `Existing template found: ID ${String(existing.id)}`,
        template: describeTemplate(existing),
      };
    }
    const created = store.mutate((state) => {
      const template: Template = {
        id: state.nextIds.template++,
        hashId,
        creatorId: userId,
        createdAtSeconds: ctx.clock.nowMs() / 1000,
        countCreated: 0,
        recentCreateDateSeconds: null,
        recommended: false,
        content,
        dockerLoginPass: input.docker_login_pass ?? null,
      };
      state.templates.push(template);
      return template;
    });
    return {
      success: true,
      msg: `Template Created Successfully! New Template ID: ${String(created.id)}`,
      template: describeTemplate(created),
    };
  });

  // A partial edit: the numeric id stays, the content hash follows the content.
  app.put("/api/v0/template/", { config: write }, async (request) => {
    const input = check(EditSchema, request.body, "invalid_args");
    const template = own().find((t) => t.hashId === input.hash_id);
    if (!template) throw notFound();
    const content = merged(template.content, input);
    const hashId = templateHash(template.creatorId, content);
    const twin = own().find((t) => t.hashId === hashId && t !== template);
    if (twin) {
      throw new ApiError(
        400,
        "invalid_args",
        `Template ${String(twin.id)} already has this content (hash ${hashId}).`,
      );
    }
    store.mutate(() => {
      template.content = content;
      template.hashId = hashId;
      if (input.docker_login_pass != null) template.dockerLoginPass = input.docker_login_pass;
    });
    return { success: true, template: describeTemplate(template) };
  });

  // By numeric id, as documented; the official client may send its hash_id instead.
  app.delete("/api/v0/template/", { config: write }, async (request) => {
    const input = check(DeleteSchema, request.body, "invalid_args");
    const template = own().find((t) =>
      input.template_id != null ? t.id === input.template_id : t.hashId === input.hash_id,
    );
    if (!template) throw notFound();
    store.mutate((state) => (state.templates = state.templates.filter((t) => t !== template)));
    return { success: true, msg: `Template ${String(template.id)} deleted.` };
  });
}
