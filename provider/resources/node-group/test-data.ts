// Test-only: what the tests try on a NodeGroup (its descriptor's `badInputs` and `recorded`).
import type { BadInput, RecordedState } from "../../shared/resource-descriptor";
import { type NodeGroupInputs, nodeGroupInputsSchema, type NodeGroupOutputs } from "./inputs";

/** Bad input as a new user writes it. */
export function nodeGroupBadInputs(): readonly BadInput[] {
  return [
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
    {
      what: "idleShutdown beyond maxLifetime",
      args: {
        nodeCount: 2,
        offerQuery: { gpuName: "H100 SXM" },
        image: "pytorch/pytorch",
        diskGb: 40,
        maxLifetime: "30m",
        idleShutdown: { after: "2h", action: "stop" },
      },
      cases: [
        { field: "idleShutdown.after", says: /^idleShutdown\.after: is longer than maxLifetime/ },
      ],
    },
  ];
}

/**
 * A group of two nodes as its state records it once every node runs, each node's deadline
 * `expiresAt` when it has one. The unit tests of the diff start from it too.
 */
export function runningGroup(inputs: NodeGroupInputs, expiresAt?: string): NodeGroupOutputs {
  const expiry = expiresAt === undefined ? {} : { expiresAt };
  return {
    ...inputs,
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

/** A group, and one with a lifetime, as their states record them. */
export function nodeGroupRecorded(): readonly RecordedState[] {
  // What a program gives least, at the schema's defaults.
  const leastInputs = nodeGroupInputsSchema.parse({
    nodeCount: 2,
    offerQuery: { gpuName: "H100 SXM" },
    image: "img",
    diskGb: 40,
  });
  return [
    {
      olds: runningGroup(leastInputs),
      // Fewer nodes: in place. More than the cluster holds replaces, which only the service can
      // say (the diff searches the cluster's offers): test/contract/node-groups.test.ts.
      changes: { nodeCount: [1], maxLifetime: ["8h"], onExpiry: ["stop"] },
      serviceDecides: ["nodeCount"],
    },
    // With a lifetime and a bid: another duration replaces, the same one written otherwise
    // does not.
    {
      olds: runningGroup(
        { ...leastInputs, maxLifetime: "3d", idleShutdown: { after: "30m" }, price: 3 },
        "2999-01-01T00:00:00Z",
      ),
      changes: {
        nodeCount: [1],
        maxLifetime: ["72h", "4d"],
        onExpiry: ["destroy", "stop"],
        // Another idle rule rebuilds every node in place; the same one written otherwise is recorded.
        idleShutdown: [{ after: "1800s", action: "destroy" }, { after: "1h" }],
        // Interruptible nodes: a new bid changes in place; removing it replaces (on-demand).
        price: [3.5, undefined],
      },
      serviceDecides: ["nodeCount"],
    },
  ];
}
