import type { Overlay, SshKey } from "../../client";
import type { Reservation } from "../../run/budget";
import type { Run } from "../../run/run";
import type { Expiry } from "../../shared/expiry-watchdog";
import type { GroupNode, NodeGroupInputs } from "./inputs";

// What a group's create and resize share with the renting of its ranks (ranks.ts): apart from
// both, so that neither imports the other.

/**
 * A group create's witness and what it proves (renting/group-witness.ts): every node carries the
 * create's marker; rank 0 keeps the being-created label until every node runs, the other ranks
 * are handed over as their rents are answered.
 */
export interface CreateWitness {
  /** The create's marker, in every node's environment (`PULUMI_GPUCLOUD_GROUP_CREATE`). */
  readonly marker: string;
  /** Rank 0's instance once its rent is answered: destroyed only after every other node. */
  readonly instanceIds: Set<number>;
  /** The other ranks' instances, relabelled with the program's label at their rent. */
  readonly handedOver: Set<number>;
}

/** What one create (or one resize) works with and has made so far. */
export interface GroupBuild {
  /** The run the create belongs to: its client, its cancellation, what its creates share. */
  readonly run: Run;
  readonly inputs: NodeGroupInputs;
  readonly name: string;
  readonly progress: (message: string) => void;
  readonly clusterId: number;
  readonly overlay: Overlay;
  readonly networkVolumeId: number | null;
  /** Rented and not recorded yet: taken apart if the create fails or the engine goes away. */
  readonly unrecorded: Set<number>;
  /** Offers this create chose, which other creates of the run leave to it until it ends. */
  readonly claimed: Set<number>;
  readonly nodes: Map<number, GroupNode>;
  /** The account's SSH keys every node gets once it runs (sshKeyIds), looked up once. */
  readonly sshKeys: readonly SshKey[];
  readonly deadlineMs: number;
  /** The group's one expiry (maxLifetime), fixed at its create; every node rented gets it. */
  readonly expiry: Expiry | undefined;
  /**
   * The group's hold on the stack's cap (run/budget.ts), for every node at once, reserved
   * before anything is made: each node's rent spends it first. Undefined without a cap.
   */
  readonly budgetHold?: Reservation | undefined;
  /**
   * A create's witness. Undefined for a resize: the ranks it adds carry no create marker (one
   * would make the group's nodes look like an unfinished create's) and are handed over once
   * every one runs.
   */
  readonly witness?: CreateWitness | undefined;
}
