import type { BootStatus, Instance } from "./state";

/** null is the service's "provisioning"; loading comes next while the image is pulled. */
export type ActualStatus = BootStatus | "loading" | "stopped" | null;

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

/**
 * Starts a stopped instance again: it loads for `bootPolls` polls, then reaches the outcome of
 * its machine once more. A machine that ran it runs it again; a dead end stays a dead end (the
 * spec: such an instance never becomes running). Starting a started instance changes nothing.
 */
export function start(instance: Instance, nowMs: number, bootPolls: number): void {
  if (instance.intendedStatus === "running") return;
  const { status, statusMsg } = instance.boot;
  instance.intendedStatus = "running";
  instance.restartedAtMs = nowMs;
  instance.polls = 0;
  instance.boot = {
    status,
    afterPolls: bootPolls,
    ...(statusMsg === undefined ? {} : { statusMsg }),
  };
}
