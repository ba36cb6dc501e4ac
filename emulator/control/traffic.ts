import type { FastifyInstance } from "fastify";
import { setTimeout as delay } from "node:timers/promises";
import { requestKey } from "../accounts/auth";
import { errorBody, isApiPath } from "../shared/http";
import type { FaultInjector } from "./faults";
import type { RateLimiter } from "./rate-limits";
import type { RequestLog } from "./request-log";

/**
 * Logs /api/ requests, injects faults and applies rate limits; registered first so that faults
 * and limits precede auth and state. Limits are per key: a request without one is left to auth,
 * which answers it 401 whatever the rate.
 */
export function registerTraffic(
  app: FastifyInstance,
  log: RequestLog,
  faults: FaultInjector,
  limits: RateLimiter,
): void {
  app.addHook("onRequest", async (request, reply) => {
    if (!isApiPath(request.url)) return;
    const entry = log.start(request.method, request.url, request);
    if (faults.latencyMs > 0) await delay(faults.latencyMs);
    const fault = faults.decide(request.method, request.url);
    if (fault === undefined) {
      const key = requestKey(request);
      // No key, nothing to limit by: auth answers 401, where one bucket shared by every
      // key-less request would answer some of them 429.
      if (key === undefined) return;
      const limited = limits.take(request.method, request.routeOptions.url ?? "", key, Date.now());
      // No Retry-After: the service sends none (its rate-limit page says so).
      if (limited !== undefined)
        return reply.code(429).type(limited.contentType).send(limited.body);
      return;
    }
    entry.fault = fault.kind;
    switch (fault.kind) {
      case "too_many_requests":
        // As the service answers (no Retry-After), in its plain and JSON forms by turns; no
        // threshold, which would be a limit of an endpoint the fault has nothing to do with.
        reply.code(429);
        return fault.plainText
          ? reply.type("text/plain; charset=utf-8").send("API requests too frequent")
          : reply.send({ detail: "API requests too frequent" });
      case "server_error":
        return reply
          .code(fault.status)
          .send(errorBody("server_error", "Injected server error (emulator fault)."));
      case "drop":
        entry.status = 0;
        reply.hijack();
        request.raw.socket.destroy();
        return reply;
      case "drop_after_handling":
        return;
    }
  });

  // onSend runs once the handler has changed state, which is the point of dropping after it.
  app.addHook("onSend", async (request) => {
    const entry = log.entryOf(request);
    if (entry?.fault !== "drop_after_handling") return;
    entry.status = 0;
    request.raw.socket.destroy();
  });

  app.addHook("onResponse", async (request, reply) => {
    const entry = log.entryOf(request);
    if (entry !== undefined && entry.status === null) entry.status = reply.statusCode;
  });
}
