import { z } from "zod";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

/**
 * The current user. The service's body also carries the caller's API key (`api_key`) and a
 * server id (`sid`): zod's default object parsing drops every field not named here, so neither
 * ever leaves this module. Nor does the SSH key material: only whether there is one.
 */
export const currentUserSchema = z
  .object({
    id: z.number().int(),
    email: z.string(),
    credit: z.number(),
    balance: z.number().nullable().optional(),
    key_id: z.number().int().nullable().optional(),
    ssh_key: z.string().nullable().optional(),
  })
  .transform((user) => ({
    id: user.id,
    email: user.email,
    credit: user.credit,
    /** What the account owes, as the service reports it (null when it does not). */
    balance: user.balance ?? null,
    /** The id of the API key in use (as `apiKeys.list()` shows it), never the key itself. */
    keyId: user.key_id ?? null,
    /** Whether the account has an SSH public key registered (needed before renting a VM). */
    hasSshKey: (user.ssh_key ?? "").trim() !== "",
  }));
export type CurrentUser = z.output<typeof currentUserSchema>;

export class UsersApi {
  constructor(private readonly transport: Transport) {}

  /** Reads the current user; a successful call also proves the API key works. */
  current(signal?: AbortSignal): Promise<CurrentUser> {
    return this.transport.request({
      method: "GET",
      path: "/api/v0/users/current/",
      response: currentUserSchema,
      signal,
    });
  }
}

export const area: ClientArea = {
  property: "users",
  Api: UsersApi,
  documents: {
    "GET /api/v0/users/current/": { by: documentedBy.all, query: ["owner"] },
  },
};
