import type { FastifyInstance } from "fastify";
import { parse } from "shell-quote";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { envFromDockerFlags } from "../shared/docker-flags";
import { ApiError, check, pathId } from "../shared/http";
import { findVisibleTemplate, templateDefaults } from "../templates/template-launch";
import type { Instance } from "./instance-state";
import { bootTimingOf, reboot } from "./lifecycle";

// What changes an instance's container on its machine, keeping the instance, its machine and
// its GPU priority: a rebuild from new launch settings (the official client's `vastai update
// instance`, PUT /api/v0/instances/update_template/{id}/), a reboot (stop and start) and a
// recycle (recreated from a fresh pull of its image), both in the OpenAPI. A rebuilt container
// is a new one: what the old one wrote outside a volume is gone; a reboot keeps it.

/** A command line's words, as a shell splits them: quotes kept together, `$NAME` left as written. */
function argumentsOf(line: string): string[] {
  return parse(line, (name) => `$${name}`).flatMap((word) => {
    if (typeof word === "string") return [word];
    if ("pattern" in word) return [word.pattern];
    return "op" in word ? [word.op] : [];
  });
}

// The official client sends only the options it was given, each as given.
const UpdateTemplateSchema = z.object({
  id: z.int().nullish(),
  template_id: z.int().nullish(),
  template_hash_id: z.string().nullish(),
  image: z.string().min(1, "must name an image").nullish(),
  // One string (`vastai update instance --args`), read as a shell reads it; a list as at create.
  args: z.union([z.array(z.string()), z.string().transform(argumentsOf)]).nullish(),
  env: z
    .union([z.record(z.string(), z.string()), z.string().transform(envFromDockerFlags)])
    .nullish(),
  onstart: z
    .string()
    .max(4048, "is limited to 4048 characters; gzip and base64-encode longer scripts")
    .nullish(),
});
type UpdateTemplate = z.infer<typeof UpdateTemplateSchema>;

/** The launch settings after an update: each field given wins, then the template's, then today's. */
function rebuiltSettings(
  ctx: EmulatorContext,
  instance: Instance,
  input: UpdateTemplate,
): Pick<Instance, "image" | "env" | "onstart" | "args" | "template"> {
  const named = input.template_hash_id != null || input.template_id != null;
  const template = named
    ? findVisibleTemplate(ctx.store.state, {
        hashId: input.template_hash_id,
        id: input.template_id,
      })
    : undefined;
  if (named && !template)
    throw new ApiError(400, "invalid_args", "template_hash_id: no such template");
  const base = template ? templateDefaults(template) : undefined;
  return {
    image: input.image ?? base?.image ?? instance.image,
    // As at create: the template's flags, the request's keys winning.
    env: base ? { ...base.env, ...input.env } : (input.env ?? instance.env),
    onstart: input.onstart ?? base?.onstart ?? instance.onstart,
    args: input.args ?? instance.args,
    template: base?.template ?? instance.template,
  };
}

/** Starts the container's boot again, when the instance is meant to run: a stopped one starts with it. */
function restartContainer(
  ctx: EmulatorContext,
  instance: Instance,
  action: "rebooting" | "recycling",
): void {
  const nowMs = ctx.clock.nowMs();
  if (action === "recycling") instance.containerCreatedAtMs = nowMs;
  if (instance.intendedStatus !== "running" || instance.outbidDollarsPerHour !== null) return;
  reboot(instance, nowMs, bootTimingOf(ctx.settings, instance.id));
  instance.containerAction = action;
}

export function registerContainerRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store } = ctx;
  const write = { category: "instance_write" } as const;
  const byId = (id: number | undefined) =>
    id === undefined ? undefined : store.state.instances.find((i) => i.id === id);

  app.put("/api/v0/instances/update_template/:id/", { config: write }, async (request) => {
    const id = pathId(request.params);
    if (id === undefined) throw new ApiError(400, "invalid_args", "invalid instance_id");
    const instance = byId(id);
    if (!instance) throw new ApiError(404, "no_such_instance", "No instance with that id.");
    const input = check(UpdateTemplateSchema, request.body, "invalid_args");
    const settings = rebuiltSettings(ctx, instance, input);
    store.mutate(() => {
      Object.assign(instance, settings);
      restartContainer(ctx, instance, "recycling");
    });
    return { success: true };
  });

  // The OpenAPI answers an id it cannot act on with 400 for these two (no 404 is documented).
  app.put("/api/v0/instances/reboot/:id/", { config: write }, async (request) => {
    const instance = byId(pathId(request.params));
    if (!instance) throw new ApiError(400, "invalid_args", "invalid instance_id");
    store.mutate(() => {
      restartContainer(ctx, instance, "rebooting");
    });
    return { success: true };
  });

  app.put("/api/v0/instances/recycle/:id/", { config: write }, async (request) => {
    const instance = byId(pathId(request.params));
    if (!instance) throw new ApiError(400, "invalid_id", "Invalid instance id.");
    store.mutate(() => {
      restartContainer(ctx, instance, "recycling");
    });
    return { success: true };
  });
}
