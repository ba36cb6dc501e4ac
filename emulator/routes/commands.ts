import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../context";
import { check } from "../http";
import { isRunning } from "../lifecycle";

const InstanceIdSchema = z.union([
  z.int().positive(),
  z
    .string()
    .regex(/^[0-9]+$/)
    .transform(Number),
]);
const CopyDirectSchema = z.object({
  client_id: z.string().nullish(),
  src_id: InstanceIdSchema,
  dst_id: InstanceIdSchema,
  src_path: z.string().min(1),
  dst_path: z.string().min(1),
});
const CancelRsyncSchema = z.object({ dst_id: InstanceIdSchema });

/** Copy failures come back as 200 with success false, as the spec shows for cancelling. */
function refusal(msg: string) {
  return { success: false, error: "invalid_args", msg };
}

export function registerCommandRoutes(app: FastifyInstance, { store }: EmulatorContext): void {
  const config = { category: "instance_write" } as const;
  const instance = (id: number) => store.state.instances.find((i) => i.id === id);

  app.put("/api/v0/commands/copy_direct/", { config }, async (request) => {
    const input = check(CopyDirectSchema, request.body, "invalid_args");
    const src = instance(input.src_id);
    const dst = instance(input.dst_id);
    if (!src) return refusal("Invalid src_id.");
    if (!dst) return refusal("Invalid dst_id.");
    const now = Date.now();
    if (!isRunning(src, now)) return refusal("Source instance is not running.");
    if (!isRunning(dst, now)) return refusal("Remote instance does not have an open port");
    store.mutate((state) => {
      // One rsync per destination: a new copy replaces the one in progress.
      state.copies = state.copies.filter((c) => c.dstInstanceId !== dst.id);
      state.copies.push({
        srcInstanceId: src.id,
        dstInstanceId: dst.id,
        srcPath: input.src_path,
        dstPath: input.dst_path,
        startedAtMs: now,
      });
    });
    return { success: true };
  });

  app.delete("/api/v0/commands/rsync/", { config }, async (request) => {
    const parsed = CancelRsyncSchema.safeParse(request.body);
    const dst = parsed.success ? instance(parsed.data.dst_id) : undefined;
    if (!dst) return refusal("Invalid dst_id.");
    if (!isRunning(dst, Date.now())) return refusal("Remote instance does not have an open port");
    store.mutate((state) => {
      state.copies = state.copies.filter((c) => c.dstInstanceId !== dst.id);
    });
    return { success: true };
  });
}
