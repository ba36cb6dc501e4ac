/**
 * The NodeGroup resource, one part per file in ./node-group/. This module's path is what every
 * group's state names (`pulumi-gpucloud/provider/resources/node-group`): it stays.
 */
import { dynamicProvider } from "../provider-runtime";
import { implementation } from "./node-group/provider";
import { withOwnerAndToken } from "../renting/identity";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import {
  nodeGroupInputsSchema,
  nodeGroupOutputsSchema,
  nodeGroupResourceInputs,
} from "./node-group/inputs";

export { implementation };
/** The dynamic door's provider, which every group's state names (provider/shim.ts). */
export const provider = dynamicProvider(implementation);

/** NodeGroup, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "NodeGroup",
  implementation,
  inputs: nodeGroupInputsSchema,
  outputs: nodeGroupOutputsSchema,
  description:
    "nodeCount GPU instances in one physical cluster, on one overlay network (a private LAN on " +
    "all ports, for NCCL), with an optional network volume every node mounts: multi-node " +
    "training as one resource. Each node has NODE_RANK, WORLD_SIZE and MASTER_ADDR (rank 0's " +
    "overlay address) in its environment. Create chooses the cheapest cluster that holds the " +
    "group and waits until every node runs, or takes the whole group apart.",
  rentsInstances: true,
  hidden: nodeGroupResourceInputs.hidden,
  importSecrets: ["env"],
  // As the class does: the owner, and the stack's token (renting/identity.ts).
  fill: withOwnerAndToken,
  packageTypes: ["NodeGroupArgs"],
  tests: {
    records: "instances",
    // Every node of the group is an instance of the account.
    isOnAccount: (outputs, account) => {
      const nodes = Array.isArray(outputs["nodes"]) ? (outputs["nodes"] as unknown[]) : [];
      return (
        nodes.length > 0 &&
        nodes.every((node) =>
          hasRecord("instances", "instanceId")(node as Record<string, unknown>, account),
        )
      );
    },
  },
  badInputs: () => [
    {
      what: "misspelled inputs",
      args: {
        nodeCount: 2,
        offerQuery: { gpuName: "H100 SXM" },
        image: "pytorch/pytorch",
        diskGb: 40,
        maxLifeTime: "8h",
        networkVolume: { sizeGb: 100, mountpath: "/data" },
      },
      cases: [
        {
          field: "maxLifeTime",
          says: /^maxLifeTime: not an input of NodeGroup; did you mean maxLifetime\?$/,
        },
        {
          field: "networkVolume.mountpath",
          says: /^networkVolume\.mountpath: not a field of networkVolume; did you mean mountPath\?$/,
        },
      ],
    },
  ],
  recorded: [
    {
      olds: recordedGroup(),
      // Fewer nodes: in place. More than the cluster holds replaces, which only the service can
      // say (the diff searches the cluster's offers): test/contract/node-groups.test.ts.
      changes: { nodeCount: [1], maxLifetime: ["8h"], onExpiry: ["stop"] },
      serviceDecides: ["nodeCount"],
    },
    // With a lifetime: another duration replaces, the same one written otherwise does not.
    {
      olds: recordedGroup({ maxLifetime: "3d", expiresAt: "2999-01-01T00:00:00Z" }),
      changes: { nodeCount: [1], maxLifetime: ["72h", "4d"], onExpiry: ["destroy", "stop"] },
      serviceDecides: ["nodeCount"],
    },
  ],
});

/** Test-only: a group of two running nodes as its state records it, with a lifetime if given. */
function recordedGroup(lifetime?: {
  maxLifetime: string;
  expiresAt: string;
}): Record<string, unknown> {
  const expiry = lifetime === undefined ? {} : { expiresAt: lifetime.expiresAt };
  return {
    nodeCount: 2,
    offerQuery: { gpuName: "H100 SXM" },
    image: "img",
    diskGb: 40,
    createTimeoutSeconds: 1200,
    pollIntervalSeconds: 3,
    ...(lifetime === undefined ? {} : { maxLifetime: lifetime.maxLifetime }),
    clusterId: 102,
    overlayName: "trainers-0123456789-abcdef",
    overlayId: 1,
    subnet: "10.100.0.0/24",
    masterAddr: "10.100.0.1",
    networkVolumeId: null,
    nodes: [0, 1].map((rank) => ({
      rank,
      instanceId: 1000 + rank,
      askId: 40000 + rank,
      machineId: 500 + rank,
      sshHost: "ssh1",
      sshPort: 20000 + rank,
      localIp: `10.100.0.${String(rank + 1)}`,
      actualStatus: "running",
      ...expiry,
    })),
    ...expiry,
  };
}
export { NodeGroup, type NodeGroupArgs } from "./node-group/resource";
export {
  nodeGroupInputsSchema,
  nodeGroupOutputsSchema,
  nodeGroupResourceInputs,
  type GroupNode,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "./node-group/inputs";
