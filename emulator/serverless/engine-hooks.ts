import type { FastifyInstance } from "fastify";
import { isApiPath } from "../shared/http";
import type { Store } from "../shared/store";
import type { ServerlessEngine } from "./worker-engine";

/**
 * Every /api/ request sees released workers gone once their time has come (the timers do the
 * same between requests); closing the app stops the timers.
 */
export function registerServerlessEngine(
  app: FastifyInstance,
  engine: ServerlessEngine,
  store: Store,
): void {
  app.addHook("onRequest", async (request) => {
    if (!isApiPath(request.url)) return;
    const now = Date.now();
    if (store.state.instances.some((i) => i.releaseAtMs !== null && i.releaseAtMs <= now)) {
      store.mutate((state) => engine.sweep(state, now));
    }
  });
  app.addHook("onClose", async () => {
    engine.close();
  });
}
