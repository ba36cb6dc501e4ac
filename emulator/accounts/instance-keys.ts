import { randomBytes } from "node:crypto";

/**
 * Per-instance keys: the service gives every instance its own key, returned once by the create
 * (`instance_api_key`) and injected into the container as `CONTAINER_API_KEY`. Such a key is
 * not an account key: it is never listed with the account's keys, and it may only show, start,
 * stop and destroy its own instance (accounts/auth.ts holds it to that). It goes with its
 * instance.
 *
 * Like the KeyRing, this lives in memory only: a state file must not become a store of
 * credentials. A restarted emulator knows none of the keys it gave before; an instance it loads
 * gets a new one when it needs one (its onstart is run), which only that onstart sees.
 */
export class InstanceKeys {
  // ES private: inspecting or serialising the object never shows a key.
  readonly #byKey = new Map<string, number>();
  readonly #byInstance = new Map<number, string>();

  /** The instance's key, made (64 hex digits, as the service's keys) the first time it is asked for. */
  keyOf(instanceId: number): string {
    const existing = this.#byInstance.get(instanceId);
    if (existing !== undefined) return existing;
    const key = randomBytes(32).toString("hex");
    this.#byKey.set(key, instanceId);
    this.#byInstance.set(instanceId, key);
    return key;
  }

  /** The instance a key belongs to; undefined for any other key. */
  instanceOf(key: string): number | undefined {
    return this.#byKey.get(key);
  }

  /** The key of an instance that has one, without making one. */
  existingKeyOf(instanceId: number): string | undefined {
    return this.#byInstance.get(instanceId);
  }

  /** Keys of instances that are gone stop working: only those of `living` ids stay. */
  retain(living: ReadonlySet<number>): void {
    for (const [instanceId, key] of this.#byInstance) {
      if (living.has(instanceId)) continue;
      this.#byInstance.delete(instanceId);
      this.#byKey.delete(key);
    }
  }
}
