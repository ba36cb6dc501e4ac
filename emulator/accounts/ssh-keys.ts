import type { Instance } from "../instances/instance-state";
import type { State } from "../shared/state";
import type { SshKey, SshKeyAttachment } from "./account-state";

/** The rule behind VM creation: a key registered through /api/v0/ssh/ or the legacy user key. */
export function accountHasSshKey(state: State): boolean {
  return state.sshKeys.length > 0 || state.user.sshKey.trim() !== "";
}

/** users/current's ssh_key: the account's keys one a line, like an authorized_keys file. */
export function accountSshKeyText(state: State): string {
  const legacy = state.user.sshKey.trim();
  return [...(legacy === "" ? [] : [legacy]), ...state.sshKeys.map((k) => k.publicKey)].join("\n");
}

const KEY_TYPES = new Set([
  "ssh-ed25519",
  "ssh-rsa",
  "ssh-dss",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "sk-ssh-ed25519@openssh.com",
  "sk-ecdsa-sha2-nistp256@openssh.com",
]);
/** The limit the description gives a user's ssh_key. */
export const MAX_PUBLIC_KEY_CHARS = 4096;

export interface PublicKey {
  readonly type: string;
  readonly blob: string;
  /** The key as stored: trimmed, in OpenSSH's one-line form. */
  readonly text: string;
}

/**
 * Checks OpenSSH's public-key form, `<type> <base64 blob> [comment]`, where the blob starts
 * with its own type name: a pasted private key or a mangled line fails here instead of locking
 * the user out of an instance later. Answers why not, never quoting the input.
 */
export function parsePublicKey(input: string): PublicKey | string {
  const text = input.trim();
  if (text.includes("PRIVATE KEY")) {
    return "ssh_key is a private key; give the public one (the .pub file)";
  }
  if (text.length > MAX_PUBLIC_KEY_CHARS) {
    return `ssh_key is longer than ${String(MAX_PUBLIC_KEY_CHARS)} characters`;
  }
  if (/[\r\n]/.test(text)) return "ssh_key must be a single line";
  const [type = "", blob = ""] = text.split(/\s+/);
  if (!KEY_TYPES.has(type)) {
    return `ssh_key must start with a key type: ${[...KEY_TYPES].join(", ")}`;
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(blob) || !blobNamesType(blob, type)) {
    return `ssh_key's key data is not a base64 ${type} public key`;
  }
  return { type, blob, text };
}

function blobNamesType(blob: string, type: string): boolean {
  const bytes = Buffer.from(blob, "base64");
  if (bytes.length < 4 + type.length) return false;
  return (
    bytes.readUInt32BE(0) === type.length && bytes.toString("latin1", 4, 4 + type.length) === type
  );
}

/** Two texts are the same key when type and key data match; the comment is only a label. */
export function sameKey(a: string, b: PublicKey): boolean {
  const parsed = parsePublicKey(a);
  return typeof parsed !== "string" && parsed.type === b.type && parsed.blob === b.blob;
}

/** The comment at the end of a public key, which the service shows as the key's name. */
export function keyComment(publicKey: string): string | null {
  const comment = publicKey.trim().split(/\s+/).slice(2).join(" ");
  return comment === "" ? null : comment;
}

/** Drops records of destroyed instances, which the instance routes do not know about. */
function prune(state: State): void {
  const live = new Set(state.instances.map((i) => i.id));
  state.sshKeyAttachments = state.sshKeyAttachments.filter((a) => live.has(a.instanceId));
}

/** The instance's record, made on first use from the keys that existed when it was created. */
function recordOf(state: State, instance: Instance): SshKeyAttachment {
  prune(state);
  let record = state.sshKeyAttachments.find((a) => a.instanceId === instance.id);
  if (!record) {
    const before = state.sshKeys.filter((k) => k.createdAtMs <= instance.createdAtMs);
    record = { instanceId: instance.id, sshKeyIds: before.map((k) => k.id) };
    state.sshKeyAttachments.push(record);
  }
  return record;
}

export function keysOnInstance(state: State, instance: Instance): SshKey[] {
  const ids = new Set(recordOf(state, instance).sshKeyIds);
  return state.sshKeys.filter((k) => ids.has(k.id));
}

export function attachKey(state: State, instance: Instance, key: SshKey): void {
  const record = recordOf(state, instance);
  if (!record.sshKeyIds.includes(key.id)) record.sshKeyIds.push(key.id);
}

/** false when the key was not on the instance. */
export function detachKey(state: State, instance: Instance, keyId: number): boolean {
  const record = recordOf(state, instance);
  const before = record.sshKeyIds.length;
  record.sshKeyIds = record.sshKeyIds.filter((id) => id !== keyId);
  return record.sshKeyIds.length < before;
}

/** Adds a key to the account only: instances created from now on carry it. */
export function storeKey(state: State, key: PublicKey): SshKey {
  // Current instances get their records first: one created in this same millisecond would
  // otherwise count the new key among those from before it.
  prune(state);
  for (const instance of state.instances) recordOf(state, instance);
  const stored: SshKey = { id: state.nextSshKeyId++, publicKey: key.text, createdAtMs: Date.now() };
  state.sshKeys.push(stored);
  return stored;
}

/** Registers a key as POST /api/v0/ssh/ does: on the account and on every current instance. */
export function registerKey(state: State, key: PublicKey): SshKey {
  const stored = storeKey(state, key);
  for (const instance of state.instances) attachKey(state, instance, stored);
  return stored;
}

export function deleteKey(state: State, key: SshKey): void {
  state.sshKeys = state.sshKeys.filter((k) => k !== key);
  for (const record of state.sshKeyAttachments) {
    record.sshKeyIds = record.sshKeyIds.filter((id) => id !== key.id);
  }
}
