import { createHash } from "node:crypto";
import { z } from "zod";
import { machineOf, round } from "../market/machine";
import { mountsOf } from "../volumes/mounts";
import { instancePrices } from "./instance-pricing";
import type { Instance } from "./instance-state";
import { statusOf } from "./lifecycle";
import { servedPortsOf } from "./served-ports";

const num = z.number();
const int = z.int();
const str = z.string();
const bool = z.boolean();
const PricingSchema = z.object({
  gpuCostPerHour: num,
  diskHour: num,
  totalHour: num,
  discountTotalHour: num,
  discountedTotalPerHour: num,
});
const PortMapSchema = z.record(str, z.array(z.object({ HostIp: str, HostPort: str })));

/**
 * An instance as GET /api/v0/instances/{id}/ and GET /api/v1/instances/ show it: every field
 * of the description's Instance schema (and of the v1 list's rows), in its order. Fields that
 * only exist on a running container (addresses, ports, usage) are null until then.
 */
export const InstanceRowSchema = z.object({
  id: int,
  actual_status: str.nullable(),
  intended_status: str,
  cur_state: str,
  next_state: str,
  label: str.nullable(),
  template_id: int.nullable(),
  template_hash_id: str.nullable(),
  template_name: str.nullable(),
  image_uuid: str,
  image_args: z.array(str),
  image_runtype: str,
  /** [name, value] pairs, as the service lists them. */
  extra_env: z.array(z.tuple([str, str])),
  onstart: str.nullable(),
  jupyter_token: str,
  status_msg: str.nullable(),
  local_ipaddrs: str.nullable(),
  ssh_host: str.nullable(),
  ssh_idx: str.nullable(),
  ssh_port: int.nullable(),
  machine_dir_ssh_port: int.nullable(),
  machine_id: int,
  bundle_id: int,
  /** Epoch seconds. */
  start_date: num,
  end_date: num,
  uptime_mins: num.nullable(),
  /** Seconds. */
  duration: num,
  cpu_arch: str,
  cpu_cores: int,
  cpu_cores_effective: num,
  cpu_name: str,
  /** MB */
  cpu_ram: int,
  cpu_util: num.nullable(),
  mem_limit: num.nullable(),
  mem_usage: num.nullable(),
  vmem_usage: num.nullable(),
  gpu_name: str,
  gpu_arch: str,
  /** MB */
  gpu_totalram: int,
  /** MB */
  gpu_ram: int,
  gpu_util: num.nullable(),
  gpu_temp: num.nullable(),
  gpu_frac: num,
  gpu_lanes: int,
  gpu_mem_bw: num,
  bw_nvlink: num,
  disk_name: str,
  /** GB */
  disk_space: num,
  disk_bw: num,
  disk_util: num,
  disk_usage: num,
  direct_port_count: int,
  direct_port_start: int,
  direct_port_end: int,
  /** Docker's port map; only while running (the v1 list's documented shape). */
  ports: PortMapSchema.nullable(),
  static_ip: bool,
  public_ipaddr: str.nullable(),
  geolocation: str,
  verification: str,
  rentable: bool,
  host_id: int,
  hosting_type: int,
  min_bid: num,
  is_bid: bool,
  dph_base: num,
  dph_total: num,
  dlperf: num,
  dlperf_per_dphtotal: num,
  flops_per_dphtotal: num,
  total_flops: num,
  score: num,
  reliability2: num,
  os_version: str,
  mobo_name: str,
  pci_gen: num,
  pcie_bw: num,
  num_gpus: int,
  logo: str,
  webpage: str.nullable(),
  search: PricingSchema,
  instance: PricingSchema,
  /** $/GB/month */
  storage_cost: num,
  /** $/hour for this instance's disk */
  storage_total_cost: num,
  /** $/GB of traffic: not in the description's Instance schema, but in its offers' and the service's rows. */
  inet_up_cost: num,
  inet_down_cost: num,
  vram_costperhour: num,
  credit_balance: num.nullable(),
  credit_discount: num.nullable(),
  credit_discount_max: num,
  client_run_time: num,
  host_run_time: num,
  external: bool,
  time_remaining: str,
  time_remaining_isbid: str,
  country_code: str.nullable(),
  volume_info: z.array(z.record(str, z.unknown())),
  /** Not in the description; the emulator has always shown the runtype it was created with. */
  runtype: str,
});
export type InstanceRow = z.infer<typeof InstanceRowSchema>;

