import type { FastifyInstance, FastifyRequest } from "fastify";
import type { RequestLog } from "../control/request-log";
import { ApiError, isApiPath, pathId, pathOf } from "../shared/http";
import type { InstanceKeys } from "./instance-keys";
import type { Category, KeyRing } from "./key-ring";

/** What an instance's own key may do at a route, on its own instance only (the path's `:id`). */
export type InstanceKeyUse = "show" | "start-stop" | "destroy";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The permission a scoped key needs for this route; every /api/ route names one. */
    category?: Category;
    /** Served without a key: what the official client fetches with no Authorization header. */
    public?: boolean;
    /** Set where an instance's own key is accepted (accounts/instance-keys.ts). */
    instanceKey?: InstanceKeyUse;
  }
}

export function bearerKey(header: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1];
}

/**
 * The request's key: its Authorization header, else an `api_key` query parameter, which the
 * older official client (vast.py) puts on every URL and is all it sends for some commands
 * (its overlay commands send no header).
 */
export function requestKey(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) return bearerKey(header);
  const query = request.url.indexOf("?");
  if (query === -1) return undefined;
  return new URLSearchParams(request.url.slice(query + 1)).get("api_key") ?? undefined;
}

/**
 * An instance's key outside what it may do. The codes are the OpenAPI's 403 examples: `forbidden`
 * (as for a scoped key lacking a permission) for an endpoint the key has no permission for at
 * all, `not_authorized` (its example for an instance that is not the caller's: "Not authorized
 * to view logs for this instance") for another instance.
 */
function checkInstanceKey(request: FastifyRequest, ownInstanceId: number): void {
  const path = pathOf(request.url);
  if (request.routeOptions.config.instanceKey === undefined) {
    throw new ApiError(
      403,
      "forbidden",
      `An instance's API key may only show, start, stop or destroy its instance, not ${request.method} ${path}`,
    );
  }
  if (pathId(request.params) !== ownInstanceId) {
    throw new ApiError(403, "not_authorized", "Not authorized for this instance.");
  }
}

/** Runs after the fault hook: a gateway throttles or fails a request before it reaches auth. */
export function registerAuth(
  app: FastifyInstance,
  keys: KeyRing,
  instanceKeys: InstanceKeys,
  requests: RequestLog,
): void {
  app.addHook("onRequest", async (request) => {
    if (!isApiPath(request.url) || request.routeOptions.config.public === true) return;
    const key = requestKey(request);
    if (key === undefined) {
      throw new ApiError(401, "unauthorized", "Missing API key: send Authorization: Bearer <key>.");
    }
    const ownInstanceId = instanceKeys.instanceOf(key);
    if (ownInstanceId !== undefined) {
      requests.markInstanceKey(request);
      checkInstanceKey(request, ownInstanceId);
      return;
    }
    const category = request.routeOptions.config.category;
    const granted = keys.grants(key, category);
    if (granted === undefined) {
      throw new ApiError(401, "unauthorized", "The API key is not valid or has been revoked.");
    }
    if (!granted && category !== undefined) {
      throw new ApiError(
        403,
        "forbidden",
        `This API key lacks the ${category} permission needed for ${request.method} ${pathOf(request.url)}`,
      );
    }
  });

  // The state route also relabels; an instance's key may start and stop only (the body is
  // parsed by now, which it was not at onRequest).
  app.addHook("preValidation", async (request) => {
    if (request.routeOptions.config.instanceKey !== "start-stop") return;
    const key = requestKey(request);
    if (key === undefined || instanceKeys.instanceOf(key) === undefined) return;
    const body = request.body;
    if (typeof body === "object" && body !== null && "label" in body) {
      throw new ApiError(
        403,
        "forbidden",
        "An instance's API key may start or stop its instance, not relabel it.",
      );
    }
  });
}
