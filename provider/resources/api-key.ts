import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { deleteUnlessGone } from "../client";
import { dynamicProvider } from "../provider-runtime";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import type { ResourceImplementation } from "../shared/resource-implementation";
import type { Run } from "../run/run";
import { readResult } from "../shared/read-result";
import { DynamicResource, providerEntry } from "../shim";
import { recoverLostCreate } from "../shared/lost-create";
import { checkInputs } from "../shared/validation";
import { withExample } from "../shared/reference-examples";

// ---- Inputs -------------------------------------------------------------------------------

/**
 * The service's permission categories. The specification shows the first four; the others
 * are those of the service's published category list (emulator/README.md, "Authentication and
 * scopes").
 */
export const apiKeyCategories = [
  "misc",
  "user_read",
  "user_write",
  "instance_read",
  "instance_write",
  "billing_read",
  "billing_write",
  "machine_read",
  "machine_write",
  "team_read",
  "team_write",
] as const;
export type ApiKeyCategory = (typeof apiKeyCategories)[number];

/**
 * A category's constraint object: `{}` grants the category without constraints. The
 * specification does not give the constraint syntax, so any object is passed on as written.
 */
const constraintsSchema = z.record(z.string(), z.unknown(), {
  error: "each category maps to a constraint object; {} grants it without constraints",
});

const categoryShape = Object.fromEntries(
  apiKeyCategories.map((category) => [
    category,
    constraintsSchema
      .describe(
        `Grants the ${category} category: an object of constraints, passed to the service as ` +
          "written; `{}` grants it without constraints.",
      )
      .optional(),
  ]),
) as { [Category in ApiKeyCategory]: z.ZodOptional<typeof constraintsSchema> };

/** The specification's scope shape: `{ api: { <category>: { <constraints> } } }`. */
export const apiKeyPermissionsSchema = z.strictObject(
  {
    api: z
      .strictObject(categoryShape, {
        error: (issue) =>
          issue.code === "unrecognized_keys"
            ? `${issue.keys.join(", ")}: not a permission category; the categories are ` +
              apiKeyCategories.join(", ")
            : "api must be an object of permission categories, e.g. { instance_read: {} }",
      })
      .refine(
        (api) => Object.values(api).some((constraints) => constraints !== undefined),
        "api must grant at least one category, e.g. { instance_read: {} }",
      )
      .describe(
        "The permission categories the key is granted (at least one), each mapped to its " +
          "constraints (an object; empty for none), e.g. the category `instance_read`.",
      ),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `only api is allowed at the top level, not ${issue.keys.join(", ")}`
        : "permissions must be { api: { <category>: {} } }, e.g. { api: { instance_read: {} } }",
  },
);
export type ApiKeyPermissions = z.infer<typeof apiKeyPermissionsSchema>;

export const apiKeyInputsSchema = z.object({
  name: z
    .string({ error: "the key's name" })
    .trim()
    .min(1, "name must not be empty")
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f]*$/, "name must not contain control characters")
    .describe(
      "The key's name on the service, not empty, without control characters; default: the " +
        "resource's name. Changing it replaces the key.",
    )
    .meta({ willReplaceOnChanges: true }),
  permissions: apiKeyPermissionsSchema
    .describe(
      "What the key may do, in the service's scope shape: an object holding `api`, an object of " +
        "categories, each an object of constraints (e.g. the category `instance_read` with " +
        "none). " +
        "Changing it replaces the key (a key's scope cannot change): the new key is created " +
        "before the old one is revoked.",
    )
    .meta({ willReplaceOnChanges: true }),
});
export type ApiKeyInputs = z.infer<typeof apiKeyInputsSchema>;

// ApiKey's example on its reference page (docs/reference/ApiKey.md): a key that reads instances and
// nothing else.
withExample(apiKeyInputsSchema, {
  inputs: { permissions: { api: { instance_read: {} } } },
});

export const apiKeyOutputsSchema = apiKeyInputsSchema.extend({
  apiKeyId: z
    .number()
    .int()
    .describe("The service's id of the key (getCurrentUser's `keyId` when it is in use)."),
  key: z
    .string()
    .meta({ secret: true })
    .describe(
      "The key itself (a Pulumi secret), shown by the service only at creation. Absent for a " +
        "key brought in by `pulumi import`.",
    )
    .optional(),
});
export type ApiKeyOutputs = z.infer<typeof apiKeyOutputsSchema>;

