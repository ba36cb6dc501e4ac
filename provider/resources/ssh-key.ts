import { createHash, generateKeyPairSync } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { deleteUnlessGone, type SshKey as SshKeyWire } from "../client";
import { dynamicProvider } from "../provider-runtime";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import type { ResourceImplementation } from "../shared/resource-implementation";
import { readResult } from "../shared/read-result";
import { DynamicResource, providerEntry } from "../shim";
import { onlyOne, recoverLostCreate } from "../shared/lost-create";
import { checkInputs } from "../shared/validation";
import { withExample } from "../shared/reference-examples";

// ---- Inputs -------------------------------------------------------------------------------

/** The key types OpenSSH writes into a `.pub` file. */
export const sshKeyTypes = [
  "ssh-ed25519",
  "ssh-rsa",
  "ssh-dss",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "sk-ssh-ed25519@openssh.com",
  "sk-ecdsa-sha2-nistp256@openssh.com",
] as const;

/** The longest `ssh_key` the service's description allows. */
export const maxPublicKeyChars = 4096;

export type ParsedPublicKey =
  { ok: true; type: string; keyData: Buffer; text: string } | { ok: false; reason: string };

/**
 * Checks OpenSSH's one-line public-key form, `<type> <base64 key data> [comment]`, where the
 * key data starts with its own type name (as every real key does), so that a mangled paste
 * fails at preview rather than locking the user out of an instance later. The reasons never
 * quote the input: it may be a private key pasted by mistake.
 */
export function parsePublicKey(input: string): ParsedPublicKey {
  const text = input.trim();
  if (/PRIVATE KEY|PuTTY-User-Key-File/.test(text)) {
    return {
      ok: false,
      reason:
        "publicKey holds a private key; give the public key instead (the one line of the " +
        ".pub file, e.g. ~/.ssh/id_ed25519.pub), and treat this private key as exposed if it " +
        "was committed anywhere",
    };
  }
  if (text.length > maxPublicKeyChars) {
    return { ok: false, reason: `publicKey is longer than ${maxPublicKeyChars} characters` };
  }
  if (/[\r\n]/.test(text)) {
    return { ok: false, reason: "publicKey must be one line: <type> <base64 key data> [comment]" };
  }
  const [type = "", data = ""] = text.split(/\s+/);
  if (!(sshKeyTypes as readonly string[]).includes(type)) {
    return {
      ok: false,
      reason:
        `publicKey must be an OpenSSH public key, <type> <base64 key data> [comment], with ` +
        `type one of ${sshKeyTypes.join(", ")}`,
    };
  }
  const keyData = Buffer.from(data, "base64");
  const namesType =
    /^[A-Za-z0-9+/]+={0,2}$/.test(data) &&
    keyData.length >= 4 + type.length &&
    keyData.readUInt32BE(0) === type.length &&
    keyData.toString("latin1", 4, 4 + type.length) === type;
  if (!namesType) {
    return { ok: false, reason: `publicKey's key data is not a base64 ${type} public key` };
  }
  return { ok: true, type, keyData, text };
}

/** The fingerprint as `ssh-keygen -l` prints it: SHA-256 of the key data, unpadded base64. */
export function fingerprintOf(publicKey: string): string {
  const parsed = parsePublicKey(publicKey);
  if (!parsed.ok) throw new Error(parsed.reason);
  const digest = createHash("sha256").update(parsed.keyData).digest("base64");
  return `SHA256:${digest.replace(/=+$/, "")}`;
}

export const sshKeyInputsSchema = z.object({
  publicKey: z
    .string({ error: "an OpenSSH public key (the line of a .pub file)" })
    .transform((value, context) => {
      const parsed = parsePublicKey(value);
      if (parsed.ok) return parsed.text;
      context.addIssue({ code: "custom", message: parsed.reason });
      return z.NEVER;
    })
    // After the transform: its output side keeps only the pipe's own description.
    .describe(
      "An OpenSSH public key, the one line of a `.pub` file: `<type> <base64 key data> " +
        "[comment]`. A private key given by mistake fails at preview without being printed. " +
        "Changing it updates the key in place, keeping its id.",
    ),
});
export type SshKeyInputs = z.infer<typeof sshKeyInputsSchema>;

