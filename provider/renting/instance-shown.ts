import type { Instance as InstanceWire } from "../client";
import { atServicePrecision } from "../shared/price-precision";
import { localIpOf } from "./placement";
import { portsShownBy } from "./ports";

// What the service shows of an instance, as its outputs record it (a create, a read, an import).

/**
 * The outputs of an instance as the service last showed it; `overlaySubnet` picks its overlay
 * address for `localIp`.
 */
export function connectionOutputs(instance: InstanceWire | undefined, overlaySubnet?: string) {
  return {
    actualStatus: instance?.actual_status ?? null,
    sshHost: instance?.ssh_host ?? null,
    sshPort: instance?.ssh_port ?? null,
    publicIp: instance?.public_ipaddr ?? null,
    gpuRamMb: instance?.gpu_ram ?? null,
    statusMessage: instance?.status_msg ?? null,
    intendedStatus: instance?.intended_status ?? null,
    localIp: localIpOf(instance?.local_ipaddrs, overlaySubnet),
    // What the service reports the instance costs, $/hour (`dph_total`: its GPU and its disk),
    // less a prepaid instance's discount (`credit_discount`: `dph_total` stays the listed price).
    dollarsPerHour: atServicePrecision(discountedTotal(instance)),
    ...portsShownBy(instance),
  };
}

/** `dph_total` less the discount a prepay bought (null when the service shows no price). */
export function discountedTotal(instance: InstanceWire | undefined): number | null {
  const total = instance?.dph_total;
  if (total === undefined || total === null) return null;
  return total * (1 - (instance?.credit_discount ?? 0));
}

/** What an instance was rented from, as it shows it (for instances rented by ask id). */
export function offerShownBy(instance: InstanceWire | undefined) {
  if (instance?.bundle_id === undefined || instance.bundle_id === null) return undefined;
  return {
    askId: instance.bundle_id,
    gpuName: instance.gpu_name ?? null,
    numGpus: instance.num_gpus ?? null,
    dollarsPerHour: atServicePrecision(instance.dph_total ?? null),
    machineId: instance.machine_id ?? null,
  };
}
