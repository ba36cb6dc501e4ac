import type { Volume as VolumeWire } from "../client";
import type { Run } from "../run/run";

/** What a volume create asked for, and the account's volumes before the run (read before it). */
export interface AskedVolume {
  /** `volume` or `network volume`, as the failure names it. */
  readonly kind: string;
  readonly sizeGb: number;
  readonly before: ReadonlySet<number>;
  /** What else the create's volume must be: its kind, its cluster, its name. */
  readonly matches: (volume: VolumeWire) => boolean;
}

/**
 * After a lost volume create (a Volume's, a NetworkVolume's): the one volume of the account that
 * is new since the run began, made by no other create of the run (run/made-this-run.ts) and
 * such as the create asked; anything else is for a person to sort out, and the failure names
 * what appeared.
 */
export async function theLostVolume(
  run: Run,
  lost: Error,
  asked: AskedVolume,
): Promise<VolumeWire> {
  const appeared = (await run.client.volumes.list()).filter(
    (volume) =>
      !asked.before.has(volume.id) &&
      !run.made.volumeIds.has(volume.id) &&
      volume.disk_space === asked.sizeGb &&
      asked.matches(volume),
  );
  const [only] = appeared;
  if (appeared.length !== 1 || only === undefined) {
    throw new Error(
      `${lost.message}. ${appeared.length} new ${asked.kind}(s) of ${asked.sizeGb} GB ` +
        `appeared (${appeared.map((volume) => `V.${volume.id}`).join(", ") || "none"}); check ` +
        "the account for a volume this run may have created.",
    );
  }
  return only;
}
