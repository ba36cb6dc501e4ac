import { z } from "zod";
import { atServicePrecision } from "../../shared/price-precision";
import { offerQueryInputSchema } from "../../shared/input-fields";
import { withExample } from "../../shared/reference-examples";
import { instanceInputsSchema } from "../../renting/instance-inputs";
import { portsOutputSchema, urlsOutputSchema } from "../../renting/ports";

// A node group's inputs and outputs: N instances of one physical cluster, on one overlay
// network, sharing an optional network volume. Each node is rented as an Instance would be
// (the same inputs, checks and steps); what is the group's own is below.

const node = instanceInputsSchema.shape;

export const nodeGroupInputsSchema = z.object({
  nodeCount: z
    .number({ error: "nodeCount must be a whole number of nodes, at least 1" })
    .int("nodeCount must be a whole number")
    .min(1, "nodeCount must be at least 1")
    .max(64, "nodeCount must be at most 64")
    .describe(
      "How many nodes (instances), 1 to 64, all in one physical cluster. Changing it adds or " +
        "removes the highest ranks in place when the cluster has room; otherwise the group is " +
        "replaced (preview says which).",
    )
    .meta({ replacement: "sometimes" }),
  offerQuery: offerQueryInputSchema
    .describe(
      "The offers the nodes are rented from: an OfferQuery (e.g. offers of 8 H100 SXM GPUs) " +
        "or the official client's query string. The cheapest " +
        "physical cluster with `nodeCount` matching offers is chosen. Changing it replaces " +
        "the group.",
    )
    .meta({ willReplaceOnChanges: true }),
  maxDollarsPerHour: node.maxDollarsPerHour
    .describe(
      "Never rent a node above this price, in dollars per hour (each node, not the group). " +
        "Changes in place: it applies to the nodes rented after.",
    )
    .meta({ replacement: "never" }),
  price: node.price.describe(
    "A bid for each node, in dollars per hour: interruptible nodes; on-demand when absent. A " +
      "changed bid changes in place on every node; adding or removing it replaces the group. " +
      "When a higher bid takes a node's machine (outbid), refresh shows it (the node's " +
      "`actualStatus` stopped, `outbidByDollarsPerHour`) and the group's job waits for it; the " +
      "next up raises the node's bid to this price when it is above the winning one, and " +
      "otherwise does what `onOutbid` says.",
  ),
  onOutbid: node.onOutbid.describe(
    "What the next up does about nodes a higher bid took (outbid; refresh finds them): `wait` " +
      "(the default) leaves them paused, saying what their disks bill; `raise` raises each " +
      "one's bid a tenth of a cent above the winning one, up to `maxBidDollarsPerHour`; " +
      "`replace` destroys each outbid node and rents its rank again in the group's cluster, on " +
      "its overlay (every rank anew when rank 0 is outbid, as for a rank 0 gone), within the " +
      "stack's cap; when the cluster has no room, they stay paused and up says why. Changes " +
      "in place.",
  ),
  maxBidDollarsPerHour: node.maxBidDollarsPerHour.describe(
    "The highest bid `onOutbid: raise` may set on a node, in dollars per hour; at least " +
      "`price`. Changes in place.",
  ),
  // Required, unlike an Instance's (a group launches no template).
  image: node.image
    .unwrap()
    .meta({ replacement: undefined })
    .describe(
      "Each node's container image, e.g. `pytorch/pytorch`. Changing it rebuilds every node's " +
        "container in place: the same instances, machines, overlay addresses and price, the " +
        "network volume still mounted; each container is created anew, so what it wrote " +
        "outside the network volume is lost.",
    ),
  diskGb: node.diskGb
    .unwrap()
    .meta({ willReplaceOnChanges: true })
    .describe("Each node's disk size in gigabytes, at least 8. Changing it replaces the group."),
  onstart: node.onstart
    .meta({ replacement: undefined })
    .describe(
      "A script each node runs at start (NODE_RANK, WORLD_SIZE and MASTER_ADDR are in its " +
        "environment). Changing it rebuilds every node's container in place, as changing " +
        "`image` does.",
    ),
  args: node.args
    .meta({ replacement: undefined })
    .describe(
      "Arguments passed to each node's image entrypoint, for `runtype: args`. Changing them " +
        "rebuilds every node's container in place, as changing `image` does.",
    ),
  maxLifetime: node.maxLifetime.describe(
    "The longest the group may live, counted from its create: a whole number and a unit, " +
      '`s`, `m`, `h` or `d` (`"90m"`, `"8h"`, `"3d"`), at most `365d`. One deadline for the ' +
      "group (`expiresAt`), enforced on every node itself by a watchdog in its onstart, so " +
      "that it holds when nobody runs Pulumi: each node stops or destroys itself " +
      "(`onExpiry`); the overlay and network volume stay until the next up or destroy. Nodes " +
      "rented later (a larger nodeCount) share the deadline. Not for an `args` launch. " +
      "Changing the duration, adding or removing it replaces the group; the next up after " +
      "`expiresAt` rents a new one.",
  ),
  onExpiry: node.onExpiry.describe(
    "What every node does at `expiresAt` (with `maxLifetime`): `destroy` (the default) or " +
      "`stop`: a stopped node releases its GPUs but keeps its disk, which still bills. " +
      "Changing it replaces the group while `maxLifetime` is set.",
  ),
  // One type with the Instance's (its description says what a change does to each); another
  // rule replaces the group, the same one written otherwise does not.
  idleShutdown: node.idleShutdown,
  env: node.env
    .meta({ replacement: undefined })
    .describe(
      "Environment variables of every node, beside NODE_RANK, WORLD_SIZE and MASTER_ADDR, which " +
        "the group sets. Changing them rebuilds every node's container in place, as changing " +
        "`image` does.",
    ),
  label: node.label.describe("Each node's label. Changes in place."),
  runtype: node.runtype.describe(
    "`ssh` (the default), `jupyter` or `args`; a VM cannot join an overlay. Changing it " +
      "replaces the group.",
  ),
  sshKeyIds: node.sshKeyIds.describe(
    "Account SSH keys (SshKey `sshKeyId`s) attached to every node once it runs.",
  ),
  networkVolume: z
    .object(
      {
        sizeGb: z
          .number({ error: "networkVolume.sizeGb is a whole number of gigabytes" })
          .int("networkVolume.sizeGb is a whole number of gigabytes")
          .positive("networkVolume.sizeGb must be positive")
          .describe("The volume's size in gigabytes."),
        mountPath: z
          .string({ error: "networkVolume.mountPath is required, e.g. /data" })
          .startsWith("/", "networkVolume.mountPath must be an absolute path, e.g. /data")
          .describe("Where every node mounts it, an absolute path such as `/data`."),
      },
      { error: "networkVolume must be { sizeGb, mountPath }" },
    )
    .describe(
      "A network volume the group creates in its cluster and every node mounts: shared " +
        "storage. Deleted with the group. Changing it replaces the group.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  createTimeoutSeconds: node.createTimeoutSeconds.describe(
    "How long create may take in all, every node running, in seconds; default 1200.",
  ),
  pollIntervalSeconds: node.pollIntervalSeconds,
  exposePorts: node.exposePorts.describe(
    'Container ports every node opens: a number (TCP) or `"<port>/udp"` (`-p <port>:<port>`); ' +
      "each node's `ports` and `urls` say where they answer. Changing them replaces the group.",
  ),
  // As an Instance's, for each node: the group is ready when every node is (one schema type).
  readiness: node.readiness,
  /** `<project>/<stack>/<resource name>`, set by the class or the plugin (renting/identity.ts). */
  owner: z.string().optional(),
  /** The stack's identity, set by the class or the plugin: see renting/identity.ts. */
  stackToken: z.string().optional(),
});
export type NodeGroupInputs = z.infer<typeof nodeGroupInputsSchema>;

