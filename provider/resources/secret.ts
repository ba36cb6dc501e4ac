import type * as pulumi from "@pulumi/pulumi";
import { secret as secretOutput } from "@pulumi/pulumi/output";
import { z } from "zod";
import { deleteUnlessGone, GpuCloudError, type MaskedSecrets } from "../client";
import { dynamicProvider } from "../provider-runtime";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import type { ResourceImplementation } from "../shared/resource-implementation";
import { readResult } from "../shared/read-result";
import { DynamicResource, providerEntry } from "../shim";
import { recoverLostCreate } from "../shared/lost-create";
import { checkInputs } from "../shared/validation";
import { withExample } from "../shared/reference-examples";

// ---- Inputs -------------------------------------------------------------------------------

/** The service stores keys upper-case; two keys differing only in case are the same key. */
export const secretInputsSchema = z.object({
  key: z
    .string({ error: "the variable's name: letters, digits and _" })
    .min(1, "key must not be empty")
    .max(128, "key must be at most 128 characters")
    .regex(
      /^[A-Za-z_][A-Za-z0-9_]*$/,
      "key may hold only letters, digits and _, and must not start with a digit",
    )
    .transform((key) => key.toUpperCase())
    // After the transform: its output side keeps only the pipe's own description.
    .describe(
      "The environment variable's name: letters, digits and `_`, not starting with a digit, at " +
        "most 128 characters. Stored upper-case, as the service stores it. Changing it replaces " +
        "the secret (the new key is created before the old one is deleted).",
    )
    .meta({ willReplaceOnChanges: true }),
  value: z
    .string({ error: 'a string of letters, digits, _, - and . (use "" for an empty value)' })
    .max(2048, "value must be at most 2048 characters")
    .regex(/^[A-Za-z0-9_.-]*$/, "value may hold only letters, digits, _, - and .")
    // Optional in the schema for `pulumi import` alone: a new secret needs it.
    .meta({ secret: true, requiredToCreate: true })
    .describe(
      'The value: letters, digits, `_`, `-` and `.`, at most 2048 characters ("" for an empty ' +
        "value); always stored as a Pulumi secret. Changing it updates the secret in place. " +
        "Required, except for a secret brought in by `pulumi import`: left out, the service's " +
        "value is kept.",
    ),
});
export type SecretInputs = z.infer<typeof secretInputsSchema>;

// Secret's example on its reference page (docs/reference/Secret.md): a token every instance of the
// account gets as HF_TOKEN.
withExample(secretInputsSchema, {
  inputs: { key: "HF_TOKEN", value: "hf_example_token" },
});

/**
 * Outputs: the inputs as applied (`value` is stored as a Pulumi secret). A secret brought in by
 * `pulumi import` records no value until a program sets one: the service shows values only
 * masked.
 */
export const secretOutputsSchema = secretInputsSchema.partial({ value: true });
export type SecretOutputs = Omit<SecretInputs, "value"> & { value?: string };

/**
 * True when these inputs leave out the value of a secret that was imported and whose value
 * Pulumi has never set (recorded inputs of the same key without a value): the service's value
 * is then left as it is. A new secret, or a new key, always needs a value.
 */
function keepsImportedValue(olds: Partial<SecretOutputs>, news: Record<string, unknown>): boolean {
  return (
    news["value"] === undefined &&
    typeof olds.key === "string" &&
    olds.value === undefined &&
    typeof news["key"] === "string" &&
    news["key"].toUpperCase() === olds.key
  );
}

// ---- Diff rules ---------------------------------------------------------------------------

/**
 * The service only ever returns masks, so the desired value is compared with the value
 * recorded in state, never with what the service shows. A new value updates in place. A new
 * key replaces, creating the new key before deleting the old one: the two cannot collide,
 * because check normalises keys to upper-case, so a change of case alone is no change at all.
 */
export function diffSecret(
  olds: SecretOutputs,
  news: Omit<SecretInputs, "value"> & { value?: string },
): pulumi.dynamic.DiffResult {
  const keyChanged = olds.key !== news.key;
  return {
    changes: keyChanged || olds.value !== news.value,
    replaces: keyChanged ? ["key"] : [],
  };
}

// ---- CRUD ---------------------------------------------------------------------------------

function alreadyExists(key: string): Error {
  return new Error(
    `secret ${key} already exists in the account. Dynamic resources cannot be imported: ` +
      `delete it (or choose another key) and run again, or import it through the native ` +
      `plugin (pulumi import gpucloud:index:Secret <name> ${key}).`,
  );
}

const checkSecret = (news: Record<string, unknown>) =>
  checkInputs(secretInputsSchema, news, { type: "Secret" });

