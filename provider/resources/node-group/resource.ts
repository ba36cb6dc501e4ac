import type * as pulumi from "@pulumi/pulumi";
import { getProject, getStack } from "@pulumi/pulumi/metadata";
import type { z } from "zod";
import { DynamicResource, providerEntry } from "../../shim";
import { ownerOf } from "../../renting/identity";
import { stackSweeper, withSweeper } from "../../renting/stack-sweeper";
import { everyOutput, type OutputsOf } from "../../shared/class-outputs";
import {
  type GroupNode,
  type NodeGroupOutputs,
  type nodeGroupInputsSchema,
  nodeGroupOutputsSchema,
} from "./inputs";

/** What a program gives: the inputs' own types (inputs.ts), each a Pulumi input. */
type ProgramInputs = Omit<z.input<typeof nodeGroupInputsSchema>, "owner" | "stackToken">;
export type NodeGroupArgs = { [K in keyof ProgramInputs]: pulumi.Input<ProgramInputs[K]> };

/** Every input is also an output, holding the value as applied (`group.image`). */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- typed outputs, set by the engine
export interface NodeGroup extends OutputsOf<Omit<NodeGroupOutputs, "owner" | "stackToken">> {}

/**
 * `nodeCount` GPU instances in one physical cluster, on one overlay network (a private LAN on
 * all ports, for NCCL), with an optional network volume every node mounts; each node has
 * NODE_RANK, WORLD_SIZE and MASTER_ADDR in its environment. Create waits until every node runs,
 * or takes the whole group apart. See docs/reference/NodeGroup.md for every input and output.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class NodeGroup extends DynamicResource {
  declare readonly clusterId: pulumi.Output<number>;
  declare readonly overlayName: pulumi.Output<string>;
  declare readonly overlayId: pulumi.Output<number>;
  declare readonly subnet: pulumi.Output<string | null>;
  /** Rank 0's overlay address: the other nodes' MASTER_ADDR. */
  declare readonly masterAddr: pulumi.Output<string | null>;
  declare readonly networkVolumeId: pulumi.Output<number | null>;
  /** The nodes by rank: instance id, SSH host and port, overlay address. */
  declare readonly nodes: pulumi.Output<GroupNode[]>;
  declare readonly nodeCount: pulumi.Output<NodeGroupOutputs["nodeCount"]>;
  /**
   * What the nodes cost together, $/hour: each node's `dollarsPerHour` as the service reports
   * it (every node in `nodes` also shows its own and its `gpuName`); kept current by refresh.
   */
  declare readonly dollarsPerHour: pulumi.Output<number>;
  /**
   * With `maxLifetime`: when the group expires, fixed at its create (ISO 8601, UTC); every
   * node's watchdog then stops or destroys it. Undefined otherwise.
   */
  declare readonly expiresAt: pulumi.Output<string | undefined>;

  constructor(name: string, args: NodeGroupArgs, opts?: pulumi.CustomResourceOptions) {
    const sweeper = stackSweeper();
    super(
      providerEntry("pulumi-gpucloud/provider/resources/node-group"),
      name,
      {
        ...everyOutput(nodeGroupOutputsSchema),
        ...args,
        owner: ownerOf(getProject(), getStack(), name),
        stackToken: sweeper.stackToken,
        clusterId: undefined,
        overlayName: undefined,
        overlayId: undefined,
        subnet: undefined,
        masterAddr: undefined,
        networkVolumeId: undefined,
        nodes: undefined,
        dollarsPerHour: undefined,
        expiresAt: undefined,
      },
      // The sweeper exists before any node is rented and outlives every one (see it).
      { ...opts, dependsOn: withSweeper(opts?.dependsOn, sweeper) },
      "NodeGroup",
    );
  }
}
