import type * as pulumi from "@pulumi/pulumi";
import { estimateNodeGroup, estimateVolume } from "../../pricing/estimates";
import {
  type DiffPricing,
  estimateOnceKnown,
  recordAtCheck,
  recordAtDiff,
} from "../../pricing/plan";
import { recordedPrice } from "../../pricing/recorded";
import type { Estimate } from "../../run/plan-ledger";
import type { Run } from "../../run/run";
import { chooseCluster, NoClusterError } from "./cluster-choice";
import type { NodeGroupInputs, NodeGroupOutputs } from "./inputs";

// A NodeGroup in the plan's prices (pricing/plan.ts): nodes × the prices of the cluster create
// would choose now (one offer search per group, as create makes it), and what its state records.

const pricedBy = ["offerQuery", "nodeCount", "diskGb", "maxDollarsPerHour"] as const;

async function estimateGroup(run: Run, inputs: NodeGroupInputs): Promise<Estimate> {
  let cluster: Awaited<ReturnType<typeof chooseCluster>>;
  try {
    cluster = await chooseCluster(run.client, inputs);
  } catch (error) {
    const why = error instanceof NoClusterError ? error.message : "the offer search failed";
    return { dollarsPerHour: 0, basis: `not priced: ${why}` };
  }
  const nodes = estimateNodeGroup(cluster, inputs.nodeCount, inputs.diskGb);
  if (inputs.networkVolume === undefined) return nodes;
  // The group's own network volume, from the offer create takes: the cluster's first with room.
  const { sizeGb } = inputs.networkVolume;
  const volume = await estimateVolume(
    run,
    { offerQuery: { clusterId: cluster.clusterId, diskSpaceGb: { gte: sizeGb } }, sizeGb },
    async () => undefined,
    true,
  );
  return {
    dollarsPerHour: nodes.dollarsPerHour + volume.dollarsPerHour,
    basis: `${nodes.basis} + network volume ${volume.basis}`,
  };
}

/** At check, once the inputs are valid: the price after the change, and the stack's cap. */
export async function nodeGroupPlanFailures(
  run: Run,
  olds: Partial<NodeGroupInputs>,
  inputs: NodeGroupInputs,
  news: Record<string, unknown>,
): Promise<pulumi.dynamic.CheckFailure[]> {
  const estimate = await estimateOnceKnown(news, pricedBy, () => estimateGroup(run, inputs));
  return recordAtCheck(run, "NodeGroup", inputs, Object.keys(olds).length > 0, estimate);
}

/** At diff: what the state records now, and whether the change reprices the group. */
export function recordNodeGroupDiff(
  run: Run,
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
  diff: pulumi.dynamic.DiffResult,
): void {
  const found: DiffPricing = {
    now: recordedPrice("NodeGroup", olds),
    replaces: (diff.replaces?.length ?? 0) > 0,
    reprices: news.nodeCount !== olds.nodeCount,
    ...(diff.deleteBeforeReplace === true ? { deleteBeforeReplace: true } : {}),
  };
  recordAtDiff(run, "NodeGroup", news, found);
}
