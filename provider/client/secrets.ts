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
  // A refresh reads every secret at once; concurrent reads share one list request.
  private inFlight: Promise<MaskedSecrets> | undefined;

  constructor(
    private readonly transport: Transport,
    /** How long a list waits for other readers to join before it is sent. */
    private readonly coalesceWindowMs = 5,
  ) {}

  /**
   * Lists the account's secrets, masked. Calls made while a list waits to be sent share its
   * result, so a refresh of N secrets costs one request, not N.
   */
  list(signal?: AbortSignal): Promise<MaskedSecrets> {
    // A caller's signal must cancel its own list only, so a list with a signal is not shared.
    if (signal) return this.fetchList(signal);
    if (this.inFlight) return this.inFlight;
    const pending = new Promise<void>((resolve) => setTimeout(resolve, this.coalesceWindowMs)).then(
      () => {
        // Only calls made before the request is sent may join it: a later call must see the
        // writes that completed before it was made.
        if (this.inFlight === pending) this.inFlight = undefined;
        return this.fetchList(undefined);
      },
    );
    this.inFlight = pending;
    return pending;
  }

  private async fetchList(signal: AbortSignal | undefined): Promise<MaskedSecrets> {
    const body = await this.transport.request({
      method: "GET",
      path: "/api/v0/secrets/",
      response: listSecretsSchema,
      signal,
    });
    return body.secrets;
  }

  async create(key: string, value: string, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "POST",
      path: "/api/v0/secrets/",
      body: { key, value },
      response: messageSchema,
      creates: true,
      signal,
    });
  }

  async update(key: string, value: string, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "PUT",
      path: "/api/v0/secrets/",
      body: { key, value },
      response: messageSchema,
      signal,
    });
  }

  async delete(key: string, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: "/api/v0/secrets/",
      body: { key },
      response: messageSchema,
      signal,
    });
  }
}
