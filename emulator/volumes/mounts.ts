import type { Instance } from "../instances/instance-state";
import type { InstanceAsk, VolumeAsk } from "../market/asks";
import { invalidArgs } from "../shared/http";
import type { State } from "../shared/state";
import type { Mount, NetworkVolume, Volume } from "./volume-state";

/**
 * Volumes on instances. A local volume lives on one machine, a network volume on one cluster's
 * network disk: an instance mounts the first only on that machine, the second only on a machine
 * of that cluster. A create names them in `volume_info` (the structured form) or in `-v
 * <name>:<path>` env entries (the official client's form), where the name is `V.<id>` or the
 * name given at the volume's create.
 */

export type AnyVolume =
  | { readonly kind: "local"; readonly volume: Volume }
  | { readonly kind: "network"; readonly volume: NetworkVolume };

export function findVolume(state: State, id: number): AnyVolume | undefined {
  const local = state.volumes.find((v) => v.id === id);
  if (local) return { kind: "local", volume: local };
  const network = state.networkVolumes.find((v) => v.id === id);
  return network ? { kind: "network", volume: network } : undefined;
}

/** `V.<id>`, or the label given at create (which must then name one volume only). */
function volumeNamed(state: State, name: string, field: string): AnyVolume {
  const byId = /^V\.([0-9]+)$/.exec(name);
  if (byId?.[1] !== undefined) {
    const found = findVolume(state, Number(byId[1]));
    if (found) return found;
  }
  const labelled: AnyVolume[] = [
    ...state.volumes
      .filter((v) => v.label === name)
      .map((volume): AnyVolume => ({ kind: "local", volume })),
    ...state.networkVolumes
      .filter((v) => v.label === name)
      .map((volume): AnyVolume => ({ kind: "network", volume })),
  ];
  const [only, ...others] = labelled;
  if (!only) throw invalidArgs(`${field}: no volume named ${name}`);
  if (others.length > 0)
    throw invalidArgs(`${field}: ${String(labelled.length)} volumes are named ${name}`);
  return only;
}

/** The ask a local volume was made from: recorded with it, else the market's. */
export function volumeAskOf(state: State, volume: Volume): VolumeAsk | undefined {
  return volume.offer ?? state.volumeAsks.find((ask) => ask.id === volume.askId);
}

/** Refuses a volume that an instance rented from `ask` cannot reach. */
function checkReachable(state: State, found: AnyVolume, ask: InstanceAsk, field: string): void {
  const name = `V.${String(found.volume.id)}`;
  if (found.kind === "local") {
    const machine = volumeAskOf(state, found.volume)?.machineId;
    if (machine !== ask.machineId) {
      throw invalidArgs(
        `${field}: volume ${name} is on machine ${String(machine)}; ` +
          `ask ${String(ask.id)} is on machine ${String(ask.machineId)}`,
      );
    }
    return;
  }
  if (found.volume.clusterId !== ask.clusterId) {
    const where = ask.clusterId === null ? "in no cluster" : `in cluster ${String(ask.clusterId)}`;
    throw invalidArgs(
      `${field}: network volume ${name} is on cluster ${String(found.volume.clusterId)}; ` +
        `ask ${String(ask.id)} is on machine ${String(ask.machineId)}, ${where}`,
    );
  }
}

/** A volume a create names in a `-v <name>:<path>` env entry; `field` names the entry. */
export interface NamedMount {
  readonly name: string;
  readonly mountPath: string;
  readonly field: string;
}

/** The mounts of a create, each checked against the ask's machine and cluster. */
export function resolveMounts(
  state: State,
  ask: InstanceAsk,
  volumeInfo: { volume_id: number; mount_path: string } | undefined,
  fromEnv: readonly NamedMount[],
): { volume: Mount | null; mounts: Mount[] } {
  let volume: Mount | null = null;
  if (volumeInfo) {
    const found = findVolume(state, volumeInfo.volume_id);
    if (!found) {
      throw invalidArgs(`volume_info.volume_id: no volume ${String(volumeInfo.volume_id)}`);
    }
    checkReachable(state, found, ask, "volume_info.volume_id");
    volume = { volumeId: found.volume.id, mountPath: volumeInfo.mount_path };
  }
  const mounts: Mount[] = [];
  for (const { name, mountPath, field } of fromEnv) {
    const found = volumeNamed(state, name, field);
    checkReachable(state, found, ask, field);
    mounts.push({ volumeId: found.volume.id, mountPath });
  }
  return { volume, mounts };
}

export function mountsOf(instance: Instance): Mount[] {
  return [...(instance.volume ? [instance.volume] : []), ...instance.mounts];
}

/** Ids of the instances (running or stopped) that mount a volume. */
export function mountedBy(state: State, volumeId: number): number[] {
  return state.instances
    .filter((instance) => mountsOf(instance).some((mount) => mount.volumeId === volumeId))
    .map((instance) => instance.id);
}
