import type * as pulumi from "@pulumi/pulumi";
import { isNetworkVolume } from "../../client";
import {
  estimateAnywhere,
  estimateInstance,
  type InstancePricing,
  type Pin,
  placementKey,
} from "../../pricing/instance-price";
import { offerReadsOf } from "../../pricing/offer-reads";
import {
  checkedExisting,
  type DiffPricing,
  recordAtCheck,
  recordAtDiff,
  replacesIn,
} from "../../pricing/plan";
import { recordedPrice } from "../../pricing/recorded";
import { estimateOrNone, notKnownAtPreview, unknownInputs } from "../../pricing/unknowns";
import { clusterPin, volumePin } from "../../renting/offer-choice";
import { stackRunningOf } from "../../renting/spend";
import type { Estimate } from "../../run/plan-ledger";
import type { Run } from "../../run/run";
import { containsUnknown } from "../../shared/validation";
import { winningBid } from "../../renting/outbid";
import { outbidActs } from "./bids";
import { asksOf, type InstanceInputs, type InstanceOutputs } from "./inputs";

// An Instance in the plan's prices (pricing/plan.ts): at a new instance's check, the offer its
// create would rent, where the create would rent it (its volume's machine, a volume this plan
// makes included, and its overlay's and network volume's cluster); at an existing one's diff,
// what its state records now and, where the change reprices it, the new figure: a replacement
// by the same rule (a delete-first one counting its own ask free again), a change in place on
// the ask it holds.

/** The inputs a price rests on: while one is another resource's output, no figure bounds it. */
const pricedBy = [
  "askId",
  "askIds",
  "offerQuery",
  "diskGb",
  "price",
  "state",
  "maxDollarsPerHour",
  "prepayDollars",
];

type Placed = { readonly pin?: Pin } | { readonly pending: string };

/** The machine a volume made by this plan goes to, as its check placed it for this query. */
function plannedVolumeMachine(run: Run, inputs: InstanceInputs): number | undefined {
  const machines = run.plan.volumeMachines.get(
    placementKey(inputs.offerQuery ?? {}, inputs.maxDollarsPerHour),
  );
  return machines?.length === 1 ? machines[0] : undefined;
}

/** The cluster of the overlay (declared by this program, or on the account). */
async function overlayCluster(run: Run, news: Record<string, unknown>, name: string) {
  // Only one Overlay in the program: an instance whose overlay is not known yet joins it.
  const declared = [...run.made.declaredOverlays.values()];
  if (containsUnknown(news["overlay"])) {
    return declared.length === 1 ? declared[0]?.clusterId : undefined;
  }
  return (
    run.made.declaredOverlays.get(name)?.clusterId ??
    (await run.client.overlays.named(name).catch(() => undefined))?.cluster_id
  );
}

/** Where the create will pin its search, as far as the plan knows it now. */
async function placedAt(
  run: Run,
  inputs: InstanceInputs,
  news: Record<string, unknown>,
): Promise<Placed> {
  const pending: string[] = [];
  const words: string[] = [];
  let machineId: number | undefined;
  let clusterId: number | undefined;
  if (inputs.volume !== undefined) {
    machineId = containsUnknown(news["volume"])
      ? plannedVolumeMachine(run, inputs)
      : ((await run.reads.volume(inputs.volume.volumeId))?.machine_id ?? undefined);
    if (machineId === undefined) pending.push("volume.volumeId");
    else if (containsUnknown(news["volume"])) {
      words.push(`on machine ${machineId} (where the Volume made for it goes)`);
    } else words.push(volumePin(inputs.volume.volumeId, machineId));
  }
  if (inputs.overlay !== undefined) {
    clusterId = await overlayCluster(run, news, inputs.overlay);
    if (clusterId === undefined) pending.push("overlay");
  }
  if (inputs.networkVolume !== undefined) {
    const volumeId = inputs.networkVolume.volumeId;
    const volume = containsUnknown(news["networkVolume"])
      ? undefined
      : await run.reads.volume(volumeId);
    if (volume === undefined || !isNetworkVolume(volume)) pending.push("networkVolume.volumeId");
    else clusterId ??= volume.cluster_id;
  }
  if (pending.length > 0) return { pending: pending.join(", ") };
  if (clusterId !== undefined && !containsUnknown(news["overlay"])) {
    words.push(clusterPin(clusterId, inputs));
  } else if (clusterId !== undefined) words.push(`in cluster ${clusterId} (the overlay's)`);
  return words.length === 0 ? {} : { pin: { machineId, clusterId, words: words.join(" and ") } };
}

