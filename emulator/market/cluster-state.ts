import { z } from "zod";

/**
 * What physical clusters carry beyond their machines (whose asks say `clusterId`): overlay
 * networks, network-volume asks and the network volumes accepted from them. A cluster exists
 * while an instance ask of the market names it.
 */

/**
 * Storage a host lists on a cluster's network disk; accepting it (PUT /api/v0/network_volumes/)
 * makes a network volume that any instance on a machine of the cluster can mount. Several
 * volumes may be cut from one ask until its `diskGb` is used up.
 */
export const NetworkVolumeAskSchema = z.object({
  id: z.int().positive(),
  clusterId: z.int().positive(),
  diskGb: z.number().positive(),
  storageCostPerGbMonth: z.number().nonnegative(),
  geolocation: z.string(),
  hostId: z.int().positive().default(100000),
  reliability: z.number().min(0).max(1).default(0.99),
  verification: z.enum(["verified", "unverified", "deverified"]).default("verified"),
  external: z.boolean().default(false),
  inetUpMbps: z.number().nonnegative().default(1000),
  inetDownMbps: z.number().nonnegative().default(1000),
  /** The network disk's measured read bandwidth, MiB/s. */
  nwDiskMinBwMbps: z.number().nonnegative().default(500),
  nwDiskMaxBwMbps: z.number().nonnegative().default(2000),
  nwDiskAvgBwMbps: z.number().nonnegative().default(1200),
  listedAtSeconds: z.number().nonnegative().default(1767225600), // 2026-01-01
  endsAtSeconds: z.number().nonnegative().default(1893456000), // 2030-01-01
});
export type NetworkVolumeAsk = z.output<typeof NetworkVolumeAskSchema>;

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

/** A volume (local or network) an instance mounts, from `volume_info` or a `-v` env entry. */
export const MountSchema = z.object({ volumeId: z.int(), mountPath: z.string() });
export type Mount = z.infer<typeof MountSchema>;
