import { randomBytes } from "node:crypto";
import { environmentOf, type GpuCloudClient, type Instance as InstanceWire } from "../client";
import { groupOwnerOfNode, nodeOwnerOf } from "./group-ownership";
import { isLeftoverOf, ownerOfInstance, stackTokenVariable } from "./identity";

// A group create's witness (docs/maintainers/ownership.md, "A group's hand-over"). Every node of
// one group create carries the create's marker in its environment, fixed at rent. Rank 0's
// instance keeps the being-created label until every node runs and is relabelled last; the
// other ranks are handed over as soon as their rents are answered, during the boot. So while an
// instance of the create still carries this stack's being-created label, the create never
// finished, and every node carrying its marker is a leftover, whatever its label. A node whose
// witness is gone proves nothing (a kept group's rank 0 may have been destroyed by hand): it is
// never destroyed. So whatever destroys an unfinished group destroys the other nodes first and
// the witness last, and never destroys a witness while another node of its create may remain.

/** One per group create: ties each of its nodes to the create's witness. */
export const groupCreateVariable = "PULUMI_GPUCLOUD_GROUP_CREATE";

/** A fresh marker for one group create: 128 random bits, base64url. */
export function newGroupCreateMarker(): string {
  return randomBytes(16).toString("base64url");
}

/** The group create an instance was rented by: its group's owner and the create's marker. */
function createKeyOf(instance: InstanceWire): string | undefined {
  const groupOwner = groupOwnerOfNode(instance);
  const marker = environmentOf(instance)[groupCreateVariable];
  if (groupOwner === undefined || marker === undefined || marker === "") return undefined;
  return `${groupOwner}\n${marker}`;
}

/**
 * A node of this stack still labelled as being created, rented by a group create that marks its
 * nodes: the proof that the create never finished. Destroyed only after every other node of its
 * create (see {@link inDestroyOrder}).
 */
export function isWitness(instance: InstanceWire, stackToken: string): boolean {
  return isLeftoverOf(instance, stackToken) && createKeyOf(instance) !== undefined;
}

/** What a look for the other nodes of unfinished group creates found. */
export interface WitnessedNodes {
  /** Handed over, of this stack, of a create a witness proves unfinished: leftovers. */
  readonly siblings: InstanceWire[];
  /**
   * Of this stack and of a group a witness was found for, marked by a create that no instance
   * proves unfinished any more and that has no rank 0 left (its witness is gone): nothing proves
   * them leftovers, so they are left alone and only reported.
   */
  readonly unproven: InstanceWire[];
}

/**
 * The other nodes of the group creates that `leftovers` prove unfinished (the witnesses among
 * them): handed over, carrying this stack's token in their environment, the witness's group and
 * create marker. Each one is proven by its own environment; its label, its overlay and when it
 * joined it prove nothing. Costs nothing without a witness, and otherwise one list of the
 * account's instances (a page per 25): a witness is found only after an interrupted create.
 * `eligible` leaves out what the caller must not touch (what its run rented or records).
 */
export async function nodesWitnessedBy(
  client: GpuCloudClient,
  leftovers: readonly InstanceWire[],
  stackToken: string,
  eligible: (instance: InstanceWire) => boolean = () => true,
): Promise<WitnessedNodes> {
  const witnesses = leftovers.filter((instance) => isWitness(instance, stackToken));
  if (witnesses.length === 0) return { siblings: [], unproven: [] };
  const witnessed = new Set(witnesses.map((instance) => createKeyOf(instance)));
  const groups = new Set(witnesses.map((instance) => groupOwnerOfNode(instance)));
  const ofThisStack = (await client.instances.list()).filter(
    (instance) =>
      environmentOf(instance)[stackTokenVariable] === stackToken &&
      createKeyOf(instance) !== undefined &&
      groups.has(groupOwnerOfNode(instance)),
  );
  // Decided on this list alone: a create is unfinished while it shows a witness of it.
  const unfinished = new Set(
    ofThisStack.filter((i) => isLeftoverOf(i, stackToken)).map((i) => createKeyOf(i)),
  );
  const handedOver = ofThisStack.filter((instance) => !isLeftoverOf(instance, stackToken));
  return {
    siblings: handedOver.filter((instance) => {
      const key = createKeyOf(instance);
      return witnessed.has(key) && unfinished.has(key) && eligible(instance);
    }),
    unproven: handedOver.filter((instance) => {
      const key = createKeyOf(instance);
      return !unfinished.has(key) && !hasRankZero(ofThisStack, key);
    }),
  };
}

/** Whether a node of the create `key` is rank 0 (its witness, or a finished create's). */
function hasRankZero(instances: readonly InstanceWire[], key: string | undefined): boolean {
  return instances.some((instance) => {
    const groupOwner = groupOwnerOfNode(instance);
    return (
      createKeyOf(instance) === key &&
      groupOwner !== undefined &&
      ownerOfInstance(instance) === nodeOwnerOf(groupOwner, 0)
    );
  });
}

/**
 * Leftovers in the order they may be destroyed: every instance that is not a witness first (at
 * once), then the witnesses, only once the first are all confirmed gone.
 */
export function inDestroyOrder<T extends InstanceWire>(
  leftovers: readonly T[],
  stackToken: string,
): { first: T[]; witnesses: T[] } {
  return {
    first: leftovers.filter((instance) => !isWitness(instance, stackToken)),
    witnesses: leftovers.filter((instance) => isWitness(instance, stackToken)),
  };
}

/** The line that reports a node no witness proves a leftover: it is left alone. */
export function unprovenNodeNote(instance: InstanceWire): string {
  return (
    `keeping instance ${instance.id} (${ownerOfInstance(instance) ?? ""}): it carries this ` +
    `stack's ${groupCreateVariable} of a group create whose witness (rank 0, labelled as being ` +
    `created) is gone, so nothing proves that create unfinished; destroy it by hand if no stack ` +
    `records it`
  );
}