// SshKey's example on its reference page (docs/reference/SshKey.md): a public key as
// `ssh-keygen -t ed25519` writes it (its private key was thrown away).
withExample(sshKeyInputsSchema, {
  inputs: {
    publicKey:
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICYm65vlEsPoo1d4EwEzvfSQkaLF76XNMJFTduZXcjVa you@laptop",
  },
});

export const sshKeyOutputsSchema = sshKeyInputsSchema.extend({
  sshKeyId: z
    .number()
    .int()
    .describe("The service's id of the key: what an instance's `sshKeyIds` lists."),
  fingerprint: z
    .string()
    .describe("The key's fingerprint, `SHA256:...`, as `ssh-keygen -l` prints it."),
});
export type SshKeyOutputs = z.infer<typeof sshKeyOutputsSchema>;

// ---- Diff rules ---------------------------------------------------------------------------

/** A new key changes in place (PUT /api/v0/ssh/{id}/ keeps the id): nothing replaces. */
export function diffSshKey(olds: SshKeyOutputs, news: SshKeyInputs): pulumi.dynamic.DiffResult {
  return { changes: olds.publicKey !== news.publicKey, replaces: [] };
}

// ---- CRUD ---------------------------------------------------------------------------------

function outputsOf(key: SshKeyWire): SshKeyOutputs {
  return { publicKey: key.publicKey, sshKeyId: key.id, fingerprint: fingerprintOf(key.publicKey) };
}

/** The same key when type and key data match; the comment is only a label. */
function sameKeyData(a: string, b: string): boolean {
  const [left, right] = [parsePublicKey(a), parsePublicKey(b)];
  return left.ok && right.ok && left.type === right.type && left.keyData.equals(right.keyData);
}

export const implementation: ResourceImplementation<SshKeyInputs, SshKeyOutputs> = {
  async check(run, _olds, news) {
    const checked = checkInputs(sshKeyInputsSchema, news, { type: "SshKey" });
    return { ...checked, failures: [...(await run.configurationFailures()), ...checked.failures] };
  },

  async diff(_run, _id, olds, news) {
    return diffSshKey(olds, news);
  },

  async create(run, inputs) {
    const client = run.client;
    // The account's keys before this run created any, and those it created: after a lost create
    // reply, a key with the same data that is in neither set can only be that create's.
    const before = await run.reads.sshKeyIdsBefore();
    const createdThisRun = run.made.sshKeyIds;
    const created = await recoverLostCreate({
      create: () => client.sshKeys.create(inputs.publicKey),
      findCreated: async () =>
        onlyOne(
          (await client.sshKeys.list()).filter(
            (key) =>
              !before.has(key.id) &&
              !createdThisRun.has(key.id) &&
              sameKeyData(key.publicKey, inputs.publicKey),
          ),
        ),
    });
    createdThisRun.add(created.id);
    return { id: String(created.id), outs: outputsOf(created) };
  },

  async read(run, id, props) {
    const found = (await run.client.sshKeys.list()).find((key) => String(key.id) === id);
    if (!found) return {};
    if (!props) {
      // `pulumi import`: the key as check writes it (one line, trimmed), so the next diff agrees.
      const parsed = parsePublicKey(found.publicKey);
      const outs = outputsOf(parsed.ok ? { ...found, publicKey: parsed.text } : found);
      return { id, props: outs, inputs: { publicKey: outs.publicKey } };
    }
    const outs = outputsOf(found);
    return readResult(id, props, outs, { publicKey: outs.publicKey });
  },

  async update(run, _id, olds, news) {
    const updated = await run.client.sshKeys.update(olds.sshKeyId, news.publicKey);
    return { outs: outputsOf(updated) };
  },

  async delete(run, _id, props) {
    await deleteUnlessGone(run.client.sshKeys.delete(props.sshKeyId));
  },
};

