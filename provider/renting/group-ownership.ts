import { createHash, randomBytes } from "node:crypto";
import {
  environmentOf,
  type GpuCloudClient,
  type Instance as InstanceWire,
  type Overlay,
  type Volume,
} from "../client";
import { isLeftoverOf, ownerOfInstance, resourceNameOf } from "./identity";

// What makes a node, an overlay or a network volume a group's own
// (docs/maintainers/ownership.md). Nodes are instances and follow the instances' rules: this
// stack's token in their environment, the being-created label until they are handed over. An overlay or a volume carries
// nothing but its name: the name holds a digest of the stack's token and the group's name,
// which no other stack can make, and one made by an interrupted create is told apart from a
// kept one by its members (see isLeftoverOverlay).

/** What names a group's nodes and parts: the group's owner and the stack's token. */
export interface GroupIdentity {
  /** `<project>/<stack>/<group name>`. */
  readonly owner?: string | undefined;
  readonly stackToken?: string | undefined;
}

/** A node's owner: the group's, with its rank, e.g. `ml/dev/trainers/node-3`. */
export function nodeOwnerOf(groupOwner: string, rank: number): string {
  return `${groupOwner}/node-${rank}`;
}

/**
 * Every node carries its group's owner in this variable: an Instance never does, so that no
 * resource name (an Instance called `trainers/node-0`, a group called `trainers/node-1`) makes
 * one resource's instance look like another's.
 */
export const groupVariable = "PULUMI_GPUCLOUD_GROUP";

export function isNodeOf(instance: InstanceWire, groupOwner: string): boolean {
  const owner = ownerOfInstance(instance) ?? "";
  return (
    environmentOf(instance)[groupVariable] === groupOwner &&
    owner.startsWith(`${groupOwner}/node-`) &&
    /^\d+$/.test(owner.slice(`${groupOwner}/node-`.length))
  );
}

/** The group a node belongs to (its marker), or undefined for an instance of no group. */
export function groupOwnerOfNode(instance: InstanceWire): string | undefined {
  const groupOwner = environmentOf(instance)[groupVariable];
  return groupOwner !== undefined && isNodeOf(instance, groupOwner) ? groupOwner : undefined;
}

/** A node an interrupted create of this group rented and never handed over. */
export function isLeftoverNode(instance: InstanceWire, inputs: GroupIdentity): boolean {
  const { owner, stackToken } = inputs;
  if (owner === undefined || stackToken === undefined) return false;
  return isLeftoverOf(instance, stackToken) && isNodeOf(instance, owner);
}

/**
 * `<name>-<digest>-`: what every overlay and network volume of this group starts with. The
 * service takes overlay names of lowercase letters, digits and `-`, at most 64 characters.
 */
export function namePrefixOf(inputs: GroupIdentity): string | undefined {
  const { owner, stackToken } = inputs;
  if (owner === undefined || stackToken === undefined) return undefined;
  const name = resourceNameOf(owner);
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 32) || "group";
  const digest = createHash("sha256").update(`${stackToken}/${owner}`).digest("hex").slice(0, 10);
  return `${slug}-${digest}-`;
}

/** A fresh name for this create's overlay (and network volume). */
export function newGroupName(inputs: GroupIdentity): string {
  const suffix = randomBytes(3).toString("hex");
  return `${namePrefixOf(inputs) ?? "group-"}${suffix}`;
}

/**
 * An overlay an interrupted create of this group made: its name carries the group's prefix,
 * and it holds no instance but this group's leftover nodes. An overlay with a member that was
 * handed over (a group kept with `retainOnDelete` or dropped from the state) is never one.
 */
export function isLeftoverOverlay(
  overlay: Overlay,
  inputs: GroupIdentity,
  leftoverNodeIds: ReadonlySet<number>,
): boolean {
  const prefix = namePrefixOf(inputs);
  if (prefix === undefined || !overlay.name.startsWith(prefix)) return false;
  return (overlay.instances ?? []).every((id) => leftoverNodeIds.has(id));
}

/**
 * A network volume an interrupted create of this group made: it has the name of an overlay that
 * holds at least one of this group's leftover nodes (a create names both alike), so that create
 * never finished. A volume may hold data: one whose create cannot be proven unfinished (its
 * overlay gone, or empty) is never deleted, only reported.
 */
export function isProvenLeftoverVolume(
  volume: Volume,
  unfinishedOverlayNames: ReadonlySet<string>,
): boolean {
  return (
    volume.cluster_id !== null &&
    volume.cluster_id !== undefined &&
    unfinishedOverlayNames.has(volume.label ?? "")
  );
}

/** A network volume named as this group's, whatever its create became. */
export function hasGroupPrefix(volume: Volume, inputs: GroupIdentity): boolean {
  const prefix = namePrefixOf(inputs);
  return prefix !== undefined && (volume.label ?? "").startsWith(prefix);
}

/**
 * What interrupted group creates made around the given leftover instances (a stack's, found by
 * the InstanceSweeper): each overlay of a node's group (its name carries the group's prefix)
 * whose every member is one of them (at least one), and the network volumes named as those
 * overlays. Instances of no group prove nothing about an overlay they joined (a standalone
 * Overlay the program keeps). Read before the instances are destroyed: a destroyed node leaves
 * its overlay, and an empty overlay proves nothing.
 */
export async function partsAround(
  client: GpuCloudClient,
  leftovers: readonly InstanceWire[],
  stackToken: string,
): Promise<{ overlays: Overlay[]; volumes: Volume[] }> {
  const ids = new Set(leftovers.map((instance) => instance.id));
  const prefixes = new Set(
    leftovers
      .map((instance) => groupOwnerOfNode(instance))
      .filter((owner) => owner !== undefined)
      .map((owner) => namePrefixOf({ owner, stackToken }))
      .filter((prefix) => prefix !== undefined),
  );
  if (prefixes.size === 0) return { overlays: [], volumes: [] };
  const overlays = (await client.overlays.list()).filter(
    (overlay) =>
      [...prefixes].some((prefix) => overlay.name.startsWith(prefix)) &&
      (overlay.instances ?? []).length > 0 &&
      (overlay.instances ?? []).every((id) => ids.has(id)),
  );
  if (overlays.length === 0) return { overlays, volumes: [] };
  const names = new Set(overlays.map((overlay) => overlay.name));
  const volumes = (await client.volumes.list()).filter((volume) =>
    isProvenLeftoverVolume(volume, names),
  );
  return { overlays, volumes };
}
