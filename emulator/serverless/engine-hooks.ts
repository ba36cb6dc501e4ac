import type { FastifyInstance } from "fastify";
import { isApiPath } from "../shared/http";
import type { Clock } from "../shared/clock";
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
  clock: Clock,
): void {
  app.addHook("onRequest", async (request) => {
    if (!isApiPath(request.url)) return;
    const now = clock.nowMs();
    if (store.state.instances.some((i) => i.releaseAtMs !== null && i.releaseAtMs <= now)) {
      store.mutate((state) => engine.sweep(state, now));
    }
  });
  app.addHook("onClose", async () => {
    engine.close();
  });
}
