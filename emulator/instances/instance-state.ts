import { z } from "zod";
import { InstanceAskSchema } from "../market/asks";
import { MountSchema } from "../volumes/volume-state";

/**
 * Instances as the state file holds them, with what hangs on them: their boot outcomes, the
 * overlays they join and the copies running into them.
 */

export const BootStatusSchema = z.enum(["running", "exited", "unknown", "offline"]);
export type BootStatus = z.infer<typeof BootStatusSchema>;

export const BootOutcomeSchema = z.object({
  status: BootStatusSchema,
  afterPolls: z.int().nonnegative().optional(),
  afterSeconds: z.number().nonnegative().optional(),
  statusMsg: z.string().optional(),
});

export const RuntypeSchema = z.enum(["ssh", "jupyter", "args", "vm"]);

/** An overlay network: a private LAN on one cluster for the instances that join it. */
export const OverlaySchema = z.object({
  id: z.int(),
  name: z.string(),
  clusterId: z.int(),
  /** `10.N.0.0/24`: members get addresses in it (kept on each instance). */
  subnet: z.string(),
  createdAtMs: z.number(),
});
export type Overlay = z.infer<typeof OverlaySchema>;

/** An instance's place on an overlay. */
export const OverlayMembershipSchema = z.object({ overlayId: z.int(), address: z.string() });

/**
 * A prepaid (reserved) instance's deposit (prepay.ts): what was left of it at `sinceMs`, and the
 * discount it buys.
 */
export const PrepaySchema = z.object({
  /** Every deposit made, in dollars. */
  depositedDollars: z.number(),
  /** What was left of the deposits right after the last one. */
  balanceDollars: z.number(),
  /** The last deposit's moment: the balance is drawn down from here. */
  sinceMs: z.number(),
  /** 0 to 1, of the instance's price. */
  discountRate: z.number(),
  /** Months the balance covered at the last deposit (the answer's `timescale`). */
  months: z.number(),
});
export type Prepay = z.infer<typeof PrepaySchema>;

export const InstanceSchema = z.object({
  id: z.int(),
  /** A copy of the ask as it was, since asks can be replaced while the instance lives. */
  offer: InstanceAskSchema,
  image: z.string(),
  diskGb: z.number(),
  onstart: z.string().nullable(),
  /** The entrypoint's arguments (runtype `args`; the row's `image_args`). Older states: none. */
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()),
  label: z.string().nullable(),
  runtype: RuntypeSchema,
  bidDollarsPerHour: z.number().nullable(),
  imageLogin: z.string().nullable(),
  createdAtMs: z.number(),
  polls: z.int().nonnegative(),
  boot: BootOutcomeSchema.extend({ afterPolls: z.int().nonnegative() }),
  // Stop/start (PUT /api/v0/instances/{id}/ {state}). Defaults let older state files load.
  intendedStatus: z.enum(["running", "stopped"]).default("running"),
  /** When it was last started again (a start, a reboot, a rebuild); null: never. */
  restartedAtMs: z.number().nullable().default(null),
  /**
   * What its container goes through until the boot ends: a reboot (`rebooting`, the container
   * stopped and started) or a rebuild (`recycling`: recreated from a fresh pull, by recycle or
   * by an update of its template, image, env or onstart); null otherwise.
   */
  containerAction: z.enum(["rebooting", "recycling"]).nullable().default(null),
  /** When its container was last created anew (a rebuild); null: the one of its create. */
  containerCreatedAtMs: z.number().nullable().default(null),
  /** An existing volume linked at create (`volume_info` with `create_new: false`). */
  volume: z.object({ volumeId: z.int(), mountPath: z.string() }).nullable().default(null),
  /** The template it was launched from (`template_hash_id` at create). */
  template: z
    .object({ id: z.int(), hashId: z.string(), name: z.string() })
    .nullable()
    .default(null),
  /** The serverless worker group that rented it, while it belongs to one. */
  workerGroupId: z.int().nullable().default(null),
  /** Being released (a deleted worker group's worker): gone from the account at this time. */
  releaseAtMs: z.number().nullable().default(null),
  /** An interruptible instance that lost its machine to this higher bid ($/hour). */
  outbidDollarsPerHour: z.number().nullable().default(null),
  /** The overlay network it is on, and its address there (one overlay at most). */
  overlay: OverlayMembershipSchema.nullable().default(null),
  /** Volumes mounted through `-v <name>:<path>` env entries (beside `volume`). */
  mounts: z.array(MountSchema).default([]),
  /** A reserved instance's deposit (PUT /api/v0/instances/prepay/{id}/); null: on-demand price. */
  prepay: PrepaySchema.nullable().default(null),
});
export type Instance = z.infer<typeof InstanceSchema>;

export const CopySchema = z.object({
  /** Where the data comes from: an instance, the caller's machine, or a volume. */
  source: z.enum(["instance", "local", "volume"]).default("instance"),
  srcInstanceId: z.int().nullable(),
  srcVolumeId: z.int().nullable().default(null),
  dstInstanceId: z.int(),
  srcPath: z.string(),
  dstPath: z.string(),
  startedAtMs: z.number(),
});
