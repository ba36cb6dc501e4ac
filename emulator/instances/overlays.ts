import type { InstanceAsk } from "../market/asks";
import { invalidArgs } from "../shared/http";
import type { State } from "../shared/state";
import type { Instance, Overlay } from "./instance-state";

/**
 * Overlay networks: a private LAN on one physical cluster for the instances that join it. Each
 * member gets the lowest free address of the overlay's /24, shown first in its
 * `local_ipaddrs` while it runs (the interface the multi-node guide calls eth0).
 */

/** The clusters of the account's market: those its instance asks name. */
export function clusterIds(state: State): Set<number> {
  return new Set(
    state.instanceAsks.flatMap((ask) => (ask.clusterId === null ? [] : [ask.clusterId])),
  );
}

/** Overlays are apart from each other and from the instances' other 10.0.x.y address. */
export function subnetOf(overlayId: number): string {
  return `10.${String(100 + ((overlayId - 1) % 150))}.0.0/24`;
}

export function members(state: State, overlayId: number): Instance[] {
  return state.instances
    .filter((instance) => instance.overlay?.overlayId === overlayId)
    .sort((a, b) => a.id - b.id);
}

/**
 * Refuses what cannot join: an instance on a machine outside the overlay's cluster, a VM (the
 * guide: private networking is for Docker instances only), or one on another overlay.
 */
export function checkCanJoin(
  overlay: Overlay,
  joiner: { ask: InstanceAsk; runtype: string; current: Instance["overlay"]; label: string },
): void {
  const { ask, runtype, current, label } = joiner;
  if (ask.clusterId !== overlay.clusterId) {
    const where = ask.clusterId === null ? "in no cluster" : `in cluster ${String(ask.clusterId)}`;
    throw invalidArgs(
      `${label} is on machine ${String(ask.machineId)}, ${where}; overlay ${overlay.name} ` +
        `is on cluster ${String(overlay.clusterId)}`,
    );
  }
  if (runtype === "vm") {
    throw invalidArgs(`${label} is a VM; overlay networks are for container instances only`);
  }
  if (current !== null && current.overlayId !== overlay.id) {
    throw invalidArgs(`${label} is already on overlay ${String(current.overlayId)}`);
  }
}

/**
 * The lowest free address of an overlay, or with `skip` the one that many free addresses above
 * it (a fault, control/faults.ts); checked before any change, so a full one changes nothing.
 */
export function freeAddress(state: State, overlay: Overlay, skip = 0): string {
  const taken = new Set(members(state, overlay.id).map((m) => m.overlay?.address));
  const prefix = overlay.subnet.replace(/\.0\/24$/, ".");
  let skipped = 0;
  for (let host = 1; host <= 254; host++) {
    const address = `${prefix}${String(host)}`;
    if (taken.has(address)) continue;
    if (skipped === skip) return address;
    skipped += 1;
  }
  throw invalidArgs(`overlay ${overlay.name} is full (254 instances)`);
}

/** Deleting an overlay takes its members off it; the instances themselves stay. */
export function removeOverlay(state: State, overlay: Overlay): number[] {
  const left = members(state, overlay.id);
  for (const instance of left) instance.overlay = null;
  state.overlays = state.overlays.filter((o) => o.id !== overlay.id);
  return left.map((instance) => instance.id);
}
