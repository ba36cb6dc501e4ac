import { z } from "zod";
import type { Transport } from "./transport";

/** Masked values: a string of asterisks, or null when the value is empty. */
export const maskedValueSchema = z.string().nullable();
const listSecretsSchema = z.object({
  success: z.boolean(),
  secrets: z.record(z.string(), maskedValueSchema),
});
const messageSchema = z.object({ success: z.boolean(), msg: z.string().optional() });

/** Key name (upper-case, as the service stores it) → masked value. */
export type MaskedSecrets = Readonly<Record<string, string | null>>;

export class SecretsApi {
  // A refresh reads every secret, one resource at a time, over a few hundred milliseconds:
  // those reads share one list request instead of sending one each.
  private shared: { startedAt: number; list: Promise<MaskedSecrets> } | undefined;

  constructor(
    private readonly transport: Transport,
    /** How long a list result answers later reads; any write through this client ends it. */
    private readonly sharedListMaxAgeMs = 2_000,
  ) {}

  /**
   * Lists the account's secrets, masked. Reads within `sharedListMaxAgeMs` of a list share its
   * result (a write through this client starts afresh), so a refresh of N secrets costs about
   * one request, not N.
   */
  list(signal?: AbortSignal): Promise<MaskedSecrets> {
    const now = Date.now();
    // A list with a signal neither joins nor is shared: one caller's cancellation must not
    // cancel another caller's list.
    if (!signal && this.shared && now - this.shared.startedAt <= this.sharedListMaxAgeMs) {
      return this.shared.list;
    }
    const list = this.transport
      .request({ method: "GET", path: "/api/v0/secrets/", response: listSecretsSchema, signal })
      .then((body) => body.secrets);
    if (signal) return list;
    const shared = { startedAt: now, list };
    this.shared = shared;
    // A failed list is not shared with later readers.
    list.catch(() => {
      if (this.shared === shared) this.shared = undefined;
    });
    return list;
  }

  async create(key: string, value: string, signal?: AbortSignal): Promise<void> {
    this.shared = undefined;
    try {
      await this.transport.request({
        method: "POST",
        path: "/api/v0/secrets/",
        body: { key, value },
        response: messageSchema,
        creates: true,
        signal,
      });
    } finally {
      // A list sent while the write was in flight may predate it: do not share it.
      this.shared = undefined;
    }
  }

  async update(key: string, value: string, signal?: AbortSignal): Promise<void> {
    this.shared = undefined;
    try {
      await this.transport.request({
        method: "PUT",
        path: "/api/v0/secrets/",
        body: { key, value },
        response: messageSchema,
        signal,
      });
    } finally {
      // A list sent while the write was in flight may predate it: do not share it.
      this.shared = undefined;
    }
  }

  async delete(key: string, signal?: AbortSignal): Promise<void> {
    this.shared = undefined;
    try {
      await this.transport.request({
        method: "DELETE",
        path: "/api/v0/secrets/",
        body: { key },
        response: messageSchema,
        signal,
      });
    } finally {
      // A list sent while the write was in flight may predate it: do not share it.
      this.shared = undefined;
    }
  }
}
