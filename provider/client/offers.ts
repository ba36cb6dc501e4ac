import { z } from "zod";
import { compileInstanceOfferQuery, compileVolumeOfferQuery } from "./offer-query";
import type { InstanceOfferQuery, VolumeOfferQuery } from "./offer-query-language";
import {
  type InstanceOffer,
  instanceOfferSchema,
  type VolumeOffer,
  volumeOfferSchema,
} from "./offer-schemas";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

const instanceOffersSchema = z.object({ offers: z.array(instanceOfferSchema) });
const volumeOffersSchema = z.object({ offers: z.array(volumeOfferSchema) });

/** An offer the service answered that does not match the query, and why. */
export interface RejectedOffer<O> {
  offer: O;
  reason: string;
}

export interface Search<O> {
  /** The offers that match the query, in the service's order. */
  offers: O[];
  /** Answered offers that fail the query (the service ignored some filter); never rented. */
  rejected: RejectedOffer<O>[];
}

/**
 * Typed offer searches. A malformed query throws OfferQueryError before anything is sent; every
 * answered offer is checked against the query, and those that fail it are set apart.
 */
export class OffersApi {
  constructor(private readonly transport: Transport) {}

  async searchInstances(
    query: InstanceOfferQuery | string = {},
    signal?: AbortSignal,
  ): Promise<Search<InstanceOffer>> {
    const compiled = compileInstanceOfferQuery(query);
    const body = await this.transport.request({
      method: "POST",
      path: "/api/v0/bundles/",
      body: compiled.body,
      response: instanceOffersSchema,
      signal,
    });
    return split(body.offers, (offer) => compiled.mismatch(offer));
  }

  searchVolumes(
    query: VolumeOfferQuery | string = {},
    signal?: AbortSignal,
  ): Promise<Search<VolumeOffer>> {
    return this.searchVolumeOffers("/api/v0/volumes/search/", query, signal);
  }

  /**
   * Network volume offers: storage in a physical cluster that its machines mount. The query is
   * a volume offer query (`{clusterId: 7, diskSpaceGb: {gte: 500}}`); machine fields do not
   * apply (a network volume is on no one machine).
   */
  searchNetworkVolumes(
    query: VolumeOfferQuery | string = {},
    signal?: AbortSignal,
  ): Promise<Search<VolumeOffer>> {
    return this.searchVolumeOffers("/api/v0/network_volumes/search/", query, signal);
  }

  private async searchVolumeOffers(
    path: string,
    query: VolumeOfferQuery | string,
    signal: AbortSignal | undefined,
  ): Promise<Search<VolumeOffer>> {
    const compiled = compileVolumeOfferQuery(query);
    const body = await this.transport.request({
      method: "POST",
      path,
      body: compiled.body,
      response: volumeOffersSchema,
      signal,
    });
    return split(body.offers, (offer) => compiled.mismatch(offer));
  }
}

function split<O>(offers: O[], mismatch: (offer: O) => string | undefined): Search<O> {
  const result: Search<O> = { offers: [], rejected: [] };
  for (const offer of offers) {
    const reason = mismatch(offer);
    if (reason === undefined) result.offers.push(offer);
    else result.rejected.push({ offer, reason });
  }
  return result;
}

/** The body fields of both volume searches, local and network: the same in every document. */
const volumeSearchFields = [
  "allocated_storage",
  "cluster_id",
  "cpu_arch",
  "cuda_vers",
  "datacenter",
  "disk_bw",
  "disk_space",
  "driver_version",
  "duration",
  "external",
  "geolocation",
  "gpu_arch",
  "has_avx",
  "host_id",
  "id",
  "inet_down",
  "inet_up",
  "limit",
  "machine_id",
  "nw_disk_avg_bw",
  "nw_disk_max_bw",
  "nw_disk_min_bw",
  "order",
  "pci_gen",
  "pcie_bw",
  "reliability",
  "static_ip",
  "storage_cost",
  "total_flops",
  "ubuntu_version",
  "verified",
];

export const area: ClientArea = {
  property: "offers",
  Api: OffersApi,
  description: "Typed offer searches that check the answers (see searchOffers).",
  documents: {
    "POST /api/v0/bundles/": {
      by: documentedBy.all,
      body: [
        "allocated_storage",
        "bw_nvlink",
        "cluster_id",
        "compute_cap",
        "cpu_arch",
        "cpu_cores",
        "cpu_cores_effective",
        "cpu_ghz",
        "cpu_ram",
        "cuda_max_good",
        "datacenter",
        "direct_port_count",
        "disable_bundling",
        "disk_bw",
        "disk_space",
        "dlperf",
        "dlperf_per_dphtotal",
        "dph_total",
        "driver_version",
        "duration",
        "external",
        "flops_per_dphtotal",
        "geolocation",
        "gpu_arch",
        "gpu_display_active",
        "gpu_frac",
        "gpu_max_power",
        "gpu_max_temp",
        "gpu_mem_bw",
        "gpu_name",
        "gpu_ram",
        "gpu_total_ram",
        "has_avx",
        "host_id",
        "id",
        "inet_down",
        "inet_down_cost",
        "inet_up",
        "inet_up_cost",
        "limit",
        "machine_id",
        "min_bid",
        "mobo_name",
        "num_gpus",
        "order",
        "os_version",
        "pci_gen",
        "pcie_bw",
        "reliability",
        "rentable",
        "rented",
        "static_ip",
        "storage_cost",
        "total_flops",
        "type",
        "ubuntu_version",
        "verification",
        "verified",
        "vms_enabled",
      ],
    },
    "POST /api/v0/network_volumes/search/": { by: documentedBy.clients, body: volumeSearchFields },
    "POST /api/v0/volumes/search/": {
      by: documentedBy.all,
      query: ["q"],
      body: volumeSearchFields,
    },
  },
};
