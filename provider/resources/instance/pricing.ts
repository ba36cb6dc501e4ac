import type * as pulumi from "@pulumi/pulumi";
import { estimateInstance } from "../../pricing/estimates";
import {
  type DiffPricing,
  estimateOnceKnown,
  recordAtCheck,
  recordAtDiff,
} from "../../pricing/plan";
import { recordedPrice } from "../../pricing/recorded";
import { asksOf, type InstanceInputs, type InstanceOutputs } from "../../renting/instance-inputs";
import type { Run } from "../../run/run";

// An Instance in the plan's prices (pricing/plan.ts): its expected $/hour at check, what its
// state records at diff.

/** The inputs a price rests on: while one is unknown (another resource's output), no price. */
const pricedBy = ["askId", "askIds", "offerQuery", "diskGb", "price", "state"] as const;

/** At check, once the inputs are valid: the price after the change, and the stack's cap. */
export async function instancePlanFailures(
  run: Run,
  olds: Partial<InstanceInputs>,
  inputs: InstanceInputs,
  news: Record<string, unknown>,
): Promise<pulumi.dynamic.CheckFailure[]> {
  const estimate = await estimateOnceKnown(news, pricedBy, () =>
    estimateInstance(run, {
      asks: asksOf(inputs),
      offerQuery: inputs.offerQuery,
      maxDollarsPerHour: inputs.maxDollarsPerHour,
      diskGb: inputs.diskGb,
      bid: inputs.price,
      stopped: inputs.state === "stopped",
    }),
  );
  return recordAtCheck(run, "Instance", inputs, Object.keys(olds).length > 0, estimate);
}

/** At diff: what the state records now, and whether the change reprices it. */
export function recordInstanceDiff(
  run: Run,
  olds: InstanceOutputs,
  news: InstanceInputs,
  diff: pulumi.dynamic.DiffResult,
): void {
  const found: DiffPricing = {
    now: recordedPrice("Instance", olds),
    replaces: (diff.replaces?.length ?? 0) > 0,
    reprices: (news.state ?? "running") !== (olds.state ?? "running") || news.price !== olds.price,
    ...(diff.deleteBeforeReplace === true ? { deleteBeforeReplace: true } : {}),
  };
  recordAtDiff(run, "Instance", news, found);
}
