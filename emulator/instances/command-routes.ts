import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check, invalidArgs } from "../shared/http";
import { describeInstance } from "./instance-row";
import type { Instance } from "./instance-state";
import { isRunning } from "./lifecycle";

/**
 * A copy's end as the official client writes it: an instance (`123`, `"123"`, `"C.123"`), the
 * caller's machine (`"local"`, or no id at all), or a volume (`"V.123"`). Cloud services
 * (`"s3.101"`, `"drive"`) go through the rclone endpoints, which the emulator does not serve.
 */
type End = { kind: "instance"; id: number } | { kind: "local" } | { kind: "volume"; id: number };

function endOf(raw: unknown): End | undefined {
  if (raw === undefined || raw === null || raw === "local") return { kind: "local" };
  if (typeof raw === "number") {
    return Number.isInteger(raw) && raw > 0 ? { kind: "instance", id: raw } : undefined;
  }
  if (typeof raw !== "string") return undefined;
  const instance = /^(?:C\.)?([0-9]+)$/.exec(raw);
  if (instance?.[1] !== undefined) return { kind: "instance", id: Number(instance[1]) };
  const volume = /^V\.([0-9]+)$/.exec(raw);
  if (volume?.[1] !== undefined) return { kind: "volume", id: Number(volume[1]) };
  return undefined;
}

const PathSchema = z.string().min(1);
const CopyDirectSchema = z.object({
  client_id: z.string().nullish(),
  src_id: z.unknown().optional(),
  dst_id: z.unknown().optional(),
  src_path: z.unknown().optional(),
  dst_path: z.unknown().optional(),
});
const CancelSchema = z.object({ dst_id: z.unknown().optional() });

const REMOTE_COPY_STARTED =
  "Remote to Remote copy initiated - check instance status bar for progress updates (~30 seconds delayed).";
const NO_OPEN_PORT = "Remote instance does not have an open port";

/** The spec's cancel reports its failures as 200 with success false. */
function refusal(msg: string) {
  return { success: false, error: "invalid_args", msg };
}

/** Where the caller's rsync reaches an instance: its public address and SSH port. */
function addressOf(instance: Instance, nowMs: number) {
  const { public_ipaddr: addr, ssh_port: port } = describeInstance(instance, nowMs);
  return { addr, port };
}

export function registerCommandRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store } = ctx;
  const config = { category: "instance_write" } as const;
  const instanceById = (id: number) => store.state.instances.find((i) => i.id === id);
  const instanceOf = (end: End | undefined) =>
    end?.kind === "instance" ? instanceById(end.id) : undefined;

  app.put("/api/v0/commands/copy_direct/", { config }, async (request) => {
    const input = check(CopyDirectSchema, request.body, "invalid_args");
    const srcPath = PathSchema.safeParse(input.src_path);
    if (!srcPath.success) throw invalidArgs("Invalid src_path.");
    const dstPath = PathSchema.safeParse(input.dst_path);
    if (!dstPath.success) throw invalidArgs("Invalid dst_path.");
    const srcEnd = endOf(input.src_id);
    const dstEnd = endOf(input.dst_id);
    if (!srcEnd || (srcEnd.kind === "local" && dstEnd?.kind === "local")) {
      throw invalidArgs("Invalid src_id.");
    }
    // Volume copies go to instances; a copy into a volume is not modelled.
    if (!dstEnd || dstEnd.kind === "volume") throw invalidArgs("Invalid dst_id.");

    const now = ctx.clock.nowMs();
    const src = instanceOf(srcEnd);
    const dst = instanceOf(dstEnd);
    if (srcEnd.kind === "instance" && !src) {
      throw new ApiError(404, "no_such_instance", "Invalid src_id.");
    }
    if (srcEnd.kind === "volume" && !store.state.volumes.some((v) => v.id === srcEnd.id)) {
      throw new ApiError(404, "no_such_volume", "Invalid src_id.");
    }
    if (dstEnd.kind === "instance" && !dst) {
      throw new ApiError(404, "no_such_instance", "Invalid dst_id.");
    }
    if (src && !isRunning(src, now)) throw invalidArgs("Source instance is not running.");
    if (dst && !isRunning(dst, now)) throw invalidArgs(NO_OPEN_PORT);

    if (!dst) {
      if (!src) throw invalidArgs("A volume cannot be copied to the local machine.");
      // Into the caller's machine: the client runs rsync itself, from the source's address.
      const { addr, port } = addressOf(src, now);
      return { success: true, src_addr: addr, src_port: port };
    }
    store.mutate((state) => {
      // One rsync per destination: a new copy replaces the one in progress.
      state.copies = state.copies.filter((c) => c.dstInstanceId !== dst.id);
      state.copies.push({
        source: srcEnd.kind,
        srcInstanceId: src?.id ?? null,
        srcVolumeId: srcEnd.kind === "volume" ? srcEnd.id : null,
        dstInstanceId: dst.id,
        srcPath: srcPath.data,
        dstPath: dstPath.data,
        startedAtMs: now,
      });
    });
    if (srcEnd.kind === "local") {
      const { addr, port } = addressOf(dst, now);
      return { success: true, dst_addr: addr, dst_port: port };
    }
    return { success: true, msg: REMOTE_COPY_STARTED };
  });

  /** Kills the copy running into an instance; nothing running there is a success as well. */
  function cancel(dst: Instance): { success: true } {
    store.mutate((state) => {
      state.copies = state.copies.filter((c) => c.dstInstanceId !== dst.id);
    });
    return { success: true };
  }

  // The spec's cancel: failures are 200 with success false.
  app.delete("/api/v0/commands/rsync/", { config }, async (request) => {
    const parsed = CancelSchema.safeParse(request.body);
    const dst = parsed.success ? instanceOf(endOf(parsed.data.dst_id ?? 0)) : undefined;
    if (!dst) return refusal("Invalid dst_id.");
    if (!isRunning(dst, ctx.clock.nowMs())) return refusal(NO_OPEN_PORT);
    return cancel(dst);
  });

  // The official client's cancel: the description answers its failures with 400 and 404.
  app.delete("/api/v0/commands/copy_direct/", { config }, async (request) => {
    const parsed = CancelSchema.safeParse(request.body);
    const end = parsed.success ? endOf(parsed.data.dst_id ?? 0) : undefined;
    if (end?.kind !== "instance") throw invalidArgs("Invalid dst_id.");
    const dst = instanceById(end.id);
    if (!dst) throw new ApiError(404, "no_such_instance", "Invalid dst_id.");
    if (!isRunning(dst, ctx.clock.nowMs())) throw invalidArgs(NO_OPEN_PORT);
    return cancel(dst);
  });
}
