import type { Estimate } from "../run/plan-ledger";
import { dollars, storageDollarsPerHour } from "./formulas";

// What a resource in the stack costs now, from its state alone (no request): the top-level
// `dollarsPerHour` output where the state has one (written by creates from the release that
// added it), else what older states hold: an Instance's rented offer. Volumes written before
// `dollarsPerHour` hold no price: they count as unknown ($0) and say so.

interface RecordedState {
  readonly dollarsPerHour?: unknown;
  readonly instanceId?: unknown;
  readonly volumeId?: unknown;
  readonly state?: unknown;
  readonly actualStatus?: unknown;
  readonly offer?: {
    readonly dollarsPerHour?: unknown;
    readonly storageCostPerGbMonth?: unknown;
  } | null;
  readonly sizeGb?: unknown;
  readonly nodes?: readonly { readonly offer?: { readonly dollarsPerHour?: unknown } | null }[];
}

const asNumber = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** What the state is of, for a person who reads the line ("V.5001, 50 GB: "). */
function whatOf(state: RecordedState): string {
  const instance = asNumber(state.instanceId);
  if (instance !== undefined) return `instance ${instance}: `;
  const volume = asNumber(state.volumeId);
  const size = asNumber(state.sizeGb);
  if (volume !== undefined) return `V.${volume}${size === undefined ? "" : `, ${size} GB`}: `;
  if (state.nodes !== undefined) return `${state.nodes.length} nodes: `;
  return "";
}

/** The price a resource's state records, $/hour, and what it rests on. */
export function recordedPrice(type: string, outputs: object): Estimate {
  const state = outputs as RecordedState;
  // A stopped instance bills its disk only, while the service still reports its full price.
  const stopped =
    state.state === "stopped" ||
    state.actualStatus === "stopped" ||
    state.actualStatus === "exited";
  if (type === "Instance" && stopped) {
    return { dollarsPerHour: 0, basis: "stopped: its storage is not recorded in the state" };
  }
  const recorded = asNumber(state.dollarsPerHour);
  if (recorded !== undefined)
    return { dollarsPerHour: recorded, basis: `${whatOf(state)}as recorded` };
  if (type === "Instance") {
    const offered = asNumber(state.offer?.dollarsPerHour);
    if (offered !== undefined) {
      return { dollarsPerHour: offered, basis: `the rented offer's ${dollars(offered)}/h` };
    }
  }
  if (type === "NodeGroup" && state.nodes !== undefined && state.nodes.length > 0) {
    const prices = state.nodes.map((node) => asNumber(node.offer?.dollarsPerHour));
    if (prices.every((price) => price !== undefined)) {
      const total = prices.reduce<number>((sum, price) => sum + (price ?? 0), 0);
      return { dollarsPerHour: total, basis: `${prices.length} nodes' rented offers` };
    }
  }
  // A volume found by query records its offer, and with it the storage price.
  const storageCost = asNumber(state.offer?.storageCostPerGbMonth);
  const sizeGb = asNumber(state.sizeGb);
  if ((type === "Volume" || type === "NetworkVolume") && storageCost !== undefined && sizeGb) {
    return {
      dollarsPerHour: storageDollarsPerHour(storageCost, sizeGb),
      basis: `${sizeGb} GB at the recorded ${dollars(storageCost)}/GB-month`,
    };
  }
  return { dollarsPerHour: 0, basis: "no price in the state: counted as $0", unrecorded: true };
}
