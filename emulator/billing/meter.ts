import { instancePrices } from "../instances/instance-pricing";
import type { Instance } from "../instances/instance-state";
import { statusOf } from "../instances/lifecycle";
import { storageDollarsPerHour } from "../market/offers";
import type { State } from "../shared/state";
import { volumeAskOf } from "../volumes/mounts";
import type { ContractType, Meter, MeteredItem } from "./billing-state";

/**
 * The meters, kept in step with every change of the state (the store settles them): what each
 * contract is billed, by the second, as the billing guide says. An instance's GPU while it runs
 * (not while provisioning, loading, stopped or outbid), its storage while it exists except
 * while offline, stopped too; a volume's storage while it exists. The rates are those its row
 * shows (instances/instance-pricing.ts: the `instance` breakdown, what it is charged now).
 *
 * A change (stop, destroy, a new bid) happens at the moment of the change. A boot reaches its
 * outcome on its own, between changes: by polls (each counted in a change, so at that change's
 * moment) and after `afterSeconds` (at the boot's start plus those seconds), whichever is later.
 */

interface Rates {
  gpu: number;
  disk: number;
}

const keyOf = (type: ContractType, id: number) =>
  `${type === "volume" ? "volume" : "instance"}:${id}`;

function newMeter(type: ContractType, id: number, startMs: number): Meter {
  return {
    type,
    id,
    startMs,
    endMs: null,
    label: null,
    templateId: null,
    endpointId: null,
    workerGroupId: null,
    inetUpCostPerGb: null,
    inetDownCostPerGb: null,
    open: { gpu: null, disk: null },
    boot: null,
    releaseAtMs: null,
    segments: [],
  };
}

function close(meter: Meter, item: MeteredItem, atMs: number): void {
  const open = meter.open[item];
  if (open === null) return;
  // A state file loaded under an earlier clock must not make a stretch negative.
  const toMs = Math.max(open.fromMs, atMs);
  if (toMs > open.fromMs) {
    meter.segments.push({ item, fromMs: open.fromMs, toMs, dollarsPerHour: open.dollarsPerHour });
  }
  meter.open[item] = null;
}

/**
 * Brings one item's open stretch to its rate now: a changed rate closes the stretch at
 * `changedAtMs` and opens the new rate from there; a rate that starts opens from `startsAtMs`.
 */
function meterItem(
  meter: Meter,
  item: MeteredItem,
  rate: number,
  at: { changedAtMs: number; startsAtMs: number },
): void {
  const open = meter.open[item];
  if (open !== null && open.dollarsPerHour === rate) return;
  const wasOpen = open !== null;
  close(meter, item, at.changedAtMs);
  if (rate > 0) {
    meter.open[item] = { fromMs: wasOpen ? at.changedAtMs : at.startsAtMs, dollarsPerHour: rate };
  }
}

/** When the instance's current boot reached (or reaches) its outcome; null: not yet by polls. */
function outcomeAtMs(meter: Meter, instance: Instance, nowMs: number): number | null {
  const startedAtMs = instance.restartedAtMs ?? instance.createdAtMs;
  if (meter.boot?.startedAtMs !== startedAtMs) meter.boot = { startedAtMs, pollsMetAtMs: null };
  const { boot } = instance;
  if (meter.boot.pollsMetAtMs === null && instance.polls >= boot.afterPolls) {
    meter.boot.pollsMetAtMs = boot.afterPolls === 0 ? startedAtMs : nowMs;
  }
  if (meter.boot.pollsMetAtMs === null) return null;
  return Math.max(meter.boot.pollsMetAtMs, startedAtMs + (boot.afterSeconds ?? 0) * 1000);
}

function lastEnd(meter: Meter, item: MeteredItem): number {
  return meter.segments.reduce((end, s) => (s.item === item ? Math.max(end, s.toMs) : end), 0);
}

function meterInstance(meter: Meter, instance: Instance, state: State, nowMs: number): void {
  const { actualStatus } = statusOf(instance, nowMs);
  const charged = instancePrices(instance, actualStatus).instance;
  const rates: Rates = { gpu: charged.gpuCostPerHour, disk: charged.diskHour };
  const outcome = outcomeAtMs(meter, instance, nowMs);
  const clamp = (ms: number, floor: number) => Math.min(nowMs, Math.max(floor, ms));
  meterItem(meter, "gpu", rates.gpu, {
    changedAtMs: nowMs,
    startsAtMs: clamp(outcome ?? nowMs, lastEnd(meter, "gpu")),
  });
  meterItem(meter, "disk", rates.disk, {
    // Offline comes with the outcome; every other change of storage's rate with a change.
    changedAtMs: actualStatus === "offline" ? clamp(outcome ?? nowMs, meter.startMs) : nowMs,
    // Storage starts with the contract; again after an offline machine (stopped), from now.
    startsAtMs: meter.segments.some((s) => s.item === "disk") ? nowMs : meter.startMs,
  });
  meter.label = instance.label;
  meter.templateId = instance.template?.id ?? meter.templateId;
  if (instance.workerGroupId !== null) {
    meter.workerGroupId = instance.workerGroupId;
    const group = state.workerGroups.find((g) => g.id === instance.workerGroupId);
    meter.endpointId = group?.endpointId ?? meter.endpointId;
  }
  meter.releaseAtMs = instance.releaseAtMs;
  meter.inetUpCostPerGb = instance.offer.inetUpCostPerGb;
  meter.inetDownCostPerGb = instance.offer.inetDownCostPerGb;
}

function meterVolume(meter: Meter, dollarsPerHour: number, label: string | null): void {
  meterItem(meter, "disk", dollarsPerHour, {
    changedAtMs: meter.startMs,
    startsAtMs: meter.startMs,
  });
  meter.label = label;
}

/** Settles every meter at `nowMs`: the store calls it after each change. */
export function settleMeters(state: State, nowMs: number): void {
  const live = new Map(
    state.meters.filter((m) => m.endMs === null).map((m) => [keyOf(m.type, m.id), m]),
  );
  const meterOf = (type: ContractType, id: number, startMs: number): Meter => {
    const key = keyOf(type, id);
    let meter = live.get(key);
    if (meter === undefined) {
      meter = newMeter(type, id, startMs);
      state.meters.push(meter);
    }
    live.delete(key);
    return meter;
  };
  for (const instance of state.instances) {
    const type = instance.workerGroupId === null ? "instance" : "serverless";
    meterInstance(meterOf(type, instance.id, instance.createdAtMs), instance, state, nowMs);
  }
  for (const volume of state.volumes) {
    const ask = volumeAskOf(state, volume);
    const rate = ask ? storageDollarsPerHour(ask.storageCostPerGbMonth, volume.sizeGb) : 0;
    meterVolume(meterOf("volume", volume.id, volume.createdAtMs), rate, volume.label);
  }
  for (const volume of state.networkVolumes) {
    const rate = storageDollarsPerHour(volume.offer.storageCostPerGbMonth, volume.sizeGb);
    meterVolume(meterOf("volume", volume.id, volume.createdAtMs), rate, volume.label);
  }
  // What is no longer on the account ended now; a released worker when its time came.
  for (const meter of live.values()) {
    const endMs = Math.min(nowMs, meter.releaseAtMs ?? nowMs);
    close(meter, "gpu", endMs);
    close(meter, "disk", endMs);
    meter.endMs = Math.max(meter.startMs, endMs);
  }
}
