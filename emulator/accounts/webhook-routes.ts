import type { FastifyInstance } from "fastify";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check, pathId } from "../shared/http";
import type { Webhook } from "./account-state";
import { notificationTypeRows } from "./notification-types";
import { deliverTestEvent, webhookUrlProblem } from "./webhook-delivery";

const NameSchema = z
  .string()
  .max(120, "must be at most 120 characters")
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters")
  .nullish();

const CreateWebhookSchema = z.object({
  webhook_url: z.string().max(2048, "must be at most 2048 characters"),
  event_types: z.array(z.string()).min(1, "must list at least one event type"),
  name: NameSchema,
});
const UpdateWebhookSchema = CreateWebhookSchema.partial().refine(
  (body) =>
    body.webhook_url !== undefined || body.event_types !== undefined || body.name !== undefined,
  "give at least one of webhook_url, event_types, name",
);

const secondsOf = (iso: string): number => Date.parse(iso) / 1000;

/** The documented NotificationWebhook; the secret is absent: it is shown at creation and rotation. */
function describeWebhook(webhook: Webhook, userId: number) {
  return {
    id: webhook.id,
    user_id: userId,
    name: webhook.name,
    webhook_url: webhook.url,
    event_types: webhook.eventTypes,
    created_at: secondsOf(webhook.createdAt),
    updated_at: secondsOf(webhook.updatedAt ?? webhook.createdAt),
  };
}

const newSecret = (): string => `whsec_${randomBytes(24).toString("base64url")}`;

export function registerWebhookRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, settings } = ctx;
  const config = { category: "misc" } as const;
  const catalogue = () => notificationTypeRows(settings.notificationTypes);
  const find = (params: unknown): Webhook => {
    const id = pathId(params);
    const webhook = store.state.webhooks.find((w) => w.id === id);
    if (!webhook) throw new ApiError(404, "no_such_webhook", "No webhook with that id.");
    return webhook;
  };
  const describe = (webhook: Webhook) => describeWebhook(webhook, store.state.user.id);
  const checkUrl = (url: string | undefined) => {
    const problem =
      url === undefined ? undefined : webhookUrlProblem(url, settings.allowInsecureWebhooks);
    if (problem) throw new ApiError(400, "invalid_args", `webhook_url: ${problem}`);
  };
  const checkEventTypes = (eventTypes: string[] | undefined) => {
    if (eventTypes === undefined) return;
    const known = new Set(catalogue().map((type) => type.key));
    const unknown = eventTypes.filter((key) => !known.has(key));
    if (unknown.length > 0) {
      throw new ApiError(
        400,
        "invalid_args",
        `event_types: unknown notification type ${unknown.join(", ")}; valid keys: ${[...known].join(", ")}`,
      );
    }
  };

  app.get("/api/v0/notification-types/", { config }, async () => {
    return { success: true, notification_types: catalogue() };
  });

  app.get("/api/v0/webhooks/", { config }, async () => {
    return { success: true, webhooks: store.state.webhooks.map(describe) };
  });

  app.post("/api/v0/webhooks/", { config }, async (request) => {
    const input = check(CreateWebhookSchema, request.body, "invalid_args");
    checkUrl(input.webhook_url);
    checkEventTypes(input.event_types);
    if (store.state.webhooks.length >= settings.maxWebhooks) {
      throw new ApiError(
        400,
        "max_webhooks",
        `At most ${settings.maxWebhooks} webhooks are allowed per user; delete one first.`,
      );
    }
    const webhook = store.mutate((state) => {
      const now = new Date().toISOString();
      const created: Webhook = {
        id: state.nextIds.webhook++,
        name: input.name ?? null,
        url: input.webhook_url,
        eventTypes: input.event_types,
        createdAt: now,
        updatedAt: now,
        secret: newSecret(),
      };
      state.webhooks.push(created);
      return created;
    });
    return {
      success: true,
      webhook: { ...describe(webhook), webhook_secret: webhook.secret },
      enabled_notification_preferences: webhook.eventTypes,
    };
  });

  app.put("/api/v0/webhooks/:id/", { config }, async (request) => {
    const webhook = find(request.params);
    const input = check(UpdateWebhookSchema, request.body, "invalid_args");
    checkUrl(input.webhook_url);
    checkEventTypes(input.event_types);
    store.mutate(() => {
      webhook.url = input.webhook_url ?? webhook.url;
      webhook.eventTypes = input.event_types ?? webhook.eventTypes;
      if (input.name !== undefined) webhook.name = input.name;
      webhook.updatedAt = new Date().toISOString();
    });
    return {
      success: true,
      webhook: describe(webhook),
      enabled_notification_preferences: webhook.eventTypes,
    };
  });

  app.delete("/api/v0/webhooks/:id/", { config }, async (request) => {
    const webhook = find(request.params);
    store.mutate((state) => (state.webhooks = state.webhooks.filter((w) => w !== webhook)));
    return { success: true };
  });

  app.post("/api/v0/webhooks/:id/rotate-secret/", { config }, async (request) => {
    const webhook = find(request.params);
    store.mutate(() => {
      webhook.secret = newSecret();
      webhook.updatedAt = new Date().toISOString();
    });
    return { success: true, webhook: { ...describe(webhook), webhook_secret: webhook.secret } };
  });

  app.post("/api/v0/webhooks/:id/test/", { config }, async (request) => {
    const webhook = find(request.params);
    // A URL stored before the emulator was restarted without the flag is checked again.
    checkUrl(webhook.url);
    const outcome = await deliverTestEvent(webhook);
    if (!outcome.delivered) {
      throw new ApiError(400, "delivery_failed", `Test webhook not delivered: ${outcome.reason}.`);
    }
    return { success: true, msg: "Test webhook delivered" };
  });
}
