import { z } from "zod";
import { NetworkVolumeAskSchema, VolumeAskSchema } from "../market/asks";

/**
 * The account's volumes as the state file holds them: local ones on one machine, network ones
 * on one cluster's network disk, and the mounts that put either on an instance.
 */

export const VolumeSchema = z.object({
  id: z.int(),
  askId: z.int(),
  sizeGb: z.int(),
  /** The name given at create (the official client's `create volume -n`), shown as `label`. */
  label: z.string().nullable(),
  createdAtMs: z.number(),
  /** A copy of the ask as it was; volumes from before this field use the listed ask. */
  offer: VolumeAskSchema.optional(),
});
export type Volume = z.infer<typeof VolumeSchema>;

export const NetworkVolumeSchema = z.object({
  /** From the same counter as local volumes: `delete volume` and `V.<id>` name either kind. */
  id: z.int(),
  askId: z.int(),
  clusterId: z.int(),
  sizeGb: z.int(),
  /** The name given at create (`create network-volume -n`), shown as `label`. */
  label: z.string().nullable(),
  createdAtMs: z.number(),
  /** A copy of the ask as it was, since asks can be replaced while the volume lives. */
  offer: NetworkVolumeAskSchema,
});
export type NetworkVolume = z.infer<typeof NetworkVolumeSchema>;

/** A volume (local or network) an instance mounts, from `volume_info` or a `-v` env entry. */
export const MountSchema = z.object({ volumeId: z.int(), mountPath: z.string() });
export type Mount = z.infer<typeof MountSchema>;