export const implementation: ResourceImplementation<SecretInputs, SecretOutputs> = {
  async check(run, olds, news) {
    // An imported secret's value may stay unset (see keepsImportedValue).
    const checked = keepsImportedValue(olds, news)
      ? (checkInputs(secretOutputsSchema, news, { type: "Secret" }) as ReturnType<
          typeof checkSecret
        >)
      : checkSecret(news);
    return { ...checked, failures: [...(await run.configurationFailures()), ...checked.failures] };
  },

  async diff(_run, _id, olds, news) {
    return diffSecret(olds, news);
  },

  async create(run, inputs) {
    const client = run.client;
    // Refused up front, so that a key present after a lost reply can only be this create's (the
    // account's keys are read once per run, not once per create).
    if ((await run.reads.secretKeysBefore()).has(inputs.key)) throw alreadyExists(inputs.key);
    const key = await recoverLostCreate({
      create: async () => {
        await client.secrets.create(inputs.key, inputs.value).catch((error: unknown) => {
          if (error instanceof GpuCloudError && error.code === "existing_key") {
            throw alreadyExists(inputs.key);
          }
          throw error;
        });
        return inputs.key;
      },
      // The reply was lost after the service may have stored it: if the key is there now, it is
      // this create's (setting the value again makes sure of it).
      findCreated: async () => {
        if (!(inputs.key in (await client.secrets.list()))) return undefined;
        await client.secrets.update(inputs.key, inputs.value);
        return inputs.key;
      },
    });
    return { id: key, outs: { key, value: inputs.value } };
  },

  /**
   * What refresh can see: whether the key still exists, and whether its value is empty (a
   * null mask). A value changed to another non-empty value outside Pulumi is invisible.
   */
  async read(run, id, props) {
    const masked = await run.client.secrets.list();
    if (props === undefined) return importedSecret(id.toUpperCase(), masked);
    if (!(id in masked)) return {};
    // Imported and never set by Pulumi: its value is still unknown, whatever the mask says.
    if (props.value === undefined) {
      return readResult(id, props, { key: id }, { key: id } as SecretInputs);
    }
    const recorded = props.value;
    const emptyNow = masked[id] === null;
    // Drift in emptiness: record what the service holds so the next up restores the value.
    const value = emptyNow ? "" : recorded === "" ? "(set outside Pulumi)" : recorded;
    const outs = { key: id, value };
    return readResult(id, props, outs, outs);
  },

  async update(run, _id, _olds, news) {
    // Unreachable without a value: check requires one unless nothing would change.
    await run.client.secrets.update(news.key, news.value);
    return { outs: { key: news.key, value: news.value } };
  },

  async delete(run, _id, props) {
    await deleteUnlessGone(run.client.secrets.delete(props.key));
  },
};

/** The dynamic door's provider, which every state of this resource names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "secret");

/** Secret, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "Secret",
  implementation,
  inputs: secretInputsSchema,
  outputs: secretOutputsSchema,
  description:
    "An account environment-variable secret. The service returns values only masked, so " +
    "refresh detects a deleted key or an emptied value, not a value changed to another one. " +
    "value is required, except for a secret brought in by pulumi import: left out, the " +
    "service's value is kept; declared, the next up sets it in place.",
  // Imported secrets may leave the value out (keepsImportedValue); check decides.
  optional: ["value"],
  packageTypes: ["SecretArgs"],
  tests: {
    records: "secrets",
    isOnAccount: hasRecord("secrets", "key", "key"),
    identify: (record) => record["key"],
  },
  badInputs: () => {
    const plainValue = "a b$c";
    return [
      {
        what: "wrong types and characters",
        args: { key: 123, value: plainValue },
        cases: [
          { field: "key", says: /key: expected a string, received 123/ },
          {
            field: "value",
            says: /value: may hold only letters, digits, _, - and \. \(received a string of 5 characters\)/,
          },
        ],
        secrets: [plainValue],
      },
      {
        what: "limits",
        args: { key: "1ABC", value: "v".repeat(3000) },
        cases: [
          { field: "key", says: /key: may hold only letters, digits and _, and must not start/ },
          { field: "value", says: /value: must be at most 2048 characters; got 3000/ },
        ],
        secrets: ["v".repeat(3000)],
      },
      {
        what: "missing fields",
        args: {},
        cases: [
          { field: "key", says: /key: required: the variable's name/ },
          { field: "value", says: /value: required: a string of letters, digits, _, - and \./ },
        ],
      },
      {
        what: "empty key, value of another type",
        args: { key: "K".repeat(200), value: true },
        cases: [
          { field: "key", says: /key: must be at most 128 characters; got 200 characters/ },
          { field: "value", says: /value: expected a string, received true/ },
        ],
      },
    ];
  },
  recorded: () => [{ olds: { key: "API_TOKEN", value: "v1" } }],
});

/**
 * `pulumi import` (Read without recorded properties): the key as the service stores it. The
 * service shows only a mask, so an empty value (a null mask) is recorded as "" and any other
 * value is not recorded: the program may leave `value` out (the service's value is kept) or
 * declare it (the next up sets it in place).
 */
function importedSecret(
  key: string,
  masked: MaskedSecrets,
): { id?: string; props?: SecretOutputs; inputs?: SecretInputs } {
  if (!(key in masked)) return {};
  const outs: SecretOutputs = masked[key] === null ? { key, value: "" } : { key };
  // Without a value only when check lets it be left out (keepsImportedValue).
  return { id: key, props: outs, inputs: outs as SecretInputs };
}

// ---- The resource -------------------------------------------------------------------------

export interface SecretArgs {
  /** The environment variable's name: letters, digits and `_`. Stored upper-case. */
  key: pulumi.Input<string>;
  /**
   * The value: letters, digits, `_`, `-` and `.`, at most 2048 characters. Always stored as a
   * Pulumi secret, even when given as a plain string.
   */
  value: pulumi.Input<string>;
}

/**
 * An account environment-variable secret. The service returns values only masked, so refresh
 * detects a deleted key or an emptied value, not a value changed to another one.
 */
export class Secret extends DynamicResource {
  /** The key as the service stores it (upper-case). */
  declare readonly key: pulumi.Output<string>;
  /** The value as last applied (a Pulumi secret). */
  declare readonly value: pulumi.Output<string>;

  constructor(name: string, args: SecretArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/secret"),
      name,
      // Keys the resource does not have too: check names them (shared/unknown-inputs.ts).
      { ...args, key: args.key, value: secretOutput(args.value) },
      { ...opts, additionalSecretOutputs: ["value"] },
      "Secret",
    );
  }
}
