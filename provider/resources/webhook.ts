import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { deleteUnlessGone, type Webhook as WebhookWire, type WebhookFields } from "../client";
import { dynamicProvider } from "../provider-runtime";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import type { ResourceImplementation } from "../shared/resource-implementation";
import type { Run } from "../run/run";
import { readResult } from "../shared/read-result";
import { DynamicResource, providerEntry } from "../shim";
import { checkInputs, containsUnknown, fieldFailure } from "../shared/validation";
import { withExample } from "../shared/reference-examples";

// ---- Inputs -------------------------------------------------------------------------------

/** The service's notification keys, `<context>:<slug>` (GET /api/v0/notification-types/). */
const eventKeyPattern = /^(client|host):[a-z0-9_]+$/;

/** The service allows this many webhooks per user. */
const maxWebhooksPerUser = 4;

export const webhookInputsSchema = z.object({
  url: z
    .url({ protocol: /^https$/, error: "url must be an https:// URL" })
    .max(2048, "url must be at most 2048 characters")
    .describe(
      "Where events are delivered: an https:// URL, at most 2048 characters. Changes in place.",
    ),
  eventTypes: z
    .array(
      z
        .string()
        .regex(
          eventKeyPattern,
          "each event type is a notification key <context>:<slug> with context client or host, e.g. client:low_credit",
        ),
      { error: "a list of notification keys such as client:low_credit" },
    )
    .min(1, "eventTypes needs at least one event type")
    .describe(
      "The notification types to deliver, at least one: the service's keys " +
        "`<context>:<slug>` with context `client` or `host`, e.g. `client:low_credit` " +
        "(GET /api/v0/notification-types/ lists them). Changes in place.",
    ),
  name: z
    .string()
    .max(120, "name must be at most 120 characters")
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f]*$/, "name must not contain control characters (newlines, tabs)")
    .describe("A display name, at most 120 characters, no control characters. Changes in place.")
    .optional(),
  secretRotation: z
    .string({ error: "any string; a new one rotates the signing secret" })
    .describe(
      "Any value. Changing it rotates the signing secret in place: `webhookSecret` then holds " +
        "the new secret, and deliveries are signed with it. Unchanged, the secret is kept.",
    )
    .optional(),
});
export type WebhookInputs = z.infer<typeof webhookInputsSchema>;

// Webhook's example on its reference page (docs/reference/Webhook.md): low-credit alerts delivered
// to an https endpoint.
withExample(webhookInputsSchema, {
  inputs: { url: "https://hooks.example.com/gpucloud", eventTypes: ["client:low_credit"] },
});

export const webhookOutputsSchema = webhookInputsSchema.extend({
  webhookId: z.number().int().describe("The service's id of the webhook."),
  webhookSecret: z
    .string()
    .meta({ secret: true })
    .describe(
      "The secret that signs deliveries (a Pulumi secret), returned by the service only at " +
        "creation and rotation. Absent for a webhook brought in by `pulumi import` until a new " +
        "`secretRotation` rotates it.",
    )
    .optional(),
});
export type WebhookOutputs = z.infer<typeof webhookOutputsSchema>;

// ---- Diff rules ---------------------------------------------------------------------------

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((item, index) => item === b[index]);

const fieldsChanged = (olds: WebhookInputs, news: WebhookInputs): boolean =>
  olds.url !== news.url ||
  !sameList(olds.eventTypes, news.eventTypes) ||
  (olds.name ?? "") !== (news.name ?? "");

const rotationRequested = (olds: WebhookInputs, news: WebhookInputs): boolean =>
  (olds.secretRotation ?? "") !== (news.secretRotation ?? "");

/**
 * Every field changes in place (PUT /api/v0/webhooks/{id}/), and a new `secretRotation`
 * rotates the secret (POST …/rotate-secret/): nothing replaces.
 */
export function diffWebhook(olds: WebhookOutputs, news: WebhookInputs): pulumi.dynamic.DiffResult {
  return { changes: fieldsChanged(olds, news) || rotationRequested(olds, news), replaces: [] };
}

// ---- CRUD ---------------------------------------------------------------------------------

/**
 * What check can know only from the account: event keys outside the service's catalogue, and
 * a new webhook beyond the per-user limit. When the account cannot be read (no key yet, a
 * scope without misc, the service down), check leaves these to the service's own refusal.
 */
