import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check, pathId } from "../shared/http";
import { requestKey } from "./auth";
import { type ApiKeyEntry, CategorySchema, type Permissions } from "./key-ring";

// The spec's shape, {api: {<category>: {<constraints>}}}, with the service's category names.
const ScopeSchema = z.object({
  api: z.partialRecord(CategorySchema, z.record(z.string(), z.unknown())),
});
const CreateApiKeySchema = z.object({
  name: z.string().nullish(),
  permissions: z.unknown().optional(),
  key_params: z.unknown().optional(),
});

function scopeOf(permissions: unknown): Permissions {
  if (permissions === undefined || permissions === null) {
    throw new ApiError(400, "missing_permissions", "permissions is required: {api: {...}}.");
  }
  const scope = check(ScopeSchema, permissions, "invalid_permissions");
  return { api: { ...scope.api } };
}

/** A key can grant only what it holds: a scoped key cannot mint a wider one. */
function withinCaller(caller: ApiKeyEntry | undefined, wanted: Permissions): boolean {
  if (caller === undefined) return false;
  const held = caller.permissions;
  if (held === null) return true;
  return Object.keys(wanted.api).every((category) => Object.hasOwn(held.api, category));
}

/** Never the key itself: the service shows it once, in the create answer. */
function describeApiKey(entry: ApiKeyEntry, userId: number) {
  return {
    id: entry.id,
    user_id: userId,
    name: entry.name,
    // The description gives rights as a string: the JSON of the scope; null for full access.
    rights: entry.permissions === null ? null : JSON.stringify(entry.permissions),
    created_at: new Date(entry.createdAtMs).toISOString(),
    deleted_at: null,
    // The OpenAPI types team_id as an integer and team_name as a string: a key of a personal
    // account, which has no team, leaves both out rather than send null.
  };
}

export function registerApiKeyRoutes(app: FastifyInstance, { keys, store }: EmulatorContext) {
  const read = { category: "user_read" } as const;
  const write = { category: "user_write" } as const;

  app.get("/api/v0/auth/apikeys/", { config: read }, async () => {
    return { apikeys: keys.list().map((entry) => describeApiKey(entry, store.state.user.id)) };
  });

  app.post("/api/v0/auth/apikeys/", { config: write }, async (request) => {
    // The OpenAPI documents invalid_permissions and missing_permissions, no other 400.
    const input = check(CreateApiKeySchema, request.body ?? {}, "invalid_permissions");
    const permissions = scopeOf(input.permissions);
    const caller = keys.entryOf(requestKey(request));
    if (!withinCaller(caller, permissions)) {
      throw new ApiError(
        403,
        "forbidden",
        "This API key cannot create a key with permissions it does not have itself.",
      );
    }
    const created = keys.create(input.name ?? null, permissions);
    return { id: created.id, key: created.key, permissions };
  });

  // The description's success body is a bare JSON string.
  app.delete("/api/v0/auth/apikeys/:id/", { config: write }, async (request, reply) => {
    const id = pathId(request.params);
    if (id === undefined || !keys.revokeById(id)) {
      throw new ApiError(404, "no_such_api_key", "API Key not found.");
    }
    return reply.type("application/json").send(JSON.stringify("Successfully Deleted API Key"));
  });
}
