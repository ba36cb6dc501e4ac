import {
  SAMPLE_VOLUME_ASK,
  dollars,
  storageDollarsPerHour,
  volumeMachineColumns,
} from "../market/offers";
import type { State } from "../shared/state";
import { mountedBy, volumeAskOf } from "./mounts";
import type { NetworkVolume, Volume } from "./volume-state";

/**
 * The account's volumes as GET /api/v0/volumes/ lists them: local and network volumes in one
 * shape. A network disk belongs to a cluster, not to a machine, so its machine columns are null.
 */

const UNKNOWN_MACHINE = Object.fromEntries(
  Object.keys(volumeMachineColumns(SAMPLE_VOLUME_ASK)).map((key) => [key, null]),
);

export function describeVolume(volume: Volume, state: State) {
  const ask = volumeAskOf(state, volume);
  return {
    id: volume.id,
    name: `V.${String(volume.id)}`,
    status: "created",
    label: volume.label,
    disk_space: volume.sizeGb,
    ask_id: volume.askId,
    start_date: volume.createdAtMs / 1000,
    // The instances that mount it (linked at create or through `-v`).
    instances: mountedBy(state, volume.id),
    cluster_id: ask?.clusterId ?? null,
    ...(ask ? volumeMachineColumns(ask) : UNKNOWN_MACHINE),
    storage_total_cost: ask
      ? dollars(storageDollarsPerHour(ask.storageCostPerGbMonth, volume.sizeGb))
      : null,
  };
}

/** A network volume as the volume list shows it: the local volume row's fields. */
export function describeNetworkVolume(volume: NetworkVolume, state: State) {
  const ask = volume.offer;
  return {
    id: volume.id,
    name: `V.${String(volume.id)}`,
    status: "created",
    label: volume.label,
    disk_space: volume.sizeGb,
    ask_id: volume.askId,
    start_date: volume.createdAtMs / 1000,
    instances: mountedBy(state, volume.id),
    cluster_id: volume.clusterId,
    machine_id: null,
    host_id: ask.hostId,
    cpu_arch: null,
    cpu_name: null,
    mobo_name: null,
    disk_name: null,
    driver_version: null,
    cuda_max_good: null,
    os_version: null,
    inet_up: ask.inetUpMbps,
    inet_down: ask.inetDownMbps,
    public_ipaddr: null,
    reliability2: ask.reliability,
    static_ip: true,
    verification: ask.verification,
    geolocation: ask.geolocation,
    storage_total_cost: dollars(storageDollarsPerHour(ask.storageCostPerGbMonth, volume.sizeGb)),
  };
}
