import type * as pulumi from "@pulumi/pulumi";
import type { Estimate } from "../run/plan-ledger";
import type { Run } from "../run/run";
import { checkedExisting, recordAtCheck, recordAtDiff, replacesIn } from "./plan";
import { recordedPrice } from "./recorded";
import { estimateOrNone, notKnownAtPreview, unknownInputs } from "./unknowns";

// A Volume or NetworkVolume in the plan's prices (plan.ts): its size × the storage price of the
// offer its create accepts, at a new volume's check; what its state records and, when the
// change replaces or resizes it, the new figure, at an existing one's diff. Storage bills while
// the volume exists.

export interface VolumePlanInputs {
  readonly askId?: number | undefined;
  readonly sizeGb: number;
}

/** The inputs a volume's price rests on. */
const pricedBy = ["askId", "sizeGb", "volumeOfferQuery", "offerQuery", "forInstance"];

/**
 * At a volume's check, once the inputs are valid: a new volume's price, and the stack's cap (an
 * existing one is priced at its diff).
 */
export async function volumePlanFailures(
  run: Run,
  type: "Volume" | "NetworkVolume",
  olds: object,
  inputs: VolumePlanInputs,
  news: Record<string, unknown>,
  estimate: () => Promise<Estimate>,
): Promise<pulumi.dynamic.CheckFailure[]> {
  if (checkedExisting(run, type, olds, inputs)) return [];
  const unknown = unknownInputs(news, pricedBy);
  const priced = unknown.length > 0 ? notKnownAtPreview(unknown) : await estimateOrNone(estimate);
  return recordAtCheck(run, type, inputs, priced);
}

/** At diff: what the state records now; a replacement or a resize is priced anew. */
export async function recordVolumeDiff(
  run: Run,
  type: "Volume" | "NetworkVolume",
  olds: VolumePlanInputs & object,
  news: VolumePlanInputs & object,
  diff: pulumi.dynamic.DiffResult,
  estimate: () => Promise<Estimate>,
): Promise<void> {
  await recordAtDiff(run, type, news, diff, async () => {
    const now = recordedPrice(type, olds);
    const replaces = replacesIn(diff);
    const reprices = olds.sizeGb !== news.sizeGb;
    const unknown = unknownInputs(news as Record<string, unknown>, pricedBy);
    const after =
      replaces || reprices || now.unrecorded === true
        ? unknown.length > 0
          ? notKnownAtPreview(unknown)
          : await estimateOrNone(estimate)
        : undefined;
    return { now, reprices, after };
  });
}
