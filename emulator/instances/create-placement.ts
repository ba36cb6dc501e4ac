import type { InstanceAsk } from "../market/asks";
import { ApiError, invalidArgs } from "../shared/http";
import type { State } from "../shared/state";
import { type NamedMount, resolveMounts } from "../volumes/mounts";
import type { Mount } from "../volumes/volume-state";
import type { Instance } from "./instance-state";
import { checkCanJoin, freeAddress } from "./overlays";

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

/** What a create's env asks beyond variables: overlays (`-n`) and mounts (`-v`). */
interface EnvDirectives {
  readonly overlayNames: readonly string[];
  readonly mounts: readonly NamedMount[];
}

/**
 * The official client sends `-n NAME` and `-v NAME:PATH` as env keys with the value "1"; a
 * flag with its value (`{"-n": "NAME"}`, as the client sends `-h`) is read the same way.
 */
function envDirectives(env: Readonly<Record<string, string>>): EnvDirectives {
  const overlayNames: string[] = [];
  const mounts: NamedMount[] = [];
  for (const [key, value] of Object.entries(env)) {
    const flag = /^(-[nv])(?:\s+(\S+))?\s*$/.exec(key.trim());
    if (!flag) continue;
    const argument = flag[2] ?? value.trim();
    const field = `env["${key}"]`;
    if (flag[1] === "-n") {
      overlayNames.push(argument);
      continue;
    }
    const colon = argument.indexOf(":");
    const mountPath = colon < 0 ? "" : argument.slice(colon + 1);
    if (colon <= 0 || !mountPath.startsWith("/")) {
      throw invalidArgs(`${field}: must be -v <volume name>:<absolute mount path>`);
    }
    mounts.push({ name: argument.slice(0, colon), mountPath, field });
  }
  return { overlayNames, mounts };
}

export function placementOf(
  state: State,
  ask: InstanceAsk,
  request: {
    runtype: string;
    env: Readonly<Record<string, string>>;
    volumeInfo: { volume_id: number; mount_path: string } | undefined;
  },
  /** Free overlay addresses the join skips (a fault, control/faults.ts), asked only on a join. */
  addressSkip: () => number = () => 0,
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
    overlay: { overlayId: overlay.id, address: freeAddress(state, overlay, addressSkip()) },
  };
}
