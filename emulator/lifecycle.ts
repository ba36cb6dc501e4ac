import type { BootStatus, Instance } from "./state";

/** null is the service's "provisioning"; loading comes next while the image is pulled. */
type ActualStatus = BootStatus | "loading" | null;

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

/** Where the instance is after the polls it has had; polling itself is the caller's change. */
export function statusOf(
  instance: Instance,
  nowMs: number,
): { actualStatus: ActualStatus; statusMsg: string | null } {
  const { boot, polls } = instance;
  const waited =
    boot.afterSeconds === undefined || nowMs - instance.createdAtMs >= boot.afterSeconds * 1000;
  if (polls >= boot.afterPolls && waited) {
    return {
      actualStatus: boot.status,
      statusMsg: boot.statusMsg ?? defaultMessage(boot.status, instance.image),
    };
  }
  if (polls <= 1) return { actualStatus: null, statusMsg: null };
  return { actualStatus: "loading", statusMsg: "Pulling image" };
}

export function isRunning(instance: Instance, nowMs: number): boolean {
  return statusOf(instance, nowMs).actualStatus === "running";
}

/** The show/list shape. Addresses are in 192.0.2.0/24 (documentation range): never contacted. */
export function describeInstance(instance: Instance, nowMs: number) {
  const { actualStatus, statusMsg } = statusOf(instance, nowMs);
  const running = actualStatus === "running";
  return {
    id: instance.id,
    actual_status: actualStatus,
    intended_status: "running",
    cur_state: "running",
    status_msg: statusMsg,
    ssh_host: running ? "ssh1.emulator.local" : null,
    ssh_port: running ? 20000 + (instance.id % 10000) : null,
    public_ipaddr: running ? `192.0.2.${String((instance.id % 254) + 1)}` : null,
    label: instance.label,
    image_uuid: instance.image,
    onstart: instance.onstart,
    // The real service lists env as [name, value] pairs.
    extra_env: Object.entries(instance.env),
    disk_space: instance.diskGb,
    gpu_ram: instance.offer.gpuRamMb,
    gpu_name: instance.offer.gpuName,
    num_gpus: instance.offer.numGpus,
    dph_total: instance.offer.dollarsPerHour,
    geolocation: instance.offer.geolocation,
    runtype: instance.runtype,
  };
}
