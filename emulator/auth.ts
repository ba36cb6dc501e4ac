import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ApiError, isApiPath, pathOf } from "./http";

export const CategorySchema = z.enum(["misc", "user_read", "instance_read", "instance_write"]);
export type Category = z.infer<typeof CategorySchema>;

/** The spec's scoped-key shape: a category present under api is granted, whatever its constraints. */
export const PermissionsSchema = z.object({
  api: z.record(z.string(), z.record(z.string(), z.unknown())),
});
type Permissions = z.infer<typeof PermissionsSchema>;

declare module "fastify" {
  interface FastifyContextConfig {
    /** The permission a scoped key needs for this route; every /api/ route names one. */
    category?: Category;
  }
}

/** Keys live in memory only: a state file must not turn into a store of credentials. */
export class KeyRing {
  /** null permissions: a full-access key. */
  private readonly keys = new Map<string, Permissions | null>();

  constructor(fullAccessKey: string) {
    this.keys.set(fullAccessKey, null);
  }

  add(key: string, permissions: Permissions | undefined): void {
    this.keys.set(key, permissions ?? null);
  }

  revoke(key: string): boolean {
    return this.keys.delete(key);
  }

  /** undefined: no such key; otherwise whether the key grants the category. */
  grants(key: string, category: Category | undefined): boolean | undefined {
    if (!this.keys.has(key)) return undefined;
    const permissions = this.keys.get(key);
    if (category === undefined || permissions == null) return true;
    return Object.hasOwn(permissions.api, category);
  }
}

export function bearerKey(header: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1];
}

/** Runs after the fault hook: a gateway throttles or fails a request before it reaches auth. */
export function registerAuth(app: FastifyInstance, keys: KeyRing): void {
  app.addHook("onRequest", async (request) => {
    if (!isApiPath(request.url)) return;
    const key = bearerKey(request.headers.authorization);
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
