import type { EmulatorSettings } from "../options";
import { seededRandom } from "../shared/random";
import type { BootStatus, Instance } from "./instance-state";

/**
 * null is the service's "provisioning"; loading comes next while the image is pulled. A reboot
 * shows `rebooting` and a rebuild `recycling` until the container runs again.
 */
export type ActualStatus = BootStatus | "loading" | "stopped" | "rebooting" | "recycling" | null;

function defaultMessage(status: BootStatus, image: string): string {
  switch (status) {
    case "running":
      return `success, running ${image}`;
    case "exited":
      return "Error: container exited with code 1";
    case "unknown":
      return "Error: host is not responding";
    case "offline":
      return "Error: machine is offline";
  }
}

/** The status message of an interruptible instance that lost its machine to a higher bid. */
export function outbidMessage(dollarsPerHour: number): string {
  return `Outbid: a higher bid of $${dollarsPerHour.toFixed(4)}/hour took the machine; raise your bid above it to resume.`;
}

/**
 * Where the instance is after the polls it has had (plus `extraPolls` not yet counted: a list
 * looks at instances as the poll it is about to count leaves them). Polling itself is the
 * caller's change.
 */
export function statusOf(
  instance: Instance,
  nowMs: number,
  extraPolls = 0,
): { actualStatus: ActualStatus; statusMsg: string | null } {
  if (instance.intendedStatus === "stopped") {
    return { actualStatus: "stopped", statusMsg: "Instance stopped by the user." };
  }
  if (instance.outbidDollarsPerHour !== null) {
    return { actualStatus: "stopped", statusMsg: outbidMessage(instance.outbidDollarsPerHour) };
  }
  const { boot } = instance;
  const polls = instance.polls + extraPolls;
  const bootStartedAtMs = instance.restartedAtMs ?? instance.createdAtMs;
  const waited =
    boot.afterSeconds === undefined || nowMs - bootStartedAtMs >= boot.afterSeconds * 1000;
  if (polls >= boot.afterPolls && waited) {
    return {
      actualStatus: boot.status,
      statusMsg: boot.statusMsg ?? defaultMessage(boot.status, instance.image),
    };
  }
  if (instance.containerAction === "rebooting") {
    return {
      actualStatus: "rebooting",
      statusMsg: "Rebooting: the container is stopped and started",
    };
  }
  if (instance.containerAction === "recycling") {
    return {
      actualStatus: "recycling",
      statusMsg: `Recreating the container: pulling ${instance.image}`,
    };
  }
  // A restarted instance is already on its machine: no provisioning phase again.
  if (polls <= 1 && instance.restartedAtMs === null) return { actualStatus: null, statusMsg: null };
  return { actualStatus: "loading", statusMsg: "Pulling image" };
}

export function isRunning(instance: Instance, nowMs: number): boolean {
  return statusOf(instance, nowMs).actualStatus === "running";
}

export function stop(instance: Instance): void {
  instance.intendedStatus = "stopped";
}

/** How long a boot takes when no queued outcome says: polls, or wall-clock seconds. */
export interface BootTiming {
  readonly afterPolls: number;
  readonly afterSeconds?: number;
}

/**
 * The emulator's boot timing for an instance: `bootPolls` polls, or with `bootSeconds` that
 * many seconds whoever polls, with a jitter of up to `bootJitterSeconds` either way that is
 * the same for the same instance id and seed.
 */
export function bootTimingOf(
  settings: Pick<EmulatorSettings, "bootPolls" | "bootSeconds" | "bootJitterSeconds" | "seed">,
  instanceId: number,
): BootTiming {
  if (settings.bootSeconds === undefined) return { afterPolls: settings.bootPolls };
  const spread =
    (seededRandom((settings.seed ?? 1) * 1_000_003 + instanceId)() * 2 - 1) *
    settings.bootJitterSeconds;
  return { afterPolls: 0, afterSeconds: Math.max(0, settings.bootSeconds + spread) };
}

/**
 * Starts a stopped instance again: it loads for the boot timing, then reaches the outcome of
 * its machine once more. A machine that ran it runs it again; a dead end stays a dead end (the
 * spec: such an instance never becomes running). Starting a started instance changes nothing.
 */
export function start(instance: Instance, nowMs: number, timing: BootTiming): void {
  if (instance.intendedStatus === "running") return;
  instance.intendedStatus = "running";
  reboot(instance, nowMs, timing);
  instance.containerAction = null;
}

/** Loads again on its machine for the boot timing, then reaches its outcome once more. */
export function reboot(instance: Instance, nowMs: number, timing: BootTiming): void {
  const { status, statusMsg } = instance.boot;
  instance.restartedAtMs = nowMs;
  instance.containerAction = null;
  instance.polls = 0;
  instance.boot = {
    status,
    ...timing,
    ...(statusMsg === undefined ? {} : { statusMsg }),
  };
}
