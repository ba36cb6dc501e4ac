import { createCipheriv, pbkdf2, randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { ConfigMap } from "@pulumi/pulumi/automation";

const pbkdf2Async = promisify(pbkdf2);

// A stack's configuration file, written before `pulumi stack init` as `pulumi config set-all`
// would leave it: `stack init` keeps the file's salt, and the CLI call that sets the
// configuration (its start and its key derivation, about 0.6 s of CPU per stack) is not made.
// The passphrase secrets provider's format: the key is PBKDF2-SHA256 of the passphrase and the
// salt (1,000,000 rounds, 32 bytes); a value is `v1:<nonce>:<AES-256-GCM ciphertext and tag>`
// (base64), and the salt line `v1:<salt>:` followed by the encryption of "pulumi", which the CLI
// decrypts to check the passphrase. The key is derived once per test process.

interface StackKey {
  readonly salt: Buffer;
  readonly key: Buffer;
}

const keys = new Map<string, Promise<StackKey>>();

function stackKey(passphrase: string): Promise<StackKey> {
  let made = keys.get(passphrase);
  if (made === undefined) {
    const salt = randomBytes(8);
    made = pbkdf2Async(passphrase, salt, 1_000_000, 32, "sha256").then((key) => ({ salt, key }));
    keys.set(passphrase, made);
  }
  return made;
}

function encrypted(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const sealed = Buffer.concat([
    cipher.update(plaintext, "utf8"),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
}

/**
 * Writes `Pulumi.<stack>.yaml` in `workDir` holding `config`, secrets encrypted with
 * `passphrase`. False, writing nothing, when a key has no namespace (the CLI would add the
 * project's): the caller sets such configuration through the CLI.
 */
export async function writeStackConfig(
  workDir: string,
  stackName: string,
  config: ConfigMap,
  passphrase: string,
): Promise<boolean> {
  const entries = Object.entries(config);
  if (entries.some(([name]) => !name.includes(":"))) return false;
  const { salt, key } = await stackKey(passphrase);
  // JSON strings are YAML's double-quoted scalars.
  const lines = entries.map(([name, { value, secret }]) =>
    secret === true
      ? `  ${JSON.stringify(name)}:\n    secure: ${JSON.stringify(encrypted(key, value))}`
      : `  ${JSON.stringify(name)}: ${JSON.stringify(value)}`,
  );
  const saltLine = `v1:${salt.toString("base64")}:${encrypted(key, "pulumi")}`;
  const text = `encryptionsalt: ${JSON.stringify(saltLine)}\nconfig:\n${lines.join("\n")}\n`;
  await writeFile(path.join(workDir, `Pulumi.${stackName}.yaml`), text);
  return true;
}
