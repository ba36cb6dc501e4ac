import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { openedSecret, sealedSecret } from "./secret-cipher";

// The end-to-end stacks' secrets provider: Pulumi's own `hashivault://` provider (the CLI's
// cloud secrets manager: a random data key per stack, kept in `Pulumi.<stack>.yaml` encrypted
// by the key service, and AES-256-GCM for every secret with it), against a stand-in of Vault's
// transit engine that the run starts (test/support/e2e-global-setup.ts). The passphrase provider
// derives its key anew in every CLI call (1,000,000 rounds of PBKDF2, about 0.3 s of CPU), and
// the end-to-end tests make some 550 of them; with this provider a call asks the stand-in to
// decrypt one data key instead. Secrets are still encrypted in every state and configuration
// file the CLI writes. The documentation's commands keep the passphrase, as its readers do, and
// so does the bench (the engine's floor it measures is a user's).

/** The secrets provider URL the stacks take. */
export const keeperSecretsProvider = "hashivault://gpucloud-tests";

const keeperUrlVariable = "GPUCLOUD_TEST_KEEPER_URL";
const keeperToken = "gpucloud-tests";

/** The run's stand-in, when the run started one (Jest's end-to-end project does). */
export function runKeeperUrl(): string | undefined {
  return process.env[keeperUrlVariable] || undefined;
}

/** What the CLI needs in its environment to reach the stand-in (gocloud's Vault variables). */
export const keeperEnv = (url: string): Record<string, string> => ({
  VAULT_SERVER_URL: url,
  VAULT_SERVER_TOKEN: keeperToken,
});

export interface SecretsKeeper {
  close(): Promise<void>;
}

const transitBody = z.looseObject({
  plaintext: z.string().optional(),
  ciphertext: z.string().optional(),
});

/**
 * Starts the stand-in: Vault's `PUT /v1/transit/{encrypt,decrypt}/<key>` (the two requests
 * gocloud's keeper makes), with a key of its own for the run, and sets the run's environment
 * so that the test processes started after it find it.
 */
export async function startSecretsKeeper(): Promise<SecretsKeeper> {
  const runKey = randomBytes(32);
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const reply = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" });
        response.end(JSON.stringify(body));
      };
      const operation = /^\/v1\/transit\/(encrypt|decrypt)\/[\w-]+$/.exec(request.url ?? "")?.[1];
      if (request.headers["x-vault-token"] !== keeperToken) {
        reply(403, { errors: ["permission denied"] });
        return;
      }
      try {
        const body = transitBody.parse(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        if (operation === "encrypt" && body.plaintext !== undefined) {
          const plaintext = Buffer.from(body.plaintext, "base64");
          reply(200, { data: { ciphertext: `vault:${sealedSecret(runKey, plaintext)}` } });
        } else if (operation === "decrypt" && body.ciphertext?.startsWith("vault:")) {
          const plaintext = openedSecret(runKey, body.ciphertext.slice("vault:".length));
          reply(200, { data: { plaintext: plaintext.toString("base64") } });
        } else {
          reply(404, { errors: [`no route ${request.method ?? ""} ${request.url ?? ""}`] });
        }
      } catch (error) {
        reply(400, { errors: [String(error)] });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env[keeperUrlVariable] = url;
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        // Kept-alive connections of test processes still running would hold the close.
        server.closeAllConnections();
      }),
  };
}

export interface DataKey {
  readonly key: Buffer;
  /** The key as the stand-in encrypted it: `encryptedkey` in `Pulumi.<stack>.yaml` is its base64. */
  readonly encrypted: string;
}

const dataKeys = new Map<string, Promise<DataKey>>();

/** This process's data key for stacks whose configuration it writes, encrypted by the stand-in. */
export function keeperDataKey(url: string): Promise<DataKey> {
  let made = dataKeys.get(url);
  if (made === undefined) {
    made = encryptedDataKey(url);
    dataKeys.set(url, made);
  }
  return made;
}

async function encryptedDataKey(url: string): Promise<DataKey> {
  const key = randomBytes(32);
  const { ciphertext } = await transit(url, "encrypt", { plaintext: key.toString("base64") });
  if (ciphertext === undefined) throw new Error("the secrets keeper answered no ciphertext");
  return { key, encrypted: ciphertext };
}

/**
 * A stack's data key, from the secrets provider's state a checkpoint records (`encryptedkey`:
 * the base64 of the keeper's ciphertext), decrypted by the run's keeper.
 */
export async function keeperDecryptedKey(url: string, encryptedKey: string): Promise<Buffer> {
  const ciphertext = Buffer.from(encryptedKey, "base64").toString("utf8");
  const { plaintext } = await transit(url, "decrypt", { ciphertext });
  if (plaintext === undefined) throw new Error("the secrets keeper answered no plaintext");
  return Buffer.from(plaintext, "base64");
}

/** One request to the keeper's transit engine, as gocloud's keeper makes it. */
async function transit(
  url: string,
  operation: "encrypt" | "decrypt",
  body: z.input<typeof transitBody>,
): Promise<z.output<typeof transitBody>> {
  const response = await fetch(`${url}/v1/transit/${operation}/gpucloud-tests`, {
    method: "PUT",
    headers: { "x-vault-token": keeperToken, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`the secrets keeper answered ${response.status}`);
  return z.object({ data: transitBody }).parse(await response.json()).data;
}
