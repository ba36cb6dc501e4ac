import { z } from "zod";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

/**
 * A scope in the specification's shape: `{api: {<category>: {<constraints>}}}`, e.g.
 * `{api: {misc: {}, user_read: {}, instance_read: {}, instance_write: {}}}`.
 */
export const apiKeyPermissionsSchema = z.object({
  api: z.record(z.string(), z.record(z.string(), z.unknown())),
});
export type ApiKeyPermissions = z.infer<typeof apiKeyPermissionsSchema>;

const createApiKeyBodySchema = z.object({
  name: z.string().optional(),
  permissions: apiKeyPermissionsSchema,
});
export type CreateApiKeyRequest = z.infer<typeof createApiKeyBodySchema>;

/**
 * A new key. `key` is a credential, shown by the service only in this answer: keep it secret
 * (a Pulumi secret output), never log it. No error of this client ever quotes it.
 */
const createdApiKeySchema = z.object({
  id: z.number().int(),
  key: z.string().min(1),
  permissions: z.union([z.boolean(), z.record(z.string(), z.unknown())]).optional(),
});
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

/** A listed key: never the key itself. `rights` is the scope as JSON text, null for full access. */
const apiKeySchema = z.object({
  id: z.number().int(),
  user_id: z.number().int().nullable().optional(),
  name: z.string().nullable().optional(),
  rights: z.string().nullable().optional(),
  created_at: z.union([z.string(), z.number()]).nullable().optional(),
  team_id: z.number().int().nullable().optional(),
  team_name: z.string().nullable().optional(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;
const listApiKeysSchema = z.object({ apikeys: z.array(apiKeySchema) });

export class ApiKeysApi {
  constructor(private readonly transport: Transport) {}

  async list(signal?: AbortSignal): Promise<ApiKey[]> {
    const body = await this.transport.request({
      method: "GET",
      path: "/api/v0/auth/apikeys/",
      response: listApiKeysSchema,
      signal,
    });
    return body.apikeys;
  }

  /**
   * Creates a scoped key. The service lets a key grant only categories it holds itself (403
   * otherwise) and needs `user_write` to create keys at all.
   */
  async create(request: CreateApiKeyRequest, signal?: AbortSignal): Promise<CreatedApiKey> {
    return this.transport.request({
      method: "POST",
      path: "/api/v0/auth/apikeys/",
      body: request,
      bodySchema: createApiKeyBodySchema,
      response: createdApiKeySchema,
      creates: true,
      signal,
    });
  }

  /** Revokes a key: from then on it gets 401. An unknown id fails with 404. */
  async delete(id: number, signal?: AbortSignal): Promise<void> {
    // The service answers a bare JSON string ("Successfully Deleted API Key").
    await this.transport.request({
      method: "DELETE",
      path: `/api/v0/auth/apikeys/${id}/`,
      response: z.unknown(),
      signal,
    });
  }
}

export const area: ClientArea = {
  property: "apiKeys",
  Api: ApiKeysApi,
  documents: {
    "GET /api/v0/auth/apikeys/": { by: documentedBy.all },
    "POST /api/v0/auth/apikeys/": {
      by: documentedBy.all,
      body: ["key_params", "name", "permissions"],
    },
    "DELETE /api/v0/auth/apikeys/{id}/": { by: documentedBy.all },
  },
};
