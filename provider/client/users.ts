import { z } from "zod";
import type { Transport } from "./transport";

/**
 * The current user. The service's body also carries the caller's API key: zod's default
 * object parsing drops every field not named here, so the key never leaves this module.
 */
export const currentUserSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  credit: z.number(),
  ssh_key: z.string().nullable().optional(),
});
export type CurrentUserWire = z.infer<typeof currentUserSchema>;

export interface CurrentUser {
  readonly id: number;
  readonly email: string;
  readonly credit: number;
  /** Whether the account has an SSH public key registered (needed before renting a VM). */
  readonly hasSshKey: boolean;
}

export class UsersApi {
  constructor(private readonly transport: Transport) {}

  /** Reads the current user; a successful call also proves the API key works. */
  async current(signal?: AbortSignal): Promise<CurrentUser> {
    const user = await this.transport.request({
      method: "GET",
      path: "/api/v0/users/current/",
      response: currentUserSchema,
      signal,
    });
    return {
      id: user.id,
      email: user.email,
      credit: user.credit,
      hasSshKey: (user.ssh_key ?? "").trim() !== "",
    };
  }
}
