import { z } from "zod";
import { documentedBy, type DocumentedOperation } from "./client-area";

// The bodies of the instance writes (wire names), checked before they are sent; and what the
// service's documents give of each operation of the instances area (its `area`'s documents).

export const instanceStateSchema = z.enum(["stopped", "running"]);
export type InstanceState = z.infer<typeof instanceStateSchema>;

/** The body of a create-instance request (wire names; `client_id` is added). */
export const createInstanceRequestSchema = z.object({
  /** Optional with `template_hash_id`: the template provides it. */
  image: z.string().optional(),
  /** GB, at least 8; optional with a template (its recommended disk space). */
  disk: z.number().optional(),
  /**
   * Launch from a template: its values are defaults, the request's own fields override them
   * (scalars replace, `env` is merged by key, the request's keys winning).
   */
  template_hash_id: z.string().optional(),
  onstart: z.string().optional(),
  /** Arguments to the image's entrypoint (runtype `args`), a list as the OpenAPI types it. */
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  label: z.string().optional(),
  runtype: z.string().optional(),
  /** A bid, $/hour. */
  price: z.number().optional(),
  image_login: z.string().optional(),
  /** Links an existing volume; it must be on the ask's machine. */
  volume_info: z
    .object({ create_new: z.literal(false), volume_id: z.number().int(), mount_path: z.string() })
    .optional(),
});
export type CreateInstanceRequest = z.infer<typeof createInstanceRequestSchema>;
export const createInstanceBodySchema = createInstanceRequestSchema.extend({
  client_id: z.literal("me"),
});
export const relabelBodySchema = z.object({ label: z.string() });
export const setStateBodySchema = z.object({ state: instanceStateSchema });
export const setStatesBodySchema = z.object({
  ids: z.array(z.number().int()).min(1),
  state: instanceStateSchema,
});
/** The service's bounds for a bid change, $/hour. */
export const bidBounds = { minDollarsPerHour: 0.001, maxDollarsPerHour: 32 } as const;
export const changeBidBodySchema = z.object({
  client_id: z.literal("me"),
  price: z.number().min(bidBounds.minDollarsPerHour).max(bidBounds.maxDollarsPerHour),
});
/** A prepay (reserved instance): dollars of the account's credit deposited into the instance. */
export const prepayBodySchema = z.object({ amount: z.number().positive() });
export const destroyManyBodySchema = z.object({ instance_ids: z.array(z.number().int()).min(1) });

/**
 * A rebuild of an instance's container on its machine (PUT /api/v0/instances/update_template/,
 * the official client's `vastai update instance`): each field given replaces what the
 * container was launched with.
 */
export const containerRebuildBodySchema = z.object({
  id: z.number().int(),
  template_hash_id: z.string().optional(),
  image: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  onstart: z.string().optional(),
  /** The entrypoint's arguments as one shell-quoted string, as the official client sends them. */
  args: z.string().optional(),
});
export type ContainerRebuild = Omit<z.infer<typeof containerRebuildBodySchema>, "id">;

/** The instances area's operations, as the service's documents give them (its `area`). */
export const instanceDocuments: Readonly<Record<string, DocumentedOperation>> = {
  "PUT /api/v0/asks/{id}/": {
    by: documentedBy.all,
    body: [
      "args",
      "args_str",
      "cancel_unavail",
      "client_id",
      "disk",
      "env",
      "extra",
      "force",
      "image",
      "image_login",
      "jupyter_dir",
      "label",
      "lang_utf8",
      "onstart",
      "price",
      "python_utf8",
      "runtype",
      "target_state",
      "template_hash_id",
      "use_jupyter_lab",
      "user",
      "vm",
      "volume_info",
    ],
  },
  "DELETE /api/v0/instances/": { by: ["vastai 1.9.1"], body: ["instance_ids"] },
  "PUT /api/v0/instances/": { by: documentedBy.clients, body: ["ids", "state"] },
  "PUT /api/v0/instances/bid_price/{id}/": { by: documentedBy.all, body: ["client_id", "price"] },
  // `vastai prepay instance ID AMOUNT`; the OpenAPI gives the path without a trailing slash.
  "PUT /api/v0/instances/prepay/{id}/": { by: documentedBy.all, body: ["amount"] },
  "GET /api/v0/instances/filters/": { by: ["vastai 1.9.1"] },
  // `vastai update instance`, which the OpenAPI leaves out.
  "PUT /api/v0/instances/update_template/{id}/": {
    by: documentedBy.clients,
    body: ["args", "env", "id", "image", "onstart", "template_hash_id", "template_id"],
  },
  "PUT /api/v0/instances/reboot/{id}/": { by: documentedBy.all },
  "PUT /api/v0/instances/recycle/{id}/": { by: documentedBy.all },
  // `vastai show logs`; the OpenAPI gives the path without a trailing slash.
  "PUT /api/v0/instances/request_logs/{id}": {
    by: documentedBy.openApi,
    body: ["daemon_logs", "filter", "tail"],
  },
  "DELETE /api/v0/instances/{id}/": { by: documentedBy.all },
  "GET /api/v0/instances/{id}/": { by: documentedBy.all, query: ["owner"] },
  "PUT /api/v0/instances/{id}/": { by: documentedBy.all, body: ["label", "state"] },
  "GET /api/v1/instances/": {
    by: documentedBy.all,
    query: ["after_token", "limit", "order_by", "owner", "select_cols", "select_filters"],
  },
};
