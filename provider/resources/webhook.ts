import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { deleteUnlessGone, type Webhook as WebhookWire, type WebhookFields } from "../client";
import { providerClient } from "../provider-runtime";
import { type DynamicProvider, providerShim } from "../shim";
import { checkInputs } from "../validation";

// ---- Inputs -------------------------------------------------------------------------------

export const webhookInputsSchema = z.object({
  url: z
    .url({ protocol: /^https$/, error: "url must be an https:// URL" })
    .max(2048, "url must be at most 2048 characters"),
  eventTypes: z
    .array(
      z.string().regex(/^[a-z][a-z_]*(\.[a-z_]+)*$/, "each event type looks like instance.running"),
      { error: "eventTypes must be a list of event type names" },
    )
    .min(1, "eventTypes needs at least one event type"),
  name: z.string().max(120, "name must be at most 120 characters").optional(),
});
export type WebhookInputs = z.infer<typeof webhookInputsSchema>;

export const webhookOutputsSchema = webhookInputsSchema.extend({
  /** The service's id of the webhook. */
  webhookId: z.number().int(),
  /** The signing secret, returned by the service only at creation (a Pulumi secret). */
  webhookSecret: z.string(),
});
export type WebhookOutputs = z.infer<typeof webhookOutputsSchema>;

// ---- Diff rules ---------------------------------------------------------------------------

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((item, index) => item === b[index]);

/** Every field can be changed in place (PUT /api/v0/webhooks/{id}/): nothing replaces. */
export function diffWebhook(olds: WebhookOutputs, news: WebhookInputs): pulumi.dynamic.DiffResult {
  const changed =
    olds.url !== news.url ||
    !sameList(olds.eventTypes, news.eventTypes) ||
    (olds.name ?? "") !== (news.name ?? "");
  return { changes: changed, replaces: [] };
}

// ---- CRUD ---------------------------------------------------------------------------------

/** The wire fields; on update, a removed name is sent as null so that the service clears it. */
function toWire(inputs: WebhookInputs, update = false): WebhookFields {
  return {
    webhook_url: inputs.url,
    event_types: inputs.eventTypes,
    ...(inputs.name !== undefined ? { name: inputs.name } : update ? { name: null } : {}),
  };
}

function fromWire(webhook: WebhookWire): WebhookInputs {
  return {
    url: webhook.webhook_url,
    eventTypes: webhook.event_types,
    ...(webhook.name === null || webhook.name === "" ? {} : { name: webhook.name }),
  };
}

export const provider: DynamicProvider<WebhookInputs, WebhookOutputs> = {
  async check(_olds, news) {
    providerClient();
    return checkInputs(webhookInputsSchema, news);
  },

  async diff(_id, olds, news) {
    return diffWebhook(olds, news);
  },

  async create(inputs) {
    const created = await providerClient().webhooks.create(toWire(inputs));
    return {
      id: String(created.id),
      outs: { ...inputs, webhookId: created.id, webhookSecret: created.webhook_secret },
    };
  },

  async read(id, props) {
    const found = (await providerClient().webhooks.list()).find(
      (webhook) => String(webhook.id) === id,
    );
    if (!found || !props) return {};
    const inputs = fromWire(found);
    // A name removed outside Pulumi must not survive from the old outputs.
    const { name: _recordedName, ...recorded } = props;
    return { id, props: { ...recorded, ...inputs }, inputs };
  },

  async update(_id, olds, news) {
    await providerClient().webhooks.update(olds.webhookId, toWire(news, true));
    return { outs: { ...news, webhookId: olds.webhookId, webhookSecret: olds.webhookSecret } };
  },

  async delete(_id, props) {
    await deleteUnlessGone(providerClient().webhooks.delete(props.webhookId));
  },
};

// ---- The resource -------------------------------------------------------------------------

export interface WebhookArgs {
  /** Where events are delivered: an https:// URL, at most 2048 characters. */
  url: pulumi.Input<string>;
  /** The event types to deliver (at least one), e.g. `["instance.running"]`. */
  eventTypes: pulumi.Input<pulumi.Input<string>[]>;
  /** A display name, at most 120 characters. */
  name?: pulumi.Input<string>;
}

/** A webhook of the account. Every change updates it in place. */
export class Webhook extends pulumi.dynamic.Resource {
  declare readonly url: pulumi.Output<string>;
  declare readonly eventTypes: pulumi.Output<string[]>;
  declare readonly name: pulumi.Output<string | undefined>;
  /** The service's id of the webhook. */
  declare readonly webhookId: pulumi.Output<number>;
  /** The secret that signs deliveries; shown by the service only at creation. A Pulumi secret. */
  declare readonly webhookSecret: pulumi.Output<string>;

  constructor(name: string, args: WebhookArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerShim("pulumi-gpucloud/provider/resources/webhook"),
      name,
      // Every output is named here, or the resource would not expose it.
      {
        url: args.url,
        eventTypes: args.eventTypes,
        name: args.name,
        webhookId: undefined,
        webhookSecret: undefined,
      },
      { ...opts, additionalSecretOutputs: ["webhookSecret"] },
      "gpucloud",
      "Webhook",
    );
  }
}
