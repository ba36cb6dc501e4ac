import { z } from "zod";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

// Overlay networks: a private LAN for the instances of one physical cluster that join it. No
// OpenAPI entry exists; the shapes are what the service's official client sends and reads
// (its `create/show/join/delete overlay` commands).

export const overlaySchema = z.object({
  overlay_id: z.number().int(),
  name: z.string(),
  /** The overlay's private subnet, e.g. `10.100.0.0/24`. */
  internal_subnet: z.string().nullable().optional(),
  cluster_id: z.number().int(),
  /** The ids of the instances on it. */
  instances: z.array(z.number().int()).nullable().optional(),
});
export type Overlay = z.infer<typeof overlaySchema>;

const overlayListSchema = z.array(overlaySchema);
const changedSchema = z.object({ success: z.boolean(), msg: z.string().optional() });
const createBodySchema = z.object({ cluster_id: z.number().int(), name: z.string().min(1) });
const joinBodySchema = z.object({ name: z.string().min(1), instance_id: z.number().int() });
const deleteBodySchema = z.object({ overlay_id: z.number().int() });

/**
 * The env entry that joins an instance to an overlay at create: the official client turns
 * `--env "-n NAME"` into the key `-n NAME` with the value "1".
 */
export function overlayJoinEnv(name: string): Record<string, string> {
  return { [`-n ${name}`]: "1" };
}

export class OverlaysApi {
  constructor(private readonly transport: Transport) {}

  /**
   * Creates an overlay on a physical cluster and returns it as the list shows it (the create's
   * answer says only that it worked). Overlay names are unique on the account.
   */
  async create(clusterId: number, name: string, signal?: AbortSignal): Promise<Overlay> {
    await this.transport.request({
      method: "POST",
      path: "/api/v0/overlay/",
      body: { cluster_id: clusterId, name },
      bodySchema: createBodySchema,
      response: changedSchema,
      creates: true,
      signal,
    });
    const created = await this.named(name, signal);
    if (created === undefined) {
      throw new Error(`overlay ${name} was created but the service does not list it`);
    }
    return created;
  }

  list(signal?: AbortSignal): Promise<Overlay[]> {
    return this.transport.request({
      method: "GET",
      path: "/api/v0/overlay/",
      response: overlayListSchema,
      signal,
    });
  }

  async named(name: string, signal?: AbortSignal): Promise<Overlay | undefined> {
    return (await this.list(signal)).find((overlay) => overlay.name === name);
  }

  /** Joins a running instance of the caller to the overlay; joining again changes nothing. */
  async join(name: string, instanceId: number, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "PUT",
      path: "/api/v0/overlay/",
      body: { name, instance_id: instanceId },
      bodySchema: joinBodySchema,
      response: changedSchema,
      signal,
    });
  }

  /** Deletes the overlay; its members leave it (and keep running). */
  async delete(overlayId: number, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: "/api/v0/overlay/",
      body: { overlay_id: overlayId },
      bodySchema: deleteBodySchema,
      response: changedSchema,
      signal,
    });
  }
}

export const area: ClientArea = {
  property: "overlays",
  Api: OverlaysApi,
  description: "Overlay networks on physical clusters.",
  documents: {
    "DELETE /api/v0/overlay/": { by: documentedBy.clients, body: ["overlay_id", "overlay_name"] },
    "GET /api/v0/overlay/": { by: documentedBy.clients },
    "POST /api/v0/overlay/": { by: documentedBy.clients, body: ["cluster_id", "name"] },
    "PUT /api/v0/overlay/": { by: documentedBy.clients, body: ["instance_id", "name"] },
  },
};
