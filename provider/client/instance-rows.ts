import { z } from "zod";

/** Values of `actual_status`; null while provisioning. */
export const deadEndStatuses = ["exited", "unknown", "offline"] as const;

export const instanceSchema = z.object({
  id: z.number().int(),
  actual_status: z.string().nullable().optional(),
  intended_status: z.string().nullable().optional(),
  cur_state: z.string().nullable().optional(),
  status_msg: z.string().nullable().optional(),
  ssh_host: z.string().nullable().optional(),
  ssh_port: z.number().int().nullable().optional(),
  public_ipaddr: z.string().nullable().optional(),
  /**
   * Docker's port map, only while it runs (the OpenAPI's v1 instance rows): container port and
   * protocol ("8000/tcp") to its host bindings, `HostPort` a string.
   */
  ports: z
    .record(
      z.string(),
      z.array(z.object({ HostIp: z.string().nullable().optional(), HostPort: z.string() })),
    )
    .nullable()
    .optional()
    // Some documents describe `ports` as a list of numbers: a shape that maps nothing reads as none.
    .catch(null),
  /**
   * The instance's private addresses, space-separated (`"10.100.0.1 10.0.7.2 172.17.0.1\n"`),
   * while it runs: an overlay member's overlay address among them.
   */
  local_ipaddrs: z.string().nullable().optional(),
  label: z.string().nullable().optional(),
  image_uuid: z.string().nullable().optional(),
  onstart: z.string().nullable().optional(),
  extra_env: z.unknown().optional(),
  /** GB */
  disk_space: z.number().nullable().optional(),
  /** MB in the REST API. */
  gpu_ram: z.number().nullable().optional(),
  gpu_name: z.string().nullable().optional(),
  num_gpus: z.number().nullable().optional(),
  runtype: z.string().nullable().optional(),
  next_state: z.string().nullable().optional(),
  machine_id: z.number().int().nullable().optional(),
  /** The ask (offer) the instance was rented from. */
  bundle_id: z.number().int().nullable().optional(),
  /** Epoch seconds. */
  start_date: z.number().nullable().optional(),
  /** $/hour in all: dph_base and its disk's storage (storage_total_cost). */
  dph_total: z.number().nullable().optional(),
  /** $/hour for the instance's disk (storage_cost × GB / 720). */
  storage_total_cost: z.number().nullable().optional(),
  /** $/hour without storage (the description's "base dollars per hour"). */
  dph_base: z.number().nullable().optional(),
  /**
   * A reserved (prepaid) instance's discount on `dph_total`, 0 to 1, while its deposit lasts
   * (the OpenAPI's Instance: `credit_discount` beside `instance.discountedTotalPerHour`); null
   * for one never prepaid.
   */
  credit_discount: z.number().nullable().optional(),
  /** A reserved instance's deposit left, dollars; null for one never prepaid. */
  credit_balance: z.number().nullable().optional(),
  /** The host's longest-term prepay discount, 0 to 1. */
  credit_discount_max: z.number().nullable().optional(),
  /** True for an interruptible instance (rented with a bid). */
  is_bid: z.boolean().nullable().optional(),
  /**
   * The lowest bid that holds the machine now, $/hour: above an interruptible instance's own
   * bid when a higher bid has taken its machine (it is then stopped, still intended running).
   */
  min_bid: z.number().nullable().optional(),
  /** The template the instance was launched from, if any. */
  template_hash_id: z.string().nullable().optional(),
  geolocation: z.string().nullable().optional(),
  /** Linked volumes: `{volume_id, name, mount_path}` each. */
  volume_info: z.array(z.record(z.string(), z.unknown())).nullable().optional(),
});
export type Instance = z.infer<typeof instanceSchema>;

// The service lists an instance's environment as [name, value] pairs; accept a map as well.
const extraEnvSchema = z.union([
  z.array(z.tuple([z.string(), z.string()])),
  z.record(z.string(), z.string()).transform((env) => Object.entries(env)),
]);

/** An instance's environment variables as a map (empty when the service sent none). */
export function environmentOf(instance: Instance): Record<string, string> {
  const parsed = extraEnvSchema.safeParse(instance.extra_env);
  return parsed.success ? Object.fromEntries(parsed.data) : {};
}
