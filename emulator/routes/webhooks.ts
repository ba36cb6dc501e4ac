import type { FastifyInstance } from "fastify";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { EmulatorContext } from "../context";
import { ApiError, check, pathId } from "../http";
import type { Webhook } from "../state";

const WebhookUrlSchema = z
  .string()
  .max(2048)
  .refine((url) => URL.canParse(url) && new URL(url).protocol === "https:", "must be an https URL");
const EventTypesSchema = z
  .array(z.string().regex(/^[a-z][a-z_]*(\.[a-z_]+)*$/, "must look like instance.status_changed"))
  .min(1, "must list at least one event type");

const CreateWebhookSchema = z.object({
  webhook_url: WebhookUrlSchema,
  event_types: EventTypesSchema,
  name: z.string().max(120).nullish(),
});
const UpdateWebhookSchema = CreateWebhookSchema.partial().refine(
  (body) =>
    body.webhook_url !== undefined || body.event_types !== undefined || body.name !== undefined,
  "give at least one of webhook_url, event_types, name",
);

/** The secret is deliberately absent: it is shown once, at creation. */
function describeWebhook(webhook: Webhook) {
  return {
    id: webhook.id,
    name: webhook.name,
    webhook_url: webhook.url,
    event_types: webhook.eventTypes,
    created_at: webhook.createdAt,
  };
}

export function registerWebhookRoutes(app: FastifyInstance, { store }: EmulatorContext): void {
  const config = { category: "misc" } as const;
  const find = (params: unknown): Webhook => {
    const id = pathId(params);
    const webhook = store.state.webhooks.find((w) => w.id === id);
    if (!webhook) throw new ApiError(404, "no_such_webhook", "No webhook with that id.");
    return webhook;
  };

  app.get("/api/v0/webhooks/", { config }, async () => {
    return { success: true, webhooks: store.state.webhooks.map(describeWebhook) };
  });

  app.post("/api/v0/webhooks/", { config }, async (request) => {
    const input = check(CreateWebhookSchema, request.body, "invalid_args");
    const webhook = store.mutate((state) => {
      const created: Webhook = {
        id: state.nextIds.webhook++,
        name: input.name ?? null,
        url: input.webhook_url,
        eventTypes: input.event_types,
        createdAt: new Date().toISOString(),
        secret: `whsec_${randomBytes(24).toString("base64url")}`,
      };
      state.webhooks.push(created);
      return created;
    });
    return {
      success: true,
      webhook: { ...describeWebhook(webhook), webhook_secret: webhook.secret },
    };
  });

  app.put("/api/v0/webhooks/:id/", { config }, async (request) => {
    const webhook = find(request.params);
    const input = check(UpdateWebhookSchema, request.body, "invalid_args");
    store.mutate(() => {
      webhook.url = input.webhook_url ?? webhook.url;
      webhook.eventTypes = input.event_types ?? webhook.eventTypes;
      if (input.name !== undefined) webhook.name = input.name;
    });
    return { success: true, webhook: describeWebhook(webhook) };
  });

  app.delete("/api/v0/webhooks/:id/", { config }, async (request) => {
    const webhook = find(request.params);
    store.mutate((state) => (state.webhooks = state.webhooks.filter((w) => w !== webhook)));
    return { success: true };
  });
}
