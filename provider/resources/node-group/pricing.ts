import type * as pulumi from "@pulumi/pulumi";
import type { InstanceOffer } from "../../client";
import { offersToRent } from "../../pricing/choice";
import {
  clusterSearchOf,
  estimateNewGroup,
  groupEstimate,
  type NodePrice,
  offersByCluster,
} from "../../pricing/group-price";
import { offerReadsOf, withRentedAsks } from "../../pricing/offer-reads";
import {
  checkedExisting,
  type DiffPricing,
  recordAtCheck,
  recordAtDiff,
  replacesIn,
} from "../../pricing/plan";
import { recordedPrice } from "../../pricing/recorded";
import { estimateOrNone, notKnownAtPreview, unknownInputs } from "../../pricing/unknowns";
import { stackRunningOf } from "../../renting/spend";
import type { Estimate } from "../../run/plan-ledger";
import type { Run } from "../../run/run";
import { containsUnknown } from "../../shared/validation";
import type { GroupOutbidFate } from "./bids";
import { isBroken, ranksToRent } from "./diff";
import type { GroupNode, NodeGroupInputs, NodeGroupOutputs } from "./inputs";

// A NodeGroup in the plan's prices (pricing/plan.ts), by the choices its create and its resize
// make (cluster-choice.ts, resize.ts): a new group's cluster and each rank's offer there, plus
// its network volume; a resized group's kept nodes at what they are rented for, and the ranks
// it rents at its own cluster's next offers; a replacement as a new group, the nodes it
// destroys first counted free again.

const pricedBy = [
  "offerQuery",
  "nodeCount",
  "diskGb",
  "maxDollarsPerHour",
  "networkVolume",
  "price",
];

const keptPrice = (node: GroupNode): NodePrice => ({ kept: node.dollarsPerHour ?? 0 });

/**
 * A group resized in place (resize.ts): the healthy nodes below the new count kept, the
 * missing ranks rented at the group's own cluster's next offers. Without a healthy rank 0,
 * every rank is rented anew there, the kept nodes' machines freed first.
 */
async function resizedEstimate(
  run: Run,
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
  outbid: GroupOutbidFate | undefined,
): Promise<Estimate> {
  const replaced = new Set(outbid?.replace.map(({ node }) => node.instanceId));
  const healthy = olds.nodes.filter(
    (node) => node.rank < news.nodeCount && !isBroken(node) && !replaced.has(node.instanceId),
  );
  const anew = olds.masterAddr === null || !healthy.some((node) => node.rank === 0);
  const kept = anew ? [] : healthy;
  const count = anew
    ? news.nodeCount
    : ranksToRent({ ...olds, nodes: healthy }, news.nodeCount).length;
  let rented: InstanceOffer[] = [];
  if (count > 0) {
    const freed = anew ? healthy.map((node) => node.askId) : [];
    const query = clusterSearchOf(news.offerQuery, olds.clusterId);
    const search = await offerReadsOf(run).instances(
      freed.length === 0 ? query : withRentedAsks(query),
    );
    const planned = run.plan.plannedAskIds;
    const offers = (search?.offers ?? []).filter(
      (offer) =>
        (offer.rented !== true || freed.includes(offer.askId)) && !planned.has(offer.askId),
    );
    const cluster = offersByCluster(offers, news.maxDollarsPerHour).get(olds.clusterId) ?? [];
    rented = offersToRent(cluster, undefined, count);
    for (const offer of rented) planned.add(offer.askId);
  }
  // A node won back runs again at the bid that wins, on top of the disk it bills paused.
  const raised = new Map(outbid?.raise.map(({ node, bid }) => [node.instanceId, bid]));
  const nodes = [
    ...kept.map((node) => {
      const bid = raised.get(node.instanceId);
      return bid === undefined ? keptPrice(node) : { kept: (node.dollarsPerHour ?? 0) + bid };
    }),
    ...rented.map((offer): NodePrice => ({ offer, diskGb: news.diskGb, bid: news.price })),
  ];
  const estimate = groupEstimate(nodes, olds.clusterId, news.diskGb);
  const short = count - rented.length;
  return short > 0
    ? { ...estimate, basis: `${estimate.basis}; ${short} more not on offer in the cluster now` }
    : estimate;
}

/** At a new group's check, once the inputs are valid: its price, and the stack's cap. */
export async function nodeGroupPlanFailures(
  run: Run,
  olds: Partial<NodeGroupInputs>,
  inputs: NodeGroupInputs,
  news: Record<string, unknown>,
): Promise<pulumi.dynamic.CheckFailure[]> {
  if (checkedExisting(run, "NodeGroup", olds, inputs)) return [];
  const unknown = unknownInputs(news, pricedBy);
  const estimate =
    unknown.length > 0
      ? notKnownAtPreview(unknown)
      : await estimateOrNone(() =>
          estimateNewGroup(offerReadsOf(run), inputs, [], run.plan.plannedAskIds),
        );
  const stack = containsUnknown(news["stackToken"]) ? undefined : inputs.stackToken;
  return recordAtCheck(run, "NodeGroup", inputs, estimate, stackRunningOf(run, stack));
}

/** At diff: what the state records now, and what the change makes the group cost. */
export async function recordNodeGroupDiff(
  run: Run,
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
  diff: pulumi.dynamic.DiffResult,
  outbid?: GroupOutbidFate,
): Promise<void> {
  await recordAtDiff(
    run,
    "NodeGroup",
    news,
    diff,
    () => groupDiffPricing(run, olds, news, diff, outbid),
    stackRunningOf(run, news.stackToken ?? olds.stackToken),
  );
}

async function groupDiffPricing(
  run: Run,
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
  diff: pulumi.dynamic.DiffResult,
  outbid: GroupOutbidFate | undefined,
): Promise<DiffPricing> {
  const now = recordedPrice("NodeGroup", olds);
  const replaces = replacesIn(diff);
  const reprices =
    news.nodeCount !== olds.nodeCount ||
    ranksToRent(olds, news.nodeCount).length > 0 ||
    (outbid !== undefined && outbid.raise.length + outbid.replace.length > 0) ||
    (news.price !== undefined && olds.price !== undefined && news.price !== olds.price);
  const unknown = unknownInputs(news, pricedBy);
  let after: Estimate | undefined;
  if (unknown.length > 0 && (replaces || reprices)) after = notKnownAtPreview(unknown);
  else if (replaces) {
    // Replaced delete-first: the old nodes' machines are offered again when the new rents.
    const freed = olds.nodes.map((node) => node.askId);
    after = await estimateOrNone(() =>
      estimateNewGroup(offerReadsOf(run), news, freed, run.plan.plannedAskIds),
    );
  } else if (reprices || now.unrecorded === true) {
    after = await estimateOrNone(() => resizedEstimate(run, olds, news, outbid));
  }
  return { now, reprices, after, instanceIds: olds.nodes.map((node) => node.instanceId) };
}
