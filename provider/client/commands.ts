import { z } from "zod";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

const successSchema = z.object({ success: z.literal(true) });

/** A started copy; a copy from or to `local` says where the caller's own rsync must connect. */
export const remoteCopyStartedSchema = z.object({
  success: z.literal(true),
  msg: z.string().optional(),
  src_addr: z.string().nullable().optional(),
  src_port: z.number().int().nullable().optional(),
  dst_addr: z.string().nullable().optional(),
  dst_port: z.number().int().nullable().optional(),
});
export type RemoteCopyStarted = z.infer<typeof remoteCopyStartedSchema>;

export const remoteCopySchema = z.object({
  /** An instance id (`123` or `C.123`), `local` for the caller's machine, or a volume `V.123`. */
  srcId: z.string(),
  /** An instance id (`123` or `C.123`) or `local`. */
  dstId: z.string(),
  srcPath: z.string(),
  dstPath: z.string(),
});
export type RemoteCopy = z.infer<typeof remoteCopySchema>;
const copyDirectBodySchema = z.object({
  client_id: z.literal("me"),
  src_id: z.string(),
  dst_id: z.string(),
  src_path: z.string(),
  dst_path: z.string(),
});
const cancelRsyncBodySchema = z.object({ dst_id: z.string() });

export class CommandsApi {
  constructor(private readonly transport: Transport) {}

  /** Starts a copy between two instances, or between an instance and the caller's machine. */
  async startRemoteCopy(copy: RemoteCopy, signal?: AbortSignal): Promise<RemoteCopyStarted> {
    return this.transport.request({
      method: "PUT",
      path: "/api/v0/commands/copy_direct/",
      body: {
        client_id: "me",
        src_id: copy.srcId,
        dst_id: copy.dstId,
        src_path: copy.srcPath,
        dst_path: copy.dstPath,
      },
      bodySchema: copyDirectBodySchema,
      response: remoteCopyStartedSchema,
      creates: true,
      signal,
    });
  }

  /**
   * Cancels the rsync copy running into instance `dstId`. The service reports its failures
   * (`Invalid dst_id.`, `Remote instance does not have an open port`) as a 200 with
   * `success: false`; they reject with that exact message.
   */
  async cancelRsyncCopy(dstId: string, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: "/api/v0/commands/rsync/",
      body: { dst_id: dstId },
      bodySchema: cancelRsyncBodySchema,
      response: successSchema,
      signal,
    });
  }
}

export const area: ClientArea = {
  property: "commands",
  Api: CommandsApi,
  documents: {
    "PUT /api/v0/commands/copy_direct/": {
      by: documentedBy.all,
      body: ["client_id", "dst_id", "dst_path", "src_id", "src_path"],
    },
    "DELETE /api/v0/commands/rsync/": { by: ["the specification, 4.5"], body: ["dst_id"] },
  },
};
