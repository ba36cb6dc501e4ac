import type { Instance } from "../instances/instance-state";
import { discountRateAt } from "../instances/prepay";
import { rentalPrice, storageDollarsPerHour } from "../market/offers";
import type { State } from "../shared/state";
import { volumeAskOf } from "../volumes/mounts";
import type { ContractType, Meter, MeteredBoot } from "./billing-state";

/**
 * The meters, kept in step with every change of the state (the store settles them at the
 * change's moment): what each contract is billed, by the second, as the billing guide says. An
 * instance's GPU while it runs (not while it provisions or loads, nor stopped or outbid), its
 * storage from its create until it is destroyed, stopped too, but not while its machine is
 * offline; a volume's storage while it exists. The rates are its row's (`dph_base`,
 * `storage_total_cost`: market/offers.ts, `rentalPrice`).
 *
 * A change (a stop, a destroy, a new bid) happens at its moment. A boot reaches its outcome on
 * its own, between changes (by polls, each counted in a change, and after its `afterSeconds`):
 * so a boot is metered whole, from its start, and what it billed is written when it ends.
 */

const keyOf = (type: ContractType, id: number) =>
  `${type === "volume" ? "volume" : "instance"}:${String(id)}`;

function newMeter(type: ContractType, id: number, startMs: number, diskRate: number): Meter {
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
    disk: diskRate > 0 ? { fromMs: startMs, dollarsPerHour: diskRate } : null,
    boot: null,
    releaseAtMs: null,
    segments: [],
  };
}

/** Writes the storage billed until `atMs`; it goes on from `reopenAtMs`, if given. */
function closeDisk(meter: Meter, atMs: number, reopenAtMs?: number): void {
  const { disk } = meter;
  if (disk === null) return;
  // A state file loaded under an earlier clock must not make a stretch negative.
  if (atMs > disk.fromMs) {
    meter.segments.push({ item: "disk", fromMs: disk.fromMs, toMs: atMs, ...rate(disk) });
  }
  meter.disk = reopenAtMs === undefined ? null : { ...disk, fromMs: Math.max(reopenAtMs, atMs) };
}

const rate = (of: { dollarsPerHour: number }) => ({ dollarsPerHour: of.dollarsPerHour });

/** When the boot reached its outcome; null while its polls are not met. */
function outcomeAtMs(boot: MeteredBoot): number | null {
  if (boot.pollsMetAtMs === null) return null;
  return Math.max(boot.pollsMetAtMs, boot.startedAtMs + boot.afterSeconds * 1000);
}

/**
 * Writes what the boot billed until `atMs`: running, its GPU from its outcome (or its rate's
 * start); offline, no storage from its outcome. The storage goes on from `atMs`.
 */
function endBoot(meter: Meter, atMs: number): void {
  const { boot } = meter;
  meter.boot = null;
  const outcome = boot === null ? null : outcomeAtMs(boot);
  if (boot === null || outcome === null || outcome >= atMs) return;
  if (boot.status === "running") {
    const fromMs = Math.max(outcome, boot.sinceMs);
    if (fromMs < atMs) meter.segments.push({ item: "gpu", fromMs, toMs: atMs, ...rate(boot) });
  } else if (boot.status === "offline") {
    closeDisk(meter, outcome, atMs);
  }
}

/** An instance's boot, as the meter follows it, while it is meant to run. */
function bootOf(
  instance: Instance,
  discountRate: number,
): Omit<MeteredBoot, "pollsMetAtMs" | "sinceMs"> | null {
  if (instance.intendedStatus !== "running" || instance.outbidDollarsPerHour !== null) return null;
  const listed = instance.bidDollarsPerHour ?? instance.offer.dollarsPerHour;
  const { base } = rentalPrice(listed, instance.offer.storageCostPerGbMonth, instance.diskGb);
  return {
    startedAtMs: instance.restartedAtMs ?? instance.createdAtMs,
    afterSeconds: instance.boot.afterSeconds ?? 0,
    status: instance.boot.status,
    dollarsPerHour: base * (1 - discountRate),
  };
}