/** The NodeGroup's inputs, as check holds a program's keys against them (owner: the class's). */
export const nodeGroupResourceInputs = { type: "NodeGroup", hidden: ["owner", "stackToken"] };

// NodeGroup's example on its reference page (docs/reference/NodeGroup.md): two H100 nodes: the
// emulator's default market has a cluster of nine.
withExample(nodeGroupInputsSchema, {
  inputs: {
    nodeCount: 2,
    offerQuery: { gpuName: "H100 SXM" },
    maxDollarsPerHour: 4,
    image: "pytorch/pytorch",
    diskGb: 40,
  },
});

export const nodeSchema = z
  .object({
    rank: z.number().int().describe("The node's rank, 0 to nodeCount - 1 (its NODE_RANK)."),
    instanceId: z.number().int().describe("The service's id of the node's instance."),
    askId: z.number().int().describe("The ask (offer) the node was rented from."),
    machineId: z.number().int().nullable().describe("The machine the node runs on."),
    sshHost: z.string().nullable().describe("The SSH host to reach the node."),
    sshPort: z.number().int().nullable().describe("The SSH port to reach the node."),
    // Absent in stacks written before them, until the group is next created or refreshed.
    ports: portsOutputSchema.optional(),
    urls: urlsOutputSchema.optional(),
    localIp: z
      .string()
      .nullable()
      .describe("The node's address on the group's overlay network (rank 0's is MASTER_ADDR)."),
    actualStatus: z
      .string()
      .nullable()
      .describe("What the node is doing, as the service last said (`running`, ...)."),
    // Absent in stacks written before them, until the group is next created or refreshed.
    gpuName: z
      .string()
      .nullable()
      .describe('The node\'s GPU model, as the service shows the instance, e.g. "H100 SXM".')
      .optional(),
    dollarsPerHour: z
      .number()
      .nullable()
      .describe(
        "What the node costs, in dollars per hour, as the service reports its instance " +
          "(`dph_total`: its GPUs and its disk); kept current by refresh.",
      )
      .optional(),
    outbidByDollarsPerHour: z
      .number()
      .describe(
        "Set while a higher bid holds the node's machine (outbid): the winning bid, in dollars " +
          "per hour. The next up acts on it as the group's `onOutbid` says.",
      )
      .optional(),
    expiresAt: z
      .string()
      .describe(
        "With the group's `maxLifetime`: when the node's watchdog stops or destroys it (ISO " +
          "8601, UTC), as its onstart says.",
      )
      .optional(),
  })
  .meta({
    pulumiType: "NodeGroupNode",
    description: "One node of a NodeGroup: an instance on the group's overlay network.",
  });