// ---- Diff rules ---------------------------------------------------------------------------

/** JSON with object keys sorted: two scopes that differ only in key order are the same. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );
}

/**
 * The service cannot change a key's scope or name: either change replaces it. The new key is
 * created before the old one is revoked, so whatever uses the key is never left without one.
 */
export function diffApiKey(olds: ApiKeyOutputs, news: ApiKeyInputs): pulumi.dynamic.DiffResult {
  const replaces: string[] = [];
  if (olds.name !== news.name) replaces.push("name");
  if (canonical(olds.permissions) !== canonical(news.permissions)) replaces.push("permissions");
  return { changes: replaces.length > 0, replaces };
}

// ---- CRUD ---------------------------------------------------------------------------------

/** The scope the service lists as JSON text (`rights`), or undefined when it is not one. */
function scopeOf(rights: string | null | undefined): ApiKeyPermissions | undefined {
  if (!rights) return undefined;
  try {
    const parsed = apiKeyPermissionsSchema.safeParse(JSON.parse(rights));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `pulumi import` (Read without recorded properties): the key's name and scope, never the key
 * itself (the service shows it only at creation). Refused, with the reason, for the key this
 * provider is configured with (a destroy would revoke the provider's own credential), and for
 * a key whose scope no program can declare (full access, or rights outside the categories).
 */
async function importedApiKey(
  run: Run,
  id: string,
): Promise<{ id?: string; props?: ApiKeyOutputs; inputs?: ApiKeyInputs }> {
  const client = run.client;
  const found = (await client.apiKeys.list()).find((key) => String(key.id) === id);
  if (!found) return {};
  const refuse = (why: string): Error =>
    new Error(`api key ${found.id} cannot be imported: ${why}`);
  if ((await client.users.current()).keyId === found.id) {
    throw refuse(
      "it is the key this provider is configured with (gpucloud:apiKey); managed, a destroy " +
        "or a replacement would revoke the provider's own credential",
    );
  }
  const permissions = scopeOf(found.rights);
  if (permissions === undefined) {
    throw refuse(
      found.rights
        ? "its rights are not a scope a program can declare ({ api: { <category>: {} } })"
        : "it has full access (no scope), which a program cannot declare",
    );
  }
  const name = (found.name ?? "").trim();
  if (name === "") throw refuse("it has no name, and a program's key needs one");
  const inputs: ApiKeyInputs = { name, permissions };
  return { id: String(found.id), props: { ...inputs, apiKeyId: found.id }, inputs };
}

/**
 * The provider only ever calls the service with the configured key (the run's client): a key
 * created here is handed to the program as an output and never used as a credential.
 */
export const implementation: ResourceImplementation<ApiKeyInputs, ApiKeyOutputs> = {
  async check(run, _olds, news) {
    const checked = checkInputs(apiKeyInputsSchema, news, { type: "ApiKey" });
    return { ...checked, failures: [...(await run.configurationFailures()), ...checked.failures] };
  },

  async diff(_run, _id, olds, news) {
    return diffApiKey(olds, news);
  },

  async create(run, inputs) {
    const client = run.client;
    // The account's keys before this run created any, and those it created: after a lost create
    // reply, a key of that name in neither set can only be that create's.
    const before = await run.reads.apiKeyIdsBefore();
    const createdThisRun = run.made.apiKeyIds;
    const created = await recoverLostCreate({
      create: () => client.apiKeys.create({ name: inputs.name, permissions: inputs.permissions }),
      // The service shows a key only in the create answer, which was lost: a key it may have
      // made can never be handed to the program, so it is revoked rather than left working.
      findCreated: async (lost) => {
        const orphans = (await client.apiKeys.list()).filter(
          (key) => !before.has(key.id) && !createdThisRun.has(key.id) && key.name === inputs.name,
        );
        for (const orphan of orphans) await deleteUnlessGone(client.apiKeys.delete(orphan.id));
        throw new Error(
          `${lost.message}. The service shows a new key only in that lost answer; ` +
            (orphans.length === 0
              ? "no new key of this name appeared. "
              : `the key it created (id ${orphans.map((key) => key.id).join(", ")}) was revoked. `) +
            "Run `pulumi up` again.",
        );
      },
    });
    createdThisRun.add(created.id);
    return {
      id: String(created.id),
      outs: { ...inputs, apiKeyId: created.id, key: created.key },
    };
  },

  /** Detects a key revoked outside Pulumi; the key itself is never listed, so it is kept. */
  async read(run, id, props) {
    if (!props) return importedApiKey(run, id);
    const found = (await run.client.apiKeys.list()).find((key) => String(key.id) === id);
    if (!found) return {};
    const inputs: ApiKeyInputs = {
      name: found.name ?? props.name,
      permissions: scopeOf(found.rights) ?? props.permissions,
    };
    return readResult(id, props, { ...props, ...inputs }, inputs);
  },

  async delete(run, _id, props) {
    await deleteUnlessGone(run.client.apiKeys.delete(props.apiKeyId));
  },
};

/** The dynamic door's provider, which every state of this resource names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "api-key");

/** ApiKey, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "ApiKey",
  implementation,
  inputs: apiKeyInputsSchema,
  outputs: apiKeyOutputsSchema,
  description:
    "A scoped API key of the account. key is shown by the service only at creation: it is " +
    "stored as a Pulumi secret. Delete revokes it.",
  // As the ApiKey class does: the key's name defaults to the resource's.
  optional: ["name"],
  fill: (news, { name }) => ({ ...news, name: news["name"] ?? name }),
  packageTypes: ["ApiKeyArgs", "ApiKeyCategory", "ApiKeyPermissionsArgs"],
  tests: {
    records: "apiKeys",
    isOnAccount: hasRecord("apiKeys", "apiKeyId"),
    // The key the emulator was started with.
    isOwn: (record) => record["id"] !== 1,
  },
  badInputs: () => [
    {
      what: "wrong type, unknown category",
      args: { name: 5, permissions: { api: { instance_reed: {} } } },
      cases: [
        { field: "name", says: /name: expected a string, received 5/ },
        {
          field: "permissions",
          says: /permissions.api: instance_reed: not a permission category; the categories are misc, user_read/,
        },
      ],
    },
    {
      what: "empty name, no category",
      args: { name: " ", permissions: { api: {} } },
      cases: [
        { field: "name", says: /name: must not be empty/ },
        { field: "permissions", says: /permissions.api: must grant at least one category/ },
      ],
    },
    {
      what: "control characters, missing scope",
      args: { name: "ci\tkey" },
      cases: [
        { field: "name", says: /name: must not contain control characters/ },
        { field: "permissions", says: /permissions: required: permissions must be \{ api:/ },
      ],
    },
    {
      what: "extra top-level key",
      args: { name: "ci", permissions: { api: { misc: {} }, read: true } },
      cases: [{ field: "permissions", says: /permissions: only api is allowed at the top level/ }],
    },
  ],
  recorded: () => [
    {
      olds: { name: "ci", permissions: { api: { instance_read: {} } }, apiKeyId: 3, key: "k" },
    },
  ],
});

// ---- The resource -------------------------------------------------------------------------

/** A scope as a program writes it: every category optional, each one's constraints an object. */
export type ApiKeyPermissionsArgs = z.input<typeof apiKeyPermissionsSchema>;

export interface ApiKeyArgs {
  /** The key's name on the service; default: the resource's name. A new name replaces it. */
  name?: pulumi.Input<string>;
  /**
   * What the key may do, in the specification's shape, e.g.
   * `{ api: { instance_read: {} } }`. A new scope replaces the key (a key's scope cannot change).
   */
  permissions: pulumi.Input<ApiKeyPermissionsArgs>;
}

/**
 * A scoped API key of the account. `key` is shown by the service only at creation: it is
 * stored as a Pulumi secret and never printed. Delete revokes it. The provider itself always
 * uses the configured key (`gpucloud:apiKey`), never one it created.
 */
export class ApiKey extends DynamicResource {
  declare readonly name: pulumi.Output<string>;
  declare readonly permissions: pulumi.Output<ApiKeyPermissions>;
  /** The service's id of the key. */
  declare readonly apiKeyId: pulumi.Output<number>;
  /** The key itself, a Pulumi secret. */
  declare readonly key: pulumi.Output<string>;

  constructor(name: string, args: ApiKeyArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/api-key"),
      name,
      {
        // Keys the resource does not have too: check names them (shared/unknown-inputs.ts).
        ...args,
        // The service's description requires a name: the resource's own is a readable default.
        name: args.name ?? name,
        permissions: args.permissions,
        apiKeyId: undefined,
        key: undefined,
      },
      { ...opts, additionalSecretOutputs: ["key"] },
      "ApiKey",
    );
  }
}
