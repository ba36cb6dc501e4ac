import type { FastifyInstance } from "fastify";
import { z } from "zod";

/** A failure with the service's error body: {success:false, error, msg}. */
/** The service's answer to a request it cannot take as given (400 invalid_args). */
export function invalidArgs(message: string): ApiError {
  return new ApiError(400, "invalid_args", message);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function errorBody(code: string, msg: string) {
  return { success: false, error: code, msg };
}

/**
 * Parses input or fails with the given error code. The service answers each kind of bad input
 * with its own code, so routes check in stages, one schema (and code) per stage.
 */
export function check<S extends z.ZodType>(schema: S, input: unknown, code: string): z.output<S> {
  const result = schema.safeParse(input, {
    error: (issue) => (issue.input === undefined ? "is required" : undefined),
  });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join(".") || "request body";
  throw new ApiError(400, code, `${field}: ${issue?.message ?? "is invalid"}`);
}

const PathIdSchema = z.object({
  id: z
    .string()
    .regex(/^[0-9]+$/)
    .transform(Number),
});

/** An id in a path that is not a number names nothing, so callers answer it as not found. */
export function pathId(params: unknown): number | undefined {
  const result = PathIdSchema.safeParse(params);
  return result.success ? result.data.id : undefined;
}

export function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

export function isApiPath(url: string): boolean {
  return url.startsWith("/api/");
}

const FASTIFY_ERROR_CODES: Record<number, string> = {
  413: "payload_too_large",
  415: "unsupported_media_type",
};

function statusOf(error: unknown): number {
  if (typeof error === "object" && error !== null && "statusCode" in error) {
    const status = error.statusCode;
    if (typeof status === "number") return status;
  }
  return 500;
}

/** JSON parsing and error bodies shaped like the service's (404s: control/service-routing.ts). */
export function installHttpBasics(app: FastifyInstance): void {
  // Clients send Content-Type: application/json on body-less DELETEs too: an empty body is no body.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") {
      done(null, undefined);
      return;
    }
    try {
      done(
        null,
        JSON.parse(text, (key, value: unknown) => (key === "__proto__" ? undefined : value)),
      );
    } catch {
      done(new ApiError(400, "invalid_json", "The request body is not valid JSON."), undefined);
    }
  });

  // The official client compares Content-Type with exactly "application/json" and ignores a
  // body sent as "application/json; charset=utf-8", which is what Fastify sends by default.
  app.addHook("onSend", async (_request, reply, payload) => {
    const type = reply.getHeader("content-type");
    if (typeof type === "string" && type.startsWith("application/json")) {
      reply.header("content-type", "application/json");
    }
    return payload;
  });

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof ApiError) {
      return reply.code(error.status).send(errorBody(error.code, error.message));
    }
    const status = statusOf(error);
    const message = error instanceof Error ? error.message : String(error);
    if (status >= 400 && status < 500) {
      return reply
        .code(status)
        .send(errorBody(FASTIFY_ERROR_CODES[status] ?? "bad_request", message));
    }
    return reply.code(500).send(errorBody("internal_error", `Emulator failure: ${message}`));
  });
}
