import type * as pulumi from "@pulumi/pulumi";
import { dollars, instanceDollarsPerHour } from "../../pricing/formulas";
import { offerReadsOf } from "../../pricing/offer-reads";
import { checkedExisting, recordAtCheck, recordAtDiff, replacesIn } from "../../pricing/plan";
import { recordedPrice } from "../../pricing/recorded";
import { estimateOrNone, notKnownAtPreview, unknownInputs } from "../../pricing/unknowns";
import type { Estimate } from "../../run/plan-ledger";
import type { Run } from "../../run/run";
import type { WorkerGroupInputs, WorkerGroupOutputs } from "./inputs";

// A WorkerGroup in the plan's prices (pricing/plan.ts), as the service bills its workers
// (guides_serverless_pricing.mdx): each at its offer's price while it is ready or loading, its
// storage alone while it is created or cold. How many run is the service's engine's choice,
// with the load: the figure is a range, from none to maxWorkers on the cheapest matching offer
// now, and the plan counts its low end ($0: the workers' storage is the template's, not known
// here).

async function estimateWorkers(run: Run, inputs: WorkerGroupInputs): Promise<Estimate> {
  const search = await offerReadsOf(run).instances(inputs.offerQuery ?? {});
  const prices = (search?.offers ?? []).map((offer) =>
    instanceDollarsPerHour(
      {
        askId: offer.askId,
        listedDollarsPerHour: offer.dollarsPerHour,
        storageCostPerGbMonth: offer.storageCostPerGbMonth,
      },
      { diskGb: undefined },
    ),
  );
  if (prices.length === 0) {
    return { dollarsPerHour: 0, basis: "serverless workers: no offer matches offerQuery now" };
  }
  const cheapest = Math.min(...prices);
  const workers =
    inputs.maxWorkers === undefined ? "up to the endpoint's maxWorkers" : `0–${inputs.maxWorkers}`;
  return {
    dollarsPerHour: 0,
    low: 0,
    ...(inputs.maxWorkers === undefined ? {} : { high: inputs.maxWorkers * cheapest }),
    basis:
      `serverless: ${workers} workers × ${dollars(cheapest)}/h (the cheapest matching offer ` +
      "now) as the load recruits them; cold workers bill their storage only",
  };
}

/** The group's range; its query not known at preview: none (its workers count $0 anyway). */
async function workersEstimate(
  run: Run,
  inputs: WorkerGroupInputs,
  news: Record<string, unknown>,
): Promise<Estimate> {
  const unknown = unknownInputs(news, ["offerQuery"]);
  if (unknown.length === 0) return estimateOrNone(() => estimateWorkers(run, inputs));
  const { unbounded: _counted, ...notKnown } = notKnownAtPreview(unknown);
  return notKnown;
}

/** At a new group's check, once the inputs are valid: its range, and the stack's cap. */
export async function workerGroupPlanFailures(
  run: Run,
  olds: Partial<WorkerGroupInputs>,
  inputs: WorkerGroupInputs,
  news: Record<string, unknown>,
): Promise<pulumi.dynamic.CheckFailure[]> {
  if (checkedExisting(run, "WorkerGroup", olds, inputs)) return [];
  return recordAtCheck(run, "WorkerGroup", inputs, await workersEstimate(run, inputs, news));
}

/** At diff: the state records no price; a new query or bound reprices the range. */
export async function recordWorkerGroupDiff(
  run: Run,
  olds: WorkerGroupOutputs,
  news: WorkerGroupInputs,
  diff: pulumi.dynamic.DiffResult,
): Promise<void> {
  const replaces = replacesIn(diff);
  const reprices =
    JSON.stringify(olds.offerQuery) !== JSON.stringify(news.offerQuery) ||
    olds.maxWorkers !== news.maxWorkers;
  await recordAtDiff(run, "WorkerGroup", news, diff, async () => ({
    now: recordedPrice("WorkerGroup", olds),
    reprices,
    after: replaces || reprices ? await workersEstimate(run, news, news) : undefined,
  }));
}
