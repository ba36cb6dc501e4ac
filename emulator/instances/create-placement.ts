import type { Mount } from "../market/cluster-state";
import { ApiError, invalidArgs } from "../shared/http";
import { envDirectives, resolveMounts } from "../volumes/mounts";
import type { InstanceAsk } from "../options";
import { checkCanJoin, freeAddress } from "./overlays";
import type { Instance, State } from "../shared/state";

/**
 * What a create says about where a new instance sits beyond its machine: the volumes it mounts
 * (`volume_info`, `-v` env entries) and the overlay it joins (a `-n` env entry). Everything is
 * checked before the instance exists, so that a refused create changes nothing.
 */
export interface Placement {
  readonly volume: Mount | null;
  readonly mounts: Mount[];
  readonly overlay: Instance["overlay"];
}

export function placementOf(
  state: State,
  ask: InstanceAsk,
  request: {
    runtype: string;
    env: Readonly<Record<string, string>>;
    volumeInfo: { volume_id: number; mount_path: string } | undefined;
  },
): Placement {
  const directives = envDirectives(request.env);
  // The service's volume guide: volumes are for docker instances only, never for VMs.
  if (
    request.runtype === "vm" &&
    (request.volumeInfo !== undefined || directives.mounts.length > 0)
  ) {
    throw invalidArgs("volume_info: volumes are only supported for docker instances, not VMs");
  }
  const { volume, mounts } = resolveMounts(state, ask, request.volumeInfo, directives.mounts);
  const [name, ...more] = directives.overlayNames;
  if (name === undefined) return { volume, mounts, overlay: null };
  if (more.length > 0) {
    throw new ApiError(400, "invalid_args", "env: -n names more than one overlay");
  }
  const overlay = state.overlays.find((o) => o.name === name);
  if (!overlay) throw new ApiError(400, "invalid_args", `env: -n names no overlay ${name}`);
  checkCanJoin(overlay, {
    ask,
    runtype: request.runtype,
    current: null,
    label: `ask ${String(ask.id)}`,
  });
  return {
    volume,
    mounts,
    overlay: { overlayId: overlay.id, address: freeAddress(state, overlay) },
  };
}
