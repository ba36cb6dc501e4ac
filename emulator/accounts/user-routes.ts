import type { FastifyInstance } from "fastify";
import { createHash } from "node:crypto";
import type { EmulatorContext } from "../shared/context";
import { requestKey } from "./auth";
import { accountSshKeyText } from "./ssh-keys";

export function registerUserRoutes(app: FastifyInstance, { store, keys }: EmulatorContext): void {
  app.get("/api/v0/users/current/", { config: { category: "user_read" } }, async (request) => {
    const { user } = store.state;
    const key = requestKey(request);
    return {
      id: user.id,
      // The id of the key this request came with, as listed by GET /api/v0/auth/apikeys/.
      key_id: keys.entryOf(key)?.id ?? null,
      email: user.email,
      credit: user.creditDollars,
      // What is owed: the emulator bills nothing, so nothing is.
      balance: 0,
      ssh_key: accountSshKeyText(store.state),
      // A stable stand-in for the service's server id.
      sid: createHash("sha256")
        .update(`gpucloud-emulator:${String(user.id)}`)
        .digest("hex")
        .slice(0, 32),
      // The real service echoes the caller's key; clients must drop it, so the emulator keeps it.
      api_key: key,
    };
  });
}