async function accountFailures(
  run: Run,
  inputs: WebhookInputs,
  isNew: boolean,
): Promise<pulumi.dynamic.CheckFailure[]> {
  const client = run.client;
  const failures: pulumi.dynamic.CheckFailure[] = [];
  // The catalogue changes rarely: one read per run.
  const catalogue = await run.reads.notificationTypeKeys().catch(() => undefined);
  const unknownKeys = catalogue && inputs.eventTypes.filter((key) => !catalogue.includes(key));
  if (unknownKeys && unknownKeys.length > 0) {
    failures.push(
      fieldFailure(
        "eventTypes",
        `${unknownKeys.join(", ")} ` +
          `${unknownKeys.length === 1 ? "is not a notification type" : "are not notification types"} ` +
          `of this service; valid keys: ${catalogue.join(", ")}`,
      ),
    );
  }
  if (isNew) {
    const existing = await client.webhooks.list().catch(() => undefined);
    if (existing && existing.length >= maxWebhooksPerUser) {
      failures.push(
        fieldFailure(
          "url",
          `the account already has ${existing.length} webhooks and the service allows ` +
            `${maxWebhooksPerUser} per user: delete one, or subscribe an existing webhook to these events`,
        ),
      );
    }
  }
  return failures;
}

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

export const implementation: ResourceImplementation<WebhookInputs, WebhookOutputs> = {
  async check(run, olds, news) {
    const setup = await run.configurationFailures();
    const checked = checkInputs(webhookInputsSchema, news, { type: "Webhook" });
    if (setup.length > 0) return { ...checked, failures: [...setup, ...checked.failures] };
    const known = checked.failures.length === 0 && !containsUnknown(news);
    if (!known) return checked;
    const isNew = Object.keys(olds).length === 0;
    return { ...checked, failures: await accountFailures(run, checked.inputs, isNew) };
  },

  async diff(_run, _id, olds, news) {
    return diffWebhook(olds, news);
  },

  async create(run, inputs) {
    const created = await run.client.webhooks.create(toWire(inputs));
    return {
      id: String(created.id),
      outs: { ...inputs, webhookId: created.id, webhookSecret: created.webhook_secret },
    };
  },

  async read(run, id, props) {
    const found = (await run.client.webhooks.list()).find((webhook) => String(webhook.id) === id);
    if (!found) return {};
    // `pulumi import`: what the service shows; the signing secret is shown only at creation.
    if (!props) {
      const imported = fromWire(found);
      return { id, props: { ...imported, webhookId: found.id }, inputs: imported };
    }
    // The rotation value is ours, not the service's: it carries over from the recorded outputs.
    const inputs = {
      ...fromWire(found),
      ...(props.secretRotation === undefined ? {} : { secretRotation: props.secretRotation }),
    };
    // A name removed outside Pulumi must not survive from the old outputs.
    const { name: _recordedName, ...recorded } = props;
    return readResult(id, props, { ...recorded, ...inputs }, inputs);
  },

  async update(run, _id, olds, news) {
    const webhooks = run.client.webhooks;
    if (fieldsChanged(olds, news)) await webhooks.update(olds.webhookId, toWire(news, true));
    const webhookSecret = rotationRequested(olds, news)
      ? (await webhooks.rotateSecret(olds.webhookId)).webhook_secret
      : olds.webhookSecret;
    return { outs: { ...news, webhookId: olds.webhookId, webhookSecret } };
  },

  async delete(run, _id, props) {
    await deleteUnlessGone(run.client.webhooks.delete(props.webhookId));
  },
};