/** The dynamic door's provider, which every state of this resource names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "ssh-key");

/** SshKey, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "SshKey",
  implementation,
  inputs: sshKeyInputsSchema,
  outputs: sshKeyOutputsSchema,
  description: "An SSH public key of the account; its sshKeyId is what Instance.sshKeyIds lists.",
  packageTypes: ["SshKeyArgs"],
  tests: { records: "sshKeys", isOnAccount: hasRecord("sshKeys", "sshKeyId") },
  badInputs: () => {
    // Put together here rather than written out: a private key block in the package would set
    // off the secret scanners of those who install it.
    const armor = (line: string) => `-----${line} OPENSSH PRIVATE KEY-----`;
    const privateKey = [
      armor("BEGIN"),
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
      armor("END"),
    ].join("\n");
    // A private key as `ssh-keygen` or Node.js writes it in PEM (PKCS #8).
    const pemPrivateKey = String(
      generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }),
    );
    return [
      {
        what: "a private key",
        args: { publicKey: privateKey },
        cases: [{ field: "publicKey", says: /publicKey: holds a private key/ }],
        secrets: privateKey.split("\n").filter((line) => line.length > 40),
      },
      {
        what: "a PEM private key",
        args: { publicKey: pemPrivateKey },
        cases: [
          { field: "publicKey", says: /publicKey: holds a private key; give the public key/ },
        ],
        secrets: pemPrivateKey.split("\n").filter((line) => line.length > 20),
      },
      {
        what: "mangled key data",
        args: { publicKey: "ssh-ed25519 not!base64 me@host" },
        cases: [
          {
            field: "publicKey",
            says: /publicKey: publicKey's key data is not a base64 ssh-ed25519 public key/,
          },
        ],
      },
      {
        what: "an unknown key type",
        args: { publicKey: "ssh-foo AAAA me@host" },
        cases: [{ field: "publicKey", says: /publicKey: .*type one of ssh-ed25519, ssh-rsa/ }],
      },
      {
        what: "a number",
        args: { publicKey: 42 },
        cases: [{ field: "publicKey", says: /publicKey: expected a string, received 42/ }],
      },
    ];
  },
  recorded: () => [
    {
      olds: {
        publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 a",
        sshKeyId: 1,
        fingerprint: "SHA256:x",
      },
    },
  ],
});

// ---- The resource -------------------------------------------------------------------------

export interface SshKeyArgs {
  /**
   * An OpenSSH public key, the one line of a `.pub` file: `<type> <base64 key data> [comment]`.
   * A private key given by mistake fails at preview without being printed.
   */
  publicKey: pulumi.Input<string>;
}

/**
 * An SSH public key registered on the account. The service adds it to every current
 * instance and to every instance created later; list its `sshKeyId` in `Instance.sshKeyIds` to
 * make an instance depend on it (a VM needs a key before it is created). A new `publicKey`
 * updates it in place, keeping the id.
 */
export class SshKey extends DynamicResource {
  declare readonly publicKey: pulumi.Output<string>;
  /** The service's id of the key. */
  declare readonly sshKeyId: pulumi.Output<number>;
  /** `SHA256:…`, as `ssh-keygen -l` prints it. */
  declare readonly fingerprint: pulumi.Output<string>;

  constructor(name: string, args: SshKeyArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/ssh-key"),
      name,
      // Keys the resource does not have too: check names them (shared/unknown-inputs.ts).
      { ...args, publicKey: args.publicKey, sshKeyId: undefined, fingerprint: undefined },
      opts,
      "SshKey",
    );
  }
}
