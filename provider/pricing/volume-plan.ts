import type * as pulumi from "@pulumi/pulumi";
import type { VolumeOfferQuery, VolumeOfferRow } from "../client";
import type { Run } from "../run/run";
import { containsUnknown } from "../shared/validation";
import { estimateVolume } from "./estimates";
import { recordAtCheck, recordAtDiff } from "./plan";
import { recordedPrice } from "./recorded";

// A Volume or NetworkVolume in the plan's prices (plan.ts): its size × its offer's storage
// price at check, what its state records at diff. Storage bills while the volume exists.

export interface VolumePlanInputs {
  readonly askId?: number | undefined;
  readonly sizeGb: number;
}

/** At check, once the inputs are valid: the price after the change, and the stack's cap. */
export async function volumePlanFailures(
  run: Run,
  type: "Volume" | "NetworkVolume",
  existing: boolean,
  inputs: VolumePlanInputs,
  offerQuery: VolumeOfferQuery | string | undefined,
  news: Record<string, unknown>,
  askOffer: (askId: number) => Promise<Pick<VolumeOfferRow, "storage_cost"> | undefined>,
): Promise<pulumi.dynamic.CheckFailure[]> {
  const estimate = containsUnknown(news)
    ? { dollarsPerHour: 0, basis: "priced once its inputs are known (not at preview)" }
    : await estimateVolume(
        run,
        { askId: inputs.askId, offerQuery, sizeGb: inputs.sizeGb },
        askOffer,
        type === "NetworkVolume",
      );
  return recordAtCheck(run, type, inputs, existing, estimate);
}

/** At diff: what the state records now; any replacement or resize reprices it. */
export function recordVolumeDiff(
  run: Run,
  type: "Volume" | "NetworkVolume",
  olds: VolumePlanInputs & object,
  news: VolumePlanInputs & object,
  diff: pulumi.dynamic.DiffResult,
): void {
  recordAtDiff(run, type, news, {
    now: recordedPrice(type, olds),
    replaces: (diff.replaces?.length ?? 0) > 0,
    reprices: olds.sizeGb !== news.sizeGb,
    ...(diff.deleteBeforeReplace === true ? { deleteBeforeReplace: true } : {}),
  });
}