/**
 * A prepay's discount (instances/prepay.ts) bills the GPU and the storage at the discounted
 * rates from the deposit on: the storage billed until then is written at its old rate. (The end
 * of a deposit, months of the account's time later, is not a change: the emulator's meter keeps
 * the discount until the next change after it.)
 */
function repriceDisk(meter: Meter, instance: Instance, discountRate: number, nowMs: number): void {
  const { offer } = instance;
  const rate = storageDollarsPerHour(offer.storageCostPerGbMonth, instance.diskGb);
  const discounted = rate * (1 - discountRate);
  if (meter.disk === null || meter.disk.dollarsPerHour === discounted) return;
  closeDisk(meter, nowMs, nowMs);
  if (meter.disk !== null) meter.disk = { ...meter.disk, dollarsPerHour: discounted };
}

function meterInstance(meter: Meter, instance: Instance, state: State, nowMs: number): void {
  const discountRate = discountRateAt(instance, nowMs);
  repriceDisk(meter, instance, discountRate, nowMs);
  const current = bootOf(instance, discountRate);
  const metered = meter.boot;
  if (metered !== null) {
    const sameBoot = current !== null && current.startedAtMs === metered.startedAtMs;
    if (!sameBoot) endBoot(meter, nowMs);
    else if (current.dollarsPerHour !== metered.dollarsPerHour) {
      // A new bid: what ran is billed at the old rate, the rest at the new from now.
      endBoot(meter, nowMs);
      meter.boot = { ...metered, dollarsPerHour: current.dollarsPerHour, sinceMs: nowMs };
    }
  }
  if (current !== null && meter.boot === null) {
    meter.boot = { ...current, pollsMetAtMs: null, sinceMs: current.startedAtMs };
  }
  const boot = meter.boot;
  if (boot !== null && boot.pollsMetAtMs === null && instance.polls >= instance.boot.afterPolls) {
    boot.pollsMetAtMs = instance.boot.afterPolls === 0 ? boot.startedAtMs : nowMs;
  }
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

/** Ends the contract at `endMs`: what its boot and its storage billed until then. */
function endContract(meter: Meter, endMs: number): void {
  endBoot(meter, endMs);
  closeDisk(meter, endMs);
  meter.endMs = Math.max(meter.startMs, endMs);
}

/** Settles every meter at `nowMs`: the store calls it after each change. */
export function settleMeters(state: State, nowMs: number): void {
  const live = new Map(
    state.meters.filter((m) => m.endMs === null).map((m) => [keyOf(m.type, m.id), m]),
  );
  const meterOf = (type: ContractType, id: number, startMs: number, diskRate: number): Meter => {
    const key = keyOf(type, id);
    let meter = live.get(key);
    if (meter === undefined) {
      meter = newMeter(type, id, startMs, diskRate);
      state.meters.push(meter);
    }
    live.delete(key);
    return meter;
  };
  for (const instance of state.instances) {
    const type = instance.workerGroupId === null ? "instance" : "serverless";
    const { offer } = instance;
    const diskRate = storageDollarsPerHour(offer.storageCostPerGbMonth, instance.diskGb);
    const meter = meterOf(type, instance.id, instance.createdAtMs, diskRate);
    meterInstance(meter, instance, state, nowMs);
  }
  for (const volume of state.volumes) {
    const ask = volumeAskOf(state, volume);
    const diskRate = ask ? storageDollarsPerHour(ask.storageCostPerGbMonth, volume.sizeGb) : 0;
    meterOf("volume", volume.id, volume.createdAtMs, diskRate).label = volume.label;
  }
  for (const volume of state.networkVolumes) {
    const diskRate = storageDollarsPerHour(volume.offer.storageCostPerGbMonth, volume.sizeGb);
    meterOf("volume", volume.id, volume.createdAtMs, diskRate).label = volume.label;
  }
  // What is no longer on the account ended now; a released worker when its time came.
  for (const meter of live.values())
    endContract(meter, Math.min(nowMs, meter.releaseAtMs ?? nowMs));
}

/** Everything the meter billed up to `nowMs`, as if the contract ended then. */
export function segmentsUntil(meter: Meter, nowMs: number): Meter["segments"] {
  if (meter.endMs !== null) return meter.segments;
  const projected = structuredClone(meter);
  endContract(projected, nowMs);
  return projected.segments;
}
