import { z } from "zod";
import { SharedList } from "./shared-list";
import type { Transport } from "./transport";

export const webhookSchema = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  webhook_url: z.string(),
  event_types: z.array(z.string()),
  created_at: z.union([z.string(), z.number()]).nullable().optional(),
});
export type Webhook = z.infer<typeof webhookSchema>;

const createdWebhookSchema = z.object({
  success: z.boolean(),
  webhook: webhookSchema.extend({ webhook_secret: z.string() }),
});
export type CreatedWebhook = z.infer<typeof createdWebhookSchema>["webhook"];

const webhookBodySchema = z.object({ success: z.boolean(), webhook: webhookSchema });
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
