import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

// Pulumi's symmetric secret format, which both of the tests' secrets providers use for every
// value (the passphrase's key or a stack's data key): `v1:<nonce>:<AES-256-GCM ciphertext and
// tag>`, both parts base64. The secrets keeper's stand-in seals the data keys it is given the
// same way, with its own key.

/** `plaintext` sealed with `key`, as `v1:<nonce>:<ciphertext and tag>`. */
export function sealedSecret(key: Buffer, plaintext: Buffer | string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
}

/** What {@link sealedSecret} sealed with `key`. */
export function openedSecret(key: Buffer, text: string): Buffer {
  const [version, nonce, sealed] = text.split(":");
  if (version !== "v1" || nonce === undefined || sealed === undefined) {
    throw new Error(`not a v1 secret: ${version ?? ""}`);
  }
  const raw = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]);
}
