import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check, errorBody, pathId } from "../shared/http";

// The official client sends tail as text (`--tail 100` → "100") and daemon_logs as "true".
const LogRequestSchema = z.object({
  tail: z
    .union([z.int().nonnegative(), z.string().regex(/^[0-9]+$/, "must be a number of lines")])
    .nullish()
    .transform((tail) => (tail === null || tail === undefined ? undefined : Number(tail))),
  filter: z.string().nullish(),
  daemon_logs: z.union([z.enum(["true", "false"]), z.boolean()]).nullish(),
});

const SnapshotFileSchema = z.object({
  file: z.string().regex(/^[0-9a-f]{32}\.log$/),
});

/**
 * The logs endpoint, as the OpenAPI describes it (`vastai show logs`): the logs are put where
 * a URL serves them and the answer gives that URL. The service's is an S3 URL, readable without
 * a key; the emulator's is under /_emulator/logs/, on the address the request came to.
 */
export function registerLogRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, logs, instanceKeys } = ctx;

  app.put(
    "/api/v0/instances/request_logs/:id/",
    { config: { category: "instance_read" } },
    async (request) => {
      const id = pathId(request.params);
      const instance = store.state.instances.find((i) => i.id === id);
      // The OpenAPI's 404 for this operation.
      if (id === undefined || !instance) {
        throw new ApiError(404, "invalid_id", "Invalid instance id.");
      }
      const input = check(LogRequestSchema, request.body ?? {}, "invalid_args");
      const token = logs.snapshot(
        instance.id,
        {
          tail: input.tail,
          filter: input.filter ?? undefined,
          daemon: input.daemon_logs === "true" || input.daemon_logs === true,
        },
        instanceKeys.existingKeyOf(instance.id),
      );
      return {
        success: true,
        result_url: `${request.protocol}://${request.host}/_emulator/logs/${token}.log`,
        msg: "Logs are ready at result_url.",
      };
    },
  );

  // The "S3 object": plain text, no key, as the service's upload is.
  app.get("/_emulator/logs/:file", async (request, reply) => {
    const parsed = SnapshotFileSchema.safeParse(request.params);
    const text = parsed.success ? logs.snapshotText(parsed.data.file.slice(0, 32)) : undefined;
    if (text === undefined) {
      return reply.code(404).send(errorBody("not_found", "No such log upload."));
    }
    return reply.type("text/plain; charset=utf-8").send(text);
  });
}
