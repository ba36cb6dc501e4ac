import { outbidBy, raiseBidAndResume, winningBid } from "../../renting/outbid";
import type { Run } from "../../run/run";
import { atServicePrecision } from "../../shared/price-precision";
import { clusterOffers } from "./cluster-choice";
import type { GroupNode, NodeGroupInputs, NodeGroupOutputs } from "./inputs";

// Interruptible nodes (the group's `price`): a new bid changes in place on every node, and nodes
// a higher bid took (outbid, found by refresh) are won back, re-rented or left paused, as
// `price` and `onOutbid` say. A paused node stalls the group's job, so each up says which nodes
// hold it and what they bill.

/** A node found outbid again now, with the winning price. */
interface OutbidNode {
  readonly node: GroupNode;
  readonly winning: number;
}

/** What an up does about the group's outbid nodes, decided before any write. */
export interface GroupOutbidFate {
  /** Won back in place: each with the bid that wins its machine. */
  readonly raise: readonly (OutbidNode & { readonly bid: number })[];
  /** Destroyed and their ranks rented again in the cluster (onOutbid replace). */
  readonly replace: readonly OutbidNode[];
  /** Left paused (onOutbid wait, or no room to replace them). */
  readonly wait: readonly OutbidNode[];
  /** The preview's line, when a node is outbid. */
  readonly note?: string;
}

const none: GroupOutbidFate = { raise: [], replace: [], wait: [] };

const ranksOf = (nodes: readonly OutbidNode[]) =>
  nodes.map(({ node }) => `${node.rank} (instance ${node.instanceId})`).join(", ");

/** The nodes refresh recorded outbid that the service still shows outbid, read afresh. */
async function stillOutbid(run: Run, olds: NodeGroupOutputs): Promise<OutbidNode[]> {
  const recorded = olds.nodes.filter((node) => node.outbidByDollarsPerHour !== undefined);
  const found = await Promise.all(
    recorded.map(async (node) => {
      const shown = await run.client.instances.show(node.instanceId);
      const winning = shown && outbidBy(shown, olds.price);
      return winning === undefined ? undefined : { node, winning };
    }),
  );
  return found.filter((entry) => entry !== undefined);
}

/** Whether the group's cluster has a free offer for each node to re-rent; unknown: true. */
async function roomFor(run: Run, olds: NodeGroupOutputs, news: NodeGroupInputs, count: number) {
  const offers = await clusterOffers(run.client, news, olds.clusterId).catch(() => undefined);
  return offers === undefined || offers.length >= count;
}

function fateNote(
  fate: Omit<GroupOutbidFate, "note">,
  clusterId: number,
  noRoom: boolean,
): string | undefined {
  const parts: string[] = [];
  if (fate.raise.length > 0) {
    parts.push(
      `nodes ${ranksOf(fate.raise)} are outbid: their bids are raised to ` +
        fate.raise.map(({ bid }) => `$${bid}/h`).join(", ") +
        " and the up waits for them to run",
    );
  }
  if (fate.replace.length > 0) {
    const rankZero = fate.replace.some(({ node }) => node.rank === 0);
    parts.push(
      `nodes ${ranksOf(fate.replace)} are outbid and replaced (onOutbid replace): destroyed, ` +
        `so that their disks bill no more, and their ranks rented again in cluster ` +
        `${clusterId}, within the stack's cap` +
        (rankZero ? "; rank 0 is among them, so every rank is rented anew" : ""),
    );
  }
  if (fate.wait.length > 0) {
    const bills = fate.wait.reduce((sum, { node }) => sum + (node.dollarsPerHour ?? 0), 0);
    parts.push(
      `nodes ${ranksOf(fate.wait)} are outbid (a bid of ` +
        fate.wait.map(({ winning }) => `$${winning}/h`).join(", ") +
        " holds their machines) and stay paused" +
        (noRoom ? " (onOutbid replace: the cluster has no free offer to rent them again)" : "") +
        `, their data kept and their disks billing $${atServicePrecision(bills)}/h; the ` +
        "group's job waits for them. Raise price above the winning bid, or set onOutbid: " +
        "raise with a higher maxBidDollarsPerHour, or replace",
    );
  }
  return parts.length === 0 ? undefined : parts.join("; ");
}

/** Decides what an up does about the outbid nodes (none recorded: nothing is read). */
export async function groupOutbidFate(
  run: Run,
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
): Promise<GroupOutbidFate> {
  if (!olds.nodes.some((node) => node.outbidByDollarsPerHour !== undefined)) return none;
  const outbid = (await stillOutbid(run, olds)).filter(({ node }) => node.rank < news.nodeCount);
  const raise: (OutbidNode & { bid: number })[] = [];
  let replace: OutbidNode[] = [];
  let wait: OutbidNode[] = [];
  for (const entry of outbid) {
    const bid = winningBid(news, entry.winning);
    if (bid !== undefined) raise.push({ ...entry, bid });
    else if (news.onOutbid === "replace") replace.push(entry);
    else wait.push(entry);
  }
  const noRoom = replace.length > 0 && !(await roomFor(run, olds, news, replace.length));
  if (noRoom) [wait, replace] = [[...wait, ...replace], []];
  const fate = { raise, replace, wait };
  const note = fateNote(fate, olds.clusterId, noRoom);
  return note === undefined ? fate : { ...fate, note };
}

/**
 * In the update, before the resize: a new bid on every node, then the outbid nodes won back
 * (each bid raised and waited for). Returns the nodes as they are after.
 */
export async function applyBids(
  run: Run,
  olds: NodeGroupOutputs,
  news: NodeGroupInputs,
  fate: GroupOutbidFate,
  progress: (message: string) => void,
): Promise<GroupNode[]> {
  const client = run.client;
  let nodes = olds.nodes;
  if (news.price !== undefined && olds.price !== undefined && news.price !== olds.price) {
    const price = news.price;
    progress(`changing every node's bid to $${price}/h`);
    for (const node of nodes) await client.instances.changeBid(node.instanceId, price);
  }
  for (const { node, bid, winning } of fate.raise) {
    const resumed = await raiseBidAndResume(
      run,
      `rank ${node.rank}`,
      node.instanceId,
      { dollarsPerHour: bid, winning },
      news.pollIntervalSeconds,
      progress,
    );
    const after: GroupNode = {
      ...node,
      actualStatus: resumed.actual_status ?? null,
      dollarsPerHour: atServicePrecision(resumed.dph_total ?? null),
    };
    delete after.outbidByDollarsPerHour;
    nodes = nodes.map((n) => (n.instanceId === node.instanceId ? after : n));
  }
  return nodes;
}
