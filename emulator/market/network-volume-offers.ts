import type { Row } from "../shared/query";
import type { State } from "../shared/state";
import type { NetworkVolumeAsk } from "./asks";
import { countryCode, dollars, storageDollarsPerHour } from "./offers";

/**
 * Network-volume offers as the service shows them (POST /api/v0/network_volumes/search/). A
 * network disk belongs to a cluster, not to a machine, so the machine's own columns are null.
 */

/** GB of an ask not yet cut into the account's network volumes. */
export function freeGb(ask: NetworkVolumeAsk, state: State): number {
  const used = state.networkVolumes
    .filter((volume) => volume.askId === ask.id)
    .reduce((sum, volume) => sum + volume.sizeGb, 0);
  return Math.max(0, ask.diskGb - used);
}

/** The fields the official client shows (`search network-volumes`) and orders by. */
export function describeNetworkVolumeOffer(
  ask: NetworkVolumeAsk,
  availableGb: number,
  allocatedStorageGb: number,
  nowSeconds: number,
) {
  return {
    id: ask.id,
    ask_contract_id: ask.id,
    cluster_id: ask.clusterId,
    machine_id: null,
    host_id: ask.hostId,
    disk_space: availableGb,
    storage_cost: ask.storageCostPerGbMonth,
    storage_total_cost: dollars(
      storageDollarsPerHour(ask.storageCostPerGbMonth, allocatedStorageGb),
    ),
    inet_up: ask.inetUpMbps,
    inet_down: ask.inetDownMbps,
    reliability: ask.reliability,
    reliability2: ask.reliability,
    verification: ask.verification,
    external: ask.external,
    geolocation: ask.geolocation,
    duration: Math.max(0, ask.endsAtSeconds - nowSeconds),
    start_date: ask.listedAtSeconds,
    end_date: ask.endsAtSeconds,
    nw_disk_min_bw: ask.nwDiskMinBwMbps,
    nw_disk_max_bw: ask.nwDiskMaxBwMbps,
    nw_disk_avg_bw: ask.nwDiskAvgBwMbps,
    // What the official client orders by by default (`-o score-`).
    score: dollars((ask.nwDiskAvgBwMbps / 1000) * ask.reliability),
  };
}

/** The row filters see: the answered fields plus the rest of the client's volume-query fields. */
export function networkVolumeOfferFilterView(ask: NetworkVolumeAsk, offer: Row): Row {
  return {
    ...offer,
    geolocation: countryCode(ask.geolocation),
    verified: ask.verification === "verified",
    datacenter: true,
    static_ip: true,
    // Attributes of a machine, which a network disk is not: null, so that no comparison holds.
    cpu_arch: null,
    cuda_vers: null,
    disk_bw: null,
    driver_version: null,
    gpu_arch: null,
    has_avx: null,
    pci_gen: null,
    pcie_bw: null,
    total_flops: null,
    ubuntu_version: null,
  };
}
