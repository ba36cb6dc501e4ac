import { randomBytes } from "node:crypto";
import { z } from "zod";

/** The service's permission categories; the emulator's routes use five of them. */
export const CategorySchema = z.enum([
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
]);
export type Category = z.infer<typeof CategorySchema>;

/** The spec's scoped-key shape: a category present under api is granted, whatever its constraints. */
export const PermissionsSchema = z.object({
  api: z.record(z.string(), z.record(z.string(), z.unknown())),
});
export type Permissions = z.infer<typeof PermissionsSchema>;

export interface ApiKeyEntry {
  readonly id: number;
  readonly key: string;
  name: string | null;
  /** null: a full-access key. */
  permissions: Permissions | null;
  readonly createdAtMs: number;
}

/**
 * The account's API keys. They live in memory only, ids and names included: a state file must
 * not turn into a store of credentials, so a restarted emulator knows only the key it was
 * started with (and those its test controls add again).
 */
export class KeyRing {
  // ES private: inspecting or serialising the ring never shows a key.
  readonly #byKey = new Map<string, ApiKeyEntry>();
  #nextId = 1;

  constructor(fullAccessKey: string) {
    this.add(fullAccessKey, undefined);
  }

  /** Adding a key that exists changes its permissions (and name, when given); its id stays. */
  add(key: string, permissions: Permissions | undefined, name: string | null = null): ApiKeyEntry {
    const existing = this.#byKey.get(key);
    if (existing) {
      existing.permissions = permissions ?? null;
      existing.name = name ?? existing.name;
      return existing;
    }
    const entry: ApiKeyEntry = {
      id: this.#nextId++,
      key,
      name,
      permissions: permissions ?? null,
      createdAtMs: Date.now(),
    };
    this.#byKey.set(key, entry);
    return entry;
  }

  /** A new key with a fresh random secret, shaped like the service's (64 hex digits). */
  create(name: string | null, permissions: Permissions): ApiKeyEntry {
    return this.add(randomBytes(32).toString("hex"), permissions, name);
  }

  revoke(key: string): boolean {
    return this.#byKey.delete(key);
  }

  revokeById(id: number): boolean {
    const entry = this.list().find((e) => e.id === id);
    return entry !== undefined && this.#byKey.delete(entry.key);
  }

  list(): ApiKeyEntry[] {
    return [...this.#byKey.values()].sort((a, b) => a.id - b.id);
  }

  entryOf(key: string | undefined): ApiKeyEntry | undefined {
    return key === undefined ? undefined : this.#byKey.get(key);
  }

  /** undefined: no such key; otherwise whether the key grants the category. */
  grants(key: string, category: Category | undefined): boolean | undefined {
    const entry = this.#byKey.get(key);
    if (entry === undefined) return undefined;
    if (category === undefined || entry.permissions === null) return true;
    return Object.hasOwn(entry.permissions.api, category);
  }
}