/**
 * The instance's figure: the offer its create would rent now. `heldAskId`: the ask the
 * instance a delete-first replacement destroys holds (free again for the replacement).
 */
async function instanceEstimate(
  run: Run,
  inputs: InstanceInputs,
  news: Record<string, unknown>,
  heldAskId?: number,
): Promise<Estimate> {
  const unknown = unknownInputs(news, pricedBy);
  if (unknown.length > 0) return notKnownAtPreview(unknown);
  const spec: InstancePricing = {
    asks: asksOf(inputs),
    offerQuery: inputs.offerQuery,
    maxDollarsPerHour: inputs.maxDollarsPerHour,
    diskGb: inputs.diskGb,
    bid: inputs.price,
    stopped: inputs.state === "stopped",
    prepayDollars: inputs.prepayDollars,
    heldAskId,
    plannedAskIds: run.plan.plannedAskIds,
  };
  const reads = offerReadsOf(run);
  if (inputs.offerQuery === undefined) return estimateInstance(reads, spec);
  const placed = await placedAt(run, inputs, news);
  return "pending" in placed
    ? estimateAnywhere(reads, spec, inputs.offerQuery, placed.pending)
    : estimateInstance(reads, { ...spec, pin: placed.pin });
}

/** At a new instance's check, once the inputs are valid: its price, and the stack's cap. */
export async function instancePlanFailures(
  run: Run,
  olds: Partial<InstanceInputs>,
  inputs: InstanceInputs,
  news: Record<string, unknown>,
): Promise<pulumi.dynamic.CheckFailure[]> {
  if (checkedExisting(run, "Instance", olds, inputs)) return [];
  const estimate = await estimateOrNone(() => instanceEstimate(run, inputs, news));
  const stack = containsUnknown(news["stackToken"]) ? undefined : inputs.stackToken;
  return recordAtCheck(run, "Instance", inputs, estimate, stackRunningOf(run, stack));
}

/** At diff: what the state records now, and what the change makes it cost. */
export async function recordInstanceDiff(
  run: Run,
  olds: InstanceOutputs,
  news: InstanceInputs,
  diff: pulumi.dynamic.DiffResult,
): Promise<void> {
  await recordAtDiff(
    run,
    "Instance",
    news,
    diff,
    () => instanceDiffPricing(run, olds, news, diff),
    stackRunningOf(run, news.stackToken ?? olds.stackToken),
  );
}

async function instanceDiffPricing(
  run: Run,
  olds: InstanceOutputs,
  news: InstanceInputs,
  diff: pulumi.dynamic.DiffResult,
): Promise<DiffPricing> {
  const now = recordedPrice("Instance", olds);
  const replaces = replacesIn(diff);
  // Outbid and won back in place (bids.ts): it runs again at the bid that wins, up to the
  // ceiling, which the cap must hold. A prepay raised: priced as if the whole deposit were left
  // (the service's discount after the deposit is what `dollarsPerHour` then records).
  const winning = olds.outbidByDollarsPerHour;
  const winBack =
    winning !== undefined && news.state === "running" && outbidActs(olds, news)
      ? winningBid(news, winning)
      : undefined;
  const reprices =
    (news.state ?? "running") !== (olds.state ?? "running") ||
    news.price !== olds.price ||
    winBack !== undefined ||
    (news.prepayDollars ?? 0) > (olds.prepaidDollars ?? 0);
  const heldAskId = olds.offer?.askId ?? olds.attempts.at(-1)?.askId;
  const newsRecord = news as unknown as Record<string, unknown>;
  let after: Estimate | undefined;
  if (replaces || now.unrecorded === true) {
    const held = diff.deleteBeforeReplace === true ? heldAskId : undefined;
    after = await estimateOrNone(() => instanceEstimate(run, news, newsRecord, held));
  } else if (reprices && heldAskId !== undefined) {
    // In place: the instance stays on the ask it holds, at its new bid or state.
    const inPlace = {
      ...news,
      askId: heldAskId,
      askIds: undefined,
      offerQuery: undefined,
      ...(winBack === undefined ? {} : { price: winBack }),
    };
    after = await estimateOrNone(() => instanceEstimate(run, inPlace, newsRecord, heldAskId));
  }
  return { now, reprices, after, instanceIds: [olds.instanceId] };
}