/** The dynamic door's provider, which every state of this resource names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "webhook");

/** Webhook, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "Webhook",
  implementation,
  inputs: webhookInputsSchema,
  outputs: webhookOutputsSchema,
  description:
    "A webhook of the account: the service POSTs the subscribed notification events to url, " +
    "signed with webhookSecret. Every change updates it in place.",
  packageTypes: ["WebhookArgs"],
  tests: { records: "webhooks", isOnAccount: hasRecord("webhooks", "webhookId") },
  badInputs: () => [
    {
      what: "wrong scheme and types",
      args: {
        url: "http://hooks.example.com/x",
        eventTypes: "client:low_credit",
        name: "two\nlines",
        secretRotation: 5,
      },
      cases: [
        { field: "url", says: /url: must be an https:\/\/ URL/ },
        { field: "eventTypes", says: /eventTypes: expected a list, received a string/ },
        { field: "name", says: /name: must not contain control characters/ },
        { field: "secretRotation", says: /secretRotation: expected a string, received 5/ },
      ],
    },
    {
      what: "limits",
      args: {
        url: `https://hooks.example.com/${"p".repeat(3000)}`,
        eventTypes: [],
        name: "n".repeat(200),
      },
      cases: [
        { field: "url", says: /url: must be at most 2048 characters; got 3026 characters/ },
        { field: "eventTypes", says: /eventTypes: needs at least one event type/ },
        { field: "name", says: /name: must be at most 120 characters; got 200 characters/ },
      ],
    },
    {
      what: "missing url, malformed event key",
      args: { eventTypes: ["low credit"] },
      cases: [
        { field: "url", says: /url: required: url must be an https:\/\/ URL/ },
        {
          field: "eventTypes.0",
          says: /eventTypes.0: each event type is a notification key <context>:<slug>/,
        },
      ],
    },
    {
      what: "an event key the service does not have",
      args: { url: "https://hooks.example.com/x", eventTypes: ["client:no_such_event"] },
      cases: [
        {
          field: "eventTypes",
          says: /eventTypes: client:no_such_event is not a notification type of this service; valid keys: client:/,
        },
      ],
    },
    {
      what: "a fifth webhook",
      args: { url: "https://hooks.example.com/gpu", eventTypes: ["client:low_credit"] },
      cases: [
        {
          field: "url",
          says: /the account already has 4 webhooks and the service allows 4 per user/,
        },
      ],
      before: async (client) => {
        for (let n = 1; n <= 4; n += 1) {
          await client.webhooks.create({
            webhook_url: `https://outside.example.com/${String(n)}`,
            event_types: ["client:outbid"],
          });
        }
      },
    },
  ],
  recorded: () => [
    {
      olds: {
        url: "https://a.example/",
        eventTypes: ["client:low_credit"],
        name: "n",
        webhookId: 1,
        webhookSecret: "s",
      },
    },
  ],
});

// ---- The resource -------------------------------------------------------------------------

export interface WebhookArgs {
  /** Where events are delivered: an https:// URL, at most 2048 characters. */
  url: pulumi.Input<string>;
  /**
   * The notification types to deliver (at least one): the service's keys `<context>:<slug>`,
   * e.g. `["client:low_credit", "client:outbid"]`; `GET /api/v0/notification-types/` lists them.
   */
  eventTypes: pulumi.Input<pulumi.Input<string>[]>;
  /** A display name, at most 120 characters, no control characters. */
  name?: pulumi.Input<string>;
  /**
   * Any value. Changing it rotates the signing secret in place: `webhookSecret` then holds the
   * new secret, and deliveries are signed with it. Leaving it unchanged keeps the secret.
   */
  secretRotation?: pulumi.Input<string>;
}

/**
 * A webhook of the account: the service POSTs the subscribed notification events to `url`,
 * signed with `webhookSecret` (`X-Vast-Signature-256`). Every change updates it in place.
 */
export class Webhook extends DynamicResource {
  declare readonly url: pulumi.Output<string>;
  declare readonly eventTypes: pulumi.Output<string[]>;
  declare readonly name: pulumi.Output<string | undefined>;
  declare readonly secretRotation: pulumi.Output<string | undefined>;
  /** The service's id of the webhook. */
  declare readonly webhookId: pulumi.Output<number>;
  /** The secret that signs deliveries; shown by the service only at creation. A Pulumi secret. */
  declare readonly webhookSecret: pulumi.Output<string>;

  constructor(name: string, args: WebhookArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/webhook"),
      name,
      // Every output is named here, or the resource would not expose it.
      {
        // Keys the resource does not have too: check names them (shared/unknown-inputs.ts).
        ...args,
        url: args.url,
        eventTypes: args.eventTypes,
        name: args.name,
        secretRotation: args.secretRotation,
        webhookId: undefined,
        webhookSecret: undefined,
      },
      { ...opts, additionalSecretOutputs: ["webhookSecret"] },
      "Webhook",
    );
  }
}
