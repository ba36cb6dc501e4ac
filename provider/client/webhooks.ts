import { z } from "zod";
import { SharedList } from "./shared-list";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

export const webhookSchema = z.object({
  id: z.number().int(),
  user_id: z.number().int().optional(),
  name: z.string().nullable(),
  webhook_url: z.string(),
  event_types: z.array(z.string()),
  /** Seconds since the epoch. */
  created_at: z.number().nullable().optional(),
  updated_at: z.number().nullable().optional(),
});
export type Webhook = z.infer<typeof webhookSchema>;

const createdWebhookSchema = z.object({
  success: z.boolean(),
  webhook: webhookSchema.extend({ webhook_secret: z.string() }),
});
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>["webhook"];

const webhookBodySchema = z.object({ success: z.boolean(), webhook: webhookSchema });
const rotatedWebhookSchema = createdWebhookSchema.pick({ success: true, webhook: true });
const testDeliverySchema = z.object({ success: z.boolean(), msg: z.string().optional() });

/** A webhook event key and what it means; keys are `<context>:<slug>`, e.g. `client:low_credit`. */
export const notificationTypeSchema = z.object({
  key: z.string(),
  slug: z.string().optional(),
  context: z.string().optional(),
  topic: z.string().nullable().optional(),
  category: z.string().optional(),
  display_name: z.string().optional(),
  default_preferences: z.record(z.string(), z.boolean()).optional(),
  mandatory_email: z.boolean().optional(),
});
export type NotificationType = z.infer<typeof notificationTypeSchema>;
const notificationTypesSchema = z.object({
  success: z.boolean(),
  notification_types: z.array(notificationTypeSchema),
});
const listWebhooksSchema = z.object({ success: z.boolean(), webhooks: z.array(webhookSchema) });
const successSchema = z.object({ success: z.boolean() });

export const webhookFieldsSchema = z.object({
  webhook_url: z.string(),
  event_types: z.array(z.string()),
  /** null clears the name (on update). */
  name: z.string().nullable().optional(),
});
export type WebhookFields = z.infer<typeof webhookFieldsSchema>;
const webhookUpdateSchema = webhookFieldsSchema.partial();

export class WebhooksApi {
  // Refresh reads each webhook by listing them all: concurrent reads share one list.
  private readonly shared: SharedList<Webhook[]>;

  constructor(private readonly transport: Transport) {
    this.shared = new SharedList((signal) =>
      this.transport
        .request({ method: "GET", path: "/api/v0/webhooks/", response: listWebhooksSchema, signal })
        .then((body) => body.webhooks),
    );
  }

  /** Lists the account's webhooks; reads close together share one request (see SharedList). */
  list(signal?: AbortSignal): Promise<Webhook[]> {
    return this.shared.read(signal);
  }

  /** Creates a webhook; the returned `webhook_secret` is shown by the service only here. */
  async create(fields: WebhookFields, signal?: AbortSignal): Promise<CreatedWebhook> {
    const body = await this.shared.write(() =>
      this.transport.request({
        method: "POST",
        path: "/api/v0/webhooks/",
        body: fields,
        bodySchema: webhookFieldsSchema,
        response: createdWebhookSchema,
        creates: true,
        signal,
      }),
    );
    return body.webhook;
  }

  async update(id: number, fields: Partial<WebhookFields>, signal?: AbortSignal): Promise<Webhook> {
    const body = await this.shared.write(() =>
      this.transport.request({
        method: "PUT",
        path: `/api/v0/webhooks/${id}/`,
        body: fields,
        bodySchema: webhookUpdateSchema,
        response: webhookBodySchema,
        signal,
      }),
    );
    return body.webhook;
  }

  /** Replaces the signing secret; the new one is returned only here. */
  async rotateSecret(id: number, signal?: AbortSignal): Promise<CreatedWebhook> {
    const body = await this.shared.write(() =>
      this.transport.request({
        method: "POST",
        path: `/api/v0/webhooks/${id}/rotate-secret/`,
        response: rotatedWebhookSchema,
        signal,
      }),
    );
    return body.webhook;
  }

  /** Asks the service to send a signed `webhook_test` event to the webhook's URL. */
  async sendTest(id: number, signal?: AbortSignal): Promise<string | undefined> {
    const body = await this.transport.request({
      method: "POST",
      path: `/api/v0/webhooks/${id}/test/`,
      response: testDeliverySchema,
      signal,
    });
    return body.msg;
  }

  /** The event keys webhooks may subscribe to. */
  async notificationTypes(signal?: AbortSignal): Promise<NotificationType[]> {
    const body = await this.transport.request({
      method: "GET",
      path: "/api/v0/notification-types/",
      response: notificationTypesSchema,
      signal,
    });
    return body.notification_types;
  }

  async delete(id: number, signal?: AbortSignal): Promise<void> {
    await this.shared.write(() =>
      this.transport.request({
        method: "DELETE",
        path: `/api/v0/webhooks/${id}/`,
        response: successSchema,
        signal,
      }),
    );
  }
}

/** The fields the OpenAPI gives both a create and an update of a webhook. */
const webhookFields = ["event_types", "name", "webhook_url"];

export const area: ClientArea = {
  property: "webhooks",
  Api: WebhooksApi,
  documents: {
    "GET /api/v0/notification-types/": { by: documentedBy.openApi },
    "GET /api/v0/webhooks/": { by: documentedBy.openApi },
    "POST /api/v0/webhooks/": { by: documentedBy.openApi, body: webhookFields },
    "DELETE /api/v0/webhooks/{id}/": { by: documentedBy.openApi },
    "PUT /api/v0/webhooks/{id}/": { by: documentedBy.openApi, body: webhookFields },
    "POST /api/v0/webhooks/{id}/rotate-secret/": { by: documentedBy.openApi },
    "POST /api/v0/webhooks/{id}/test/": { by: documentedBy.openApi },
  },
};
