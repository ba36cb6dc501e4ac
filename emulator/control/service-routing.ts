import type { FastifyInstance, FastifyRequest, RouteOptions } from "fastify";
import { errorBody, isApiPath, pathOf } from "../shared/http";
import { areas } from "../areas";
import type { Documentation } from "../shared/emulator-area";
import type { RequestLog } from "./request-log";

/**
 * Every /api/ route the emulator registers, by method and path as registered (HEAD follows GET),
 * with the document that gives it to the service: each area's own (`<area>/area.ts`). A route
 * missing here stops the emulator at start, so that none is added unclassified.
 */
export const SERVICE_ROUTES: Readonly<Record<string, Documentation>> = Object.fromEntries(
  areas.flatMap((area) => Object.entries(area.documented)),
);

/**
 * Routes the emulator answers that no document gives the service, with why they are kept:
 * served by default, refused by `--strict`.
 */
export const LENIENT_ROUTES: Readonly<Record<string, string>> = Object.fromEntries(
  areas.flatMap((area) => Object.entries(area.lenient ?? {})),
);

interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly documented: boolean;
}

function patternOf(url: string): RegExp {
  const escaped = url
    .replace(/\/+$/, "")
    .split("/")
    .map((part) => (part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  // The service answers its paths with and without the trailing slash.
  return new RegExp(`^${escaped}/?$`);
}

function methodsOf(route: RouteOptions): string[] {
  return (Array.isArray(route.method) ? route.method : [route.method]).map(String);
}

/** Whether the service has this method at this route: HEAD wherever it has GET. */
function documentationOf(method: string, url: string): "documented" | "lenient" | undefined {
  const key = `${method === "HEAD" ? "GET" : method} ${url}`;
  if (Object.hasOwn(SERVICE_ROUTES, key)) return "documented";
  return Object.hasOwn(LENIENT_ROUTES, key) ? "lenient" : undefined;
}

/**
 * Routing as the service's router answers it: an /api/ path it has with another method is 405,
 * one it lacks 404. Every request outside the documented operations is marked in the request
 * log; with `strict`, the lenient routes are refused too. Registered before the routes.
 */
export function registerServiceRouting(
  app: FastifyInstance,
  requests: RequestLog,
  strict: boolean,
): void {
  const routes: Route[] = [];
  app.addHook("onRoute", (route) => {
    if (!isApiPath(route.url)) return;
    for (const method of methodsOf(route)) {
      const documentation = documentationOf(method, route.url);
      if (documentation === undefined) {
        throw new Error(
          `emulator route ${method} ${route.url} is neither in SERVICE_ROUTES nor LENIENT_ROUTES`,
        );
      }
      routes.push({
        method,
        pattern: patternOf(route.url),
        documented: documentation === "documented",
      });
    }
  });

  const allowedAt = (path: string): string[] => [
    ...new Set(
      routes
        .filter((route) => route.documented && route.pattern.test(path))
        .map((route) => route.method),
    ),
  ];

  const refuse = (request: FastifyRequest, reply: import("fastify").FastifyReply) => {
    const path = pathOf(request.url);
    const allowed = allowedAt(path);
    if (allowed.length === 0) {
      return reply.code(404).send(errorBody("not_found", `No route for ${request.method} ${path}`));
    }
    return reply
      .code(405)
      .header("allow", allowed.join(", "))
      .send(
        errorBody(
          "method_not_allowed",
          `${request.method} is not allowed for ${path}; the service answers ${allowed.join(", ")}`,
        ),
      );
  };

  // After auth, as the 404 of an unknown path comes after it.
  app.addHook("preHandler", async (request, reply) => {
    if (!isApiPath(request.url)) return;
    const url = request.routeOptions.url;
    if (url === undefined) return;
    if (documentationOf(request.method, url) === "documented") return;
    requests.markUndocumented(request);
    if (strict) return refuse(request, reply);
  });

  app.setNotFoundHandler((request, reply) => {
    if (isApiPath(request.url)) requests.markUndocumented(request);
    return refuse(request, reply);
  });
}
