import { pbkdf2, randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { ConfigMap } from "@pulumi/pulumi/automation";
import { sealedSecret } from "./secret-cipher";
import { keeperDataKey, keeperSecretsProvider } from "./secrets-keeper";

const pbkdf2Async = promisify(pbkdf2);

// A stack's configuration file, written before `pulumi stack init` as `pulumi config set-all`
// would leave it: `stack init` keeps the file's secrets provider, and the CLI call that sets the
// configuration (its start and its key derivation, about 0.6 s of CPU per stack) is not made.
// A value is sealed with the stack's key (secret-cipher.ts), for both secrets providers the tests
// use:
// - the passphrase's: the key is PBKDF2-SHA256 of the passphrase and the salt (1,000,000 rounds,
//   32 bytes), and the salt line `v1:<salt>:` followed by the encryption of "pulumi", which the
//   CLI decrypts to check the passphrase. The key is derived once per test process.
// - the run's secrets keeper (secrets-keeper.ts): a data key of the process's, and its
//   encryption by the keeper beside the provider's URL.

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

/** How a stack's secrets are encrypted. */
export type StackSecrets =
  | { readonly passphrase: string }
  /** The run's secrets keeper at this URL (secrets-keeper.ts). */
  | { readonly keeperUrl: string };

/** The key secrets are encrypted with, and the lines that tell the CLI how to find it. */
async function secretsHeader(secrets: StackSecrets): Promise<{ key: Buffer; header: string }> {
  // JSON strings are YAML's double-quoted scalars.
  if ("keeperUrl" in secrets) {
    const { key, encrypted: encryptedKey } = await keeperDataKey(secrets.keeperUrl);
    const header =
      `secretsprovider: ${JSON.stringify(keeperSecretsProvider)}\n` +
      `encryptedkey: ${JSON.stringify(Buffer.from(encryptedKey).toString("base64"))}\n`;
    return { key, header };
  }
  const { salt, key } = await stackKey(secrets.passphrase);
  const saltLine = `v1:${salt.toString("base64")}:${sealedSecret(key, "pulumi")}`;
  return { key, header: `encryptionsalt: ${JSON.stringify(saltLine)}\n` };
}

/**
 * Writes `Pulumi.<stack>.yaml` in `workDir` holding `config`, secrets encrypted as `secrets`
 * says. False, writing nothing, when a key has no namespace (the CLI would add the project's):
 * the caller sets such configuration through the CLI.
 */
export async function writeStackConfig(
  workDir: string,
  stackName: string,
  config: ConfigMap,
  secrets: StackSecrets,
): Promise<boolean> {
  const entries = Object.entries(config);
  if (entries.some(([name]) => !name.includes(":"))) return false;
  const { key, header } = await secretsHeader(secrets);
  const lines = entries.map(([name, { value, secret }]) =>
    secret === true
      ? `  ${JSON.stringify(name)}:\n    secure: ${JSON.stringify(sealedSecret(key, value))}`
      : `  ${JSON.stringify(name)}: ${JSON.stringify(value)}`,
  );
  const text = `${header}config:\n${lines.join("\n")}\n`;
  await writeFile(path.join(workDir, `Pulumi.${stackName}.yaml`), text);
  return true;
}