/** Rentals of the emulator's asks end 30 days after they start. */
const RENTAL_SECONDS = 30 * 24 * 3600;
const DIRECT_PORTS = 100;

/** "-p 8000:8000" (or "-p 8000:8000/udp") env entries open a container port ("8000/tcp"). */
export function openedPorts(instance: Instance): string[] {
  return Object.keys(instance.env).flatMap((name) => {
    const match = /^-p\s+\d+:(\d+)(\/udp)?$/.exec(name.trim());
    return match?.[1] === undefined ? [] : [`${match[1]}/${match[2] ? "udp" : "tcp"}`];
  });
}

/** The show/list row. Addresses are in 192.0.2.0/24 (documentation range): never contacted. */
export function describeInstance(instance: Instance, nowMs: number, extraPolls = 0): InstanceRow {
  const { actualStatus, statusMsg } = statusOf(instance, nowMs, extraPolls);
  const running = actualStatus === "running";
  const stopped = instance.intendedStatus === "stopped";
  // An outbid instance wants to run but has lost its machine: its contract is stopped.
  const outbid = !stopped && instance.outbidDollarsPerHour !== null;
  const { offer } = instance;
  const machine = machineOf(offer);
  const sshPort = 20000 + (instance.id % 10000);
  const directPortStart = 40000 + (instance.id % 200) * DIRECT_PORTS;
  const startDate = instance.createdAtMs / 1000;
  const bootedAtMs = instance.restartedAtMs ?? instance.createdAtMs;
  const prices = instancePrices(instance, actualStatus, nowMs);
  const dphTotal = prices.dph_total;
  // With `servePorts`, the opened ports answer on the loopback address (port-server.ts).
  const served = servedPortsOf(instance);
  const ports = Object.fromEntries([
    ["22/tcp", [{ HostIp: "0.0.0.0", HostPort: String(sshPort) }]],
    ...openedPorts(instance).map((port, index) => [
      port,
      [{ HostIp: "0.0.0.0", HostPort: String(served?.ports.get(port) ?? directPortStart + index) }],
    ]),
  ]) as z.infer<typeof PortMapSchema>;
  const perDollar = (value: number) => (dphTotal > 0 ? round(value / dphTotal, 4) : 0);
  const state = stopped ? "stopped" : "running";

  return {
    id: instance.id,
    actual_status: actualStatus,
    intended_status: state,
    cur_state: outbid ? "stopped" : state,
    next_state: state,
    label: instance.label,
    template_id: instance.template?.id ?? null,
    template_hash_id: instance.template?.hashId ?? null,
    template_name: instance.template?.name ?? null,
    image_uuid: instance.image,
    image_args: instance.args,
    image_runtype: instance.runtype,
    extra_env: Object.entries(instance.env),
    onstart: instance.onstart,
    jupyter_token: createHash("sha256")
      .update(`jupyter:${String(instance.id)}`)
      .digest("hex"),
    status_msg: statusMsg,
    // The overlay's address first: the interface the multi-node guide calls eth0.
    local_ipaddrs: running
      ? `${instance.overlay ? `${instance.overlay.address} ` : ""}10.0.${String(instance.id % 250)}.2 172.17.0.1\n`
      : null,
    ssh_host: running ? "ssh1.emulator.local" : null,
    ssh_idx: running ? "1" : null,
    ssh_port: running ? sshPort : null,
    machine_dir_ssh_port: running ? sshPort + 1 : null,
    machine_id: machine.machineId,
    bundle_id: offer.id,
    start_date: startDate,
    end_date: startDate + RENTAL_SECONDS,
    uptime_mins: running ? round((nowMs - bootedAtMs) / 60_000, 2) : null,
    duration: RENTAL_SECONDS,
    cpu_arch: "amd64",
    cpu_cores: machine.cpuCores,
    cpu_cores_effective: machine.cpuCores,
    cpu_name: machine.cpuName,
    cpu_ram: machine.cpuRamMb,
    cpu_util: running ? 0.02 : null,
    mem_limit: running ? machine.cpuRamMb : null,
    mem_usage: running ? 1024 : null,
    vmem_usage: running ? 2048 : null,
    gpu_name: offer.gpuName,
    gpu_arch: "nvidia",
    gpu_totalram: offer.gpuRamMb,
    gpu_ram: offer.gpuRamMb,
    gpu_util: running ? 0 : null,
    gpu_temp: running ? 34 : null,
    gpu_frac: 1,
    gpu_lanes: 16,
    gpu_mem_bw: machine.memoryBandwidthGbps,
    bw_nvlink: machine.nvlinkGbps,
    disk_name: "Samsung SSD 990 PRO 4TB",
    disk_space: instance.diskGb,
    disk_bw: 3500,
    disk_util: running ? 0.01 : -1,
    disk_usage: running ? 0.05 : -1,
    direct_port_count: DIRECT_PORTS,
    direct_port_start: running ? directPortStart : -1,
    direct_port_end: running ? directPortStart + DIRECT_PORTS - 1 : -1,
    ports: running ? ports : null,
    static_ip: machine.datacenter,
    public_ipaddr: running
      ? (served?.address ?? `192.0.2.${String((instance.id % 254) + 1)}`)
      : null,
    geolocation: offer.geolocation,
    verification: "verified",
    rentable: true,
    host_id: machine.hostId,
    hosting_type: machine.datacenter ? 1 : 0,
    min_bid: prices.min_bid,
    is_bid: instance.bidDollarsPerHour !== null,
    dph_base: prices.dph_base,
    dph_total: dphTotal,
    dlperf: machine.dlperf,
    dlperf_per_dphtotal: perDollar(machine.dlperf),
    flops_per_dphtotal: perDollar(machine.totalTflops),
    total_flops: machine.totalTflops,
    score: round(perDollar(machine.dlperf) * machine.reliability, 4),
    reliability2: machine.reliability,
    os_version: "22.04",
    mobo_name: machine.datacenter ? "H13SSL-N" : "ROG STRIX X670E-E",
    pci_gen: machine.datacenter ? 5 : 4,
    pcie_bw: machine.datacenter ? 52.4 : 25.3,
    num_gpus: offer.numGpus,
    logo: "/static/logos/gpucloud.png",
    webpage: null,
    search: prices.search,
    instance: prices.instance,
    storage_cost: prices.storage_cost,
    storage_total_cost: prices.storage_total_cost,
    inet_up_cost: prices.inet_up_cost,
    inet_down_cost: prices.inet_down_cost,
    vram_costperhour: prices.vram_costperhour,
    credit_balance: prices.credit_balance,
    credit_discount: prices.credit_discount,
    credit_discount_max: prices.credit_discount_max,
    client_run_time: round((nowMs - instance.createdAtMs) / 3_600_000, 4),
    host_run_time: RENTAL_SECONDS,
    external: false,
    time_remaining: "",
    time_remaining_isbid: "",
    country_code: machine.countryCode,
    volume_info: mountsOf(instance).map((mount) => ({
      volume_id: mount.volumeId,
      name: `V.${String(mount.volumeId)}`,
      mount_path: mount.mountPath,
    })),
    runtype: instance.runtype,
  };
}
