import { z } from "zod";
import { SharedList } from "./shared-list";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

/** Masked values: a string of asterisks, or null when the value is empty. */
export const maskedValueSchema = z.string().nullable();
const listSecretsSchema = z.object({
  success: z.boolean(),
  secrets: z.record(z.string(), maskedValueSchema),
});
const secretBodySchema = z.object({ key: z.string(), value: z.string() });
const secretKeyBodySchema = z.object({ key: z.string() });
const messageSchema = z.object({ success: z.boolean(), msg: z.string().optional() });

/** Key name (upper-case, as the service stores it) → masked value. */
export type MaskedSecrets = Readonly<Record<string, string | null>>;

export class SecretsApi {
  private readonly shared: SharedList<MaskedSecrets>;

  constructor(
    private readonly transport: Transport,
    /** How long a list result answers later reads; any write through this client ends it. */
    sharedListMaxAgeMs = 2_000,
  ) {
    this.shared = new SharedList(
      (signal) =>
        this.transport
          .request({ method: "GET", path: "/api/v0/secrets/", response: listSecretsSchema, signal })
          .then((body) => body.secrets),
      sharedListMaxAgeMs,
    );
  }

  /**
   * Lists the account's secrets, masked. Reads within `sharedListMaxAgeMs` of a list share its
   * result (a write through this client starts afresh), so a refresh of N secrets costs about
   * one request, not N.
   */
  list(signal?: AbortSignal): Promise<MaskedSecrets> {
    return this.shared.read(signal);
  }

  async create(key: string, value: string, signal?: AbortSignal): Promise<void> {
    await this.shared.write(() =>
      this.transport.request({
        method: "POST",
        path: "/api/v0/secrets/",
        body: { key, value },
        bodySchema: secretBodySchema,
        response: messageSchema,
        creates: true,
        signal,
      }),
    );
  }

  async update(key: string, value: string, signal?: AbortSignal): Promise<void> {
    await this.shared.write(() =>
      this.transport.request({
        method: "PUT",
        path: "/api/v0/secrets/",
        body: { key, value },
        bodySchema: secretBodySchema,
        response: messageSchema,
        signal,
      }),
    );
  }

  async delete(key: string, signal?: AbortSignal): Promise<void> {
    await this.shared.write(() =>
      this.transport.request({
        method: "DELETE",
        path: "/api/v0/secrets/",
        body: { key },
        bodySchema: secretKeyBodySchema,
        response: messageSchema,
        signal,
      }),
    );
  }
}

export const area: ClientArea = {
  property: "secrets",
  Api: SecretsApi,
  documents: {
    "DELETE /api/v0/secrets/": { by: documentedBy.all, body: ["key"] },
    "GET /api/v0/secrets/": { by: documentedBy.all },
    "POST /api/v0/secrets/": { by: documentedBy.all, body: ["key", "value"] },
    "PUT /api/v0/secrets/": { by: documentedBy.all, body: ["key", "value"] },
  },
};
