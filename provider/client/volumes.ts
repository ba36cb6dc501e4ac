import { z } from "zod";
import { volumeOfferWireSchema } from "./offer-schemas";
import { SharedList } from "./shared-list";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

/** `V.<number>`: the number is the volume's id. */
export const volumeNameSchema = z
  .string()
  .regex(/^V\.\d+$/, "expected a volume name shaped V.<number>");

const acceptVolumeAskSchema = z.object({ success: z.boolean(), volume_name: volumeNameSchema });

export const volumeSchema = z.object({
  id: z.number().int(),
  status: z.string().nullable().optional(),
  /** The name given at create (`name`); the official client shows it as the volume's name. */
  label: z.string().nullable().optional(),
  /** GB */
  disk_space: z.number().nullable().optional(),
  /** Unix seconds. */
  start_date: z.number().nullable().optional(),
  machine_id: z.number().int().nullable().optional(),
  host_id: z.number().int().nullable().optional(),
  geolocation: z.string().nullable().optional(),
  public_ipaddr: z.string().nullable().optional(),
  verification: z.string().nullable().optional(),
  /** $/hour for the volume's size. */
  storage_total_cost: z.number().nullable().optional(),
  instances: z.array(z.unknown()).nullable().optional(),
  /** A network volume's physical cluster; null for a local volume. */
  cluster_id: z.number().int().nullable().optional(),
});
export type Volume = z.infer<typeof volumeSchema>;

/** A network volume has no machine, only a cluster (a local volume has both). */
export const isNetworkVolume = (volume: Volume): volume is Volume & { cluster_id: number } =>
  (volume.machine_id === null || volume.machine_id === undefined) &&
  volume.cluster_id !== null &&
  volume.cluster_id !== undefined;
const listVolumesSchema = z.object({ volumes: z.array(volumeSchema) });

const volumeOffersSchema = z.object({ offers: z.array(volumeOfferWireSchema) });
export type VolumeOfferRow = z.infer<typeof volumeOfferWireSchema>;

const successSchema = z.object({ success: z.boolean() });
const acceptVolumeAskBodySchema = z.object({
  id: z.number().int(),
  size: z.number().int(),
  name: z.string().optional(),
});

export interface AcceptVolumeAskOptions {
  /** A name for the volume, shown as its `label` (the official client's `create volume -n`). */
  name?: string;
  signal?: AbortSignal;
}

/**
 * The env entry that mounts a volume at create: the official client turns `--env "-v NAME:PATH"`
 * into the key `-v NAME:PATH` with the value "1".
 */
export function volumeMountEnv(volumeId: number, mountPath: string): Record<string, string> {
  return { [`-v V.${volumeId}:${mountPath}`]: "1" };
}

/** The id in a volume name `V.<id>`. */
export function volumeIdOf(volumeName: string): number {
  return Number(volumeNameSchema.parse(volumeName).slice(2));
}

export class VolumesApi {
  // Refresh reads each volume by listing them all: concurrent reads share one list.
  private readonly shared: SharedList<Volume[]>;

  constructor(private readonly transport: Transport) {
    this.shared = new SharedList((signal) =>
      this.transport
        .request({
          method: "GET",
          path: "/api/v0/volumes/",
          query: { owner: "me", type: "all_volume" },
          response: listVolumesSchema,
          signal,
        })
        .then((body) => body.volumes),
    );
  }

  /** Accepts a volume ask: starts creating a volume of `sizeGb` for the caller. */
  acceptVolumeAsk(
    askId: number,
    sizeGb: number,
    options: AcceptVolumeAskOptions = {},
  ): Promise<{ volumeName: string; volumeId: number }> {
    return this.createFromAsk("/api/v0/volumes/", askId, sizeGb, options);
  }

  /** Lists the account's volumes; reads close together share one request (see SharedList). */
  list(signal?: AbortSignal): Promise<Volume[]> {
    return this.shared.read(signal);
  }

  /**
   * Creates a network volume of `sizeGb` from a network volume ask (the official client's
   * `create network-volume`): storage in the ask's physical cluster.
   */
  createNetworkVolume(
    askId: number,
    sizeGb: number,
    options: AcceptVolumeAskOptions = {},
  ): Promise<{ volumeName: string; volumeId: number }> {
    return this.createFromAsk("/api/v0/network_volumes/", askId, sizeGb, options);
  }

  /** Local and network volumes are made alike: `PUT {id, size, name}`, answered `V.<id>`. */
  private async createFromAsk(
    path: string,
    askId: number,
    sizeGb: number,
    { name, signal }: AcceptVolumeAskOptions,
  ): Promise<{ volumeName: string; volumeId: number }> {
    const body = await this.shared.write(() =>
      this.transport.request({
        method: "PUT",
        path,
        body: { id: askId, size: sizeGb, ...(name === undefined ? {} : { name }) },
        bodySchema: acceptVolumeAskBodySchema,
        response: acceptVolumeAskSchema,
        creates: true,
        signal,
      }),
    );
    return { volumeName: body.volume_name, volumeId: volumeIdOf(body.volume_name) };
  }

  /** Deletes a volume, local or network; the service refuses while an instance mounts it. */
  async delete(volumeId: number, signal?: AbortSignal): Promise<void> {
    await this.shared.write(() =>
      this.transport.request({
        method: "DELETE",
        path: "/api/v0/volumes/",
        query: { id: volumeId },
        response: successSchema,
        signal,
      }),
    );
  }

  /**
   * Searches network volume offers (asks) with the service's query language, wire names
   * (`{id: {eq: 25001}}`): the typed search (OffersApi.searchNetworkVolumes) has no id field.
   */
  searchNetworkVolumeOffers(
    query: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<VolumeOfferRow[]> {
    return this.searchRows("/api/v0/network_volumes/search/", query, signal);
  }

  /**
   * Searches volume offers (asks) with the service's query language:
   * `{field: {op: value}, order: [[field, "asc"|"desc"]], limit}`; `{}` lists them (64 at most).
   */
  searchOffers(
    query: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<VolumeOfferRow[]> {
    return this.searchRows("/api/v0/volumes/search/", query, signal);
  }

  private async searchRows(
    path: string,
    query: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<VolumeOfferRow[]> {
    const body = await this.transport.request({
      method: "POST",
      path,
      body: query,
      response: volumeOffersSchema,
      signal,
    });
    return body.offers;
  }
}

export const area: ClientArea = {
  property: "volumes",
  Api: VolumesApi,
  documents: {
    "PUT /api/v0/network_volumes/": { by: documentedBy.clients, body: ["id", "name", "size"] },
    "DELETE /api/v0/volumes/": { by: documentedBy.all, query: ["id"], body: ["id"] },
    "GET /api/v0/volumes/": { by: documentedBy.all, query: ["owner", "type"] },
    "PUT /api/v0/volumes/": { by: documentedBy.all, body: ["id", "name", "size"] },
  },
};
