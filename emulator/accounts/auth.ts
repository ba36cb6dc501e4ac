import type { FastifyInstance, FastifyRequest } from "fastify";
import { ApiError, isApiPath, pathOf } from "../shared/http";
import type { Category, KeyRing } from "./key-ring";

declare module "fastify" {
  interface FastifyContextConfig {
    /** The permission a scoped key needs for this route; every /api/ route names one. */
    category?: Category;
    /** Served without a key: what the official client fetches with no Authorization header. */
    public?: boolean;
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

/** Runs after the fault hook: a gateway throttles or fails a request before it reaches auth. */
export function registerAuth(app: FastifyInstance, keys: KeyRing): void {
  app.addHook("onRequest", async (request) => {
    if (!isApiPath(request.url) || request.routeOptions.config.public === true) return;
    const key = requestKey(request);
    if (key === undefined) {
      throw new ApiError(401, "unauthorized", "Missing API key: send Authorization: Bearer <key>.");
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
}
