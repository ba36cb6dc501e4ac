import type { FastifyInstance, FastifyRequest, RouteOptions } from "fastify";
import { errorBody, isApiPath, pathOf } from "../shared/http";
import type { RequestLog } from "./request-log";

/**
 * Which document says the service answers an operation the emulator serves: the service's
 * published OpenAPI description, its official command-line client (today's `vastai` package or
 * the legacy vast.py, which the service's guides still quote), or the specification where it
 * describes an operation in full. Only these are the service's; anything else the emulator
 * answers is leniency for old scripts, and `--strict` refuses it as the service's router would.
 */
export type Documentation =
  | "openapi"
  | "official client (vastai 1.9.1)"
  | "official client (vast.py 0.5.0)"
  | "specification 4.5";

/**
 * Every /api/ route the emulator registers, by method and path as registered (HEAD follows GET).
 * A route missing here stops the emulator at start, so that none is added unclassified.
 */
export const SERVICE_ROUTES: Readonly<Record<string, Documentation>> = {
  "GET /api/v0/users/current/": "openapi",
  "GET /api/v0/secrets/": "openapi",
  "POST /api/v0/secrets/": "openapi",
  "PUT /api/v0/secrets/": "openapi",
  "DELETE /api/v0/secrets/": "openapi",
  "GET /api/v0/ssh/": "openapi",
  "POST /api/v0/ssh/": "openapi",
  "PUT /api/v0/ssh/:id/": "openapi",
  "DELETE /api/v0/ssh/:id/": "openapi",
  "GET /api/v0/notification-types/": "openapi",
  "GET /api/v0/webhooks/": "openapi",
  "POST /api/v0/webhooks/": "openapi",
  "PUT /api/v0/webhooks/:id/": "openapi",
  "DELETE /api/v0/webhooks/:id/": "openapi",
  "POST /api/v0/webhooks/:id/rotate-secret/": "openapi",
  "POST /api/v0/webhooks/:id/test/": "openapi",
  "GET /api/v0/volumes/": "openapi",
  "PUT /api/v0/volumes/": "openapi",
  "DELETE /api/v0/volumes/": "openapi",
  "POST /api/v0/volumes/search/": "openapi",
  "POST /api/v0/bundles/": "openapi",
  "PUT /api/v0/asks/:id/": "openapi",
  "GET /api/v0/auth/apikeys/": "openapi",
  "POST /api/v0/auth/apikeys/": "openapi",
  "DELETE /api/v0/auth/apikeys/:id/": "openapi",
  "GET /api/v0/instances/:id/": "openapi",
  "PUT /api/v0/instances/:id/": "openapi",
  "DELETE /api/v0/instances/:id/": "openapi",
  "PUT /api/v0/instances/request_logs/:id/": "openapi",
  "PUT /api/v0/instances/bid_price/:id/": "openapi",
  "PUT /api/v0/instances/reboot/:id/": "openapi",
  "PUT /api/v0/instances/recycle/:id/": "openapi",
  "GET /api/v0/instances/:id/ssh/": "openapi",
  "POST /api/v0/instances/:id/ssh/": "openapi",
  "DELETE /api/v0/instances/:id/ssh/:sshKeyId/": "openapi",
  "GET /api/v1/instances/": "openapi",
  "PUT /api/v0/commands/copy_direct/": "openapi",
  "DELETE /api/v0/commands/copy_direct/": "openapi",
  "GET /api/v0/template/": "openapi",
  "POST /api/v0/template/": "openapi",
  "PUT /api/v0/template/": "openapi",
  "DELETE /api/v0/template/": "openapi",
  "GET /api/v0/endptjobs/": "openapi",
  "POST /api/v0/endptjobs/": "openapi",
  "PUT /api/v0/endptjobs/:id/": "openapi",
  "DELETE /api/v0/endptjobs/:id/": "openapi",
  "GET /api/v0/workergroups/": "openapi",
  "POST /api/v0/workergroups/": "openapi",
  "PUT /api/v0/workergroups/:id/": "openapi",
  "DELETE /api/v0/workergroups/:id/": "openapi",
  "GET /api/v0/charges/": "openapi",
  "GET /api/v1/invoices/": "openapi",
  // The specification describes it in full; the OpenAPI has no entry for it.
  "DELETE /api/v0/commands/rsync/": "specification 4.5",
  // The official client's, which the OpenAPI leaves out.
  "PUT /api/v0/instances/": "official client (vastai 1.9.1)",
  "DELETE /api/v0/instances/": "official client (vastai 1.9.1)",
  "GET /api/v0/instances/filters/": "official client (vastai 1.9.1)",
  "PUT /api/v0/instances/update_template/:id/": "official client (vastai 1.9.1)",
  "GET /api/v0/autojobs/": "official client (vastai 1.9.1)",
  "POST /api/v0/autojobs/": "official client (vastai 1.9.1)",
  "PUT /api/v0/autojobs/:id/": "official client (vastai 1.9.1)",
  "DELETE /api/v0/autojobs/:id/": "official client (vastai 1.9.1)",
  "GET /api/v0/overlay/": "official client (vastai 1.9.1)",
  "POST /api/v0/overlay/": "official client (vastai 1.9.1)",
  "PUT /api/v0/overlay/": "official client (vastai 1.9.1)",
  "DELETE /api/v0/overlay/": "official client (vastai 1.9.1)",
  "PUT /api/v0/network_volumes/": "official client (vastai 1.9.1)",
  "POST /api/v0/network_volumes/search/": "official client (vastai 1.9.1)",
  "GET /api/v0/gpu_names/unique/": "official client (vast.py 0.5.0)",
};

/**
 * Routes the emulator answers that no document gives the service, with why they are kept:
 * served by default, refused by `--strict`.
 */
export const LENIENT_ROUTES: Readonly<Record<string, string>> = {
  // The specification's one-line summary (4.7) says POST; the service's operation, its guides
  // and its official client use PUT. Older scripts of users may still POST.
  "POST /api/v0/asks/:id/": "the service creates instances with PUT /api/v0/asks/{id}/",
};

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