export type GroupNode = z.infer<typeof nodeSchema>;

export const nodeGroupOutputsSchema = nodeGroupInputsSchema.extend({
  clusterId: z.number().int().describe("The physical cluster every node is in."),
  overlayName: z.string().describe("The overlay network the nodes are on."),
  overlayId: z.number().int().describe("The service's id of the overlay network."),
  subnet: z.string().nullable().describe("The overlay's private subnet, e.g. `10.100.0.0/24`."),
  masterAddr: z.string().nullable().describe("Rank 0's overlay address: every node's MASTER_ADDR."),
  networkVolumeId: z
    .number()
    .int()
    .nullable()
    .describe("The network volume every node mounts (its `V.<id>` number), if the group has one."),
  nodes: z.array(nodeSchema).describe("The nodes, by rank."),
  // Absent in stacks written before it, until the group is next created or refreshed.
  dollarsPerHour: z
    .number()
    .describe(
      "What the group's nodes cost together, in dollars per hour: the sum of each node's " +
        "`dollarsPerHour` as the service reports it (a node gone, or without a price, adds " +
        "nothing); kept current by refresh. The group's network volume is not included.",
    )
    .optional(),
  // Absent without maxLifetime (and in stacks written before it).
  expiresAt: z
    .string()
    .describe(
      "With `maxLifetime`: when the group expires, fixed at its create (ISO 8601, UTC, e.g. " +
        "`2026-01-01T08:00:00Z`); every node's watchdog then stops or destroys it, and the " +
        "next up rents a new group. Absent otherwise.",
    )
    .optional(),
});
export type NodeGroupOutputs = z.infer<typeof nodeGroupOutputsSchema>;

/** The group's total, $/hour: what the service reports for each of its nodes. */
export function groupDollarsPerHour(nodes: readonly GroupNode[]): number {
  // Sums of prices carry binary noise (0.1 + 0.2): kept to the service's precision.
  return atServicePrecision(nodes.reduce((sum, node) => sum + (node.dollarsPerHour ?? 0), 0));
}

/** The fields only this provider reads: changing them changes nothing on the service. */
export const settingFields = ["createTimeoutSeconds", "pollIntervalSeconds"] as const;
