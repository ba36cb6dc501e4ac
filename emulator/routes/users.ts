import type { FastifyInstance } from "fastify";
import { bearerKey } from "../auth";
import type { EmulatorContext } from "../context";

export function registerUserRoutes(app: FastifyInstance, { store }: EmulatorContext): void {
  app.get("/api/v0/users/current/", { config: { category: "user_read" } }, async (request) => {
    const { user } = store.state;
    return {
      id: user.id,
      email: user.email,
      credit: user.creditDollars,
      ssh_key: user.sshKey,
      // The real service echoes the caller's key; clients must drop it, so the emulator keeps it.
      api_key: bearerKey(request.headers.authorization),
    };
  });
}
