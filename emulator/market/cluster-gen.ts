import { seededRandom } from "../shared/random";
import type { InstanceAsk, NetworkVolumeAsk, VolumeAsk } from "./asks";
import { round } from "./machine";

/**
 * Physical clusters in a generated market: a few hosts wire 4 to 16 of their datacenter
 * machines of one GPU model into a LAN, and list network-disk storage on it. Most machines are
 * in no cluster. Deterministic from the market's seed, through a stream of its own, so that
 * every other value of the market is what it was before clusters existed.
 */

export const FIRST_GENERATED_CLUSTER = 101;
export const FIRST_GENERATED_NETWORK_VOLUME_ASK = 26001;
const MAX_CLUSTERS = 4;
const MIN_MACHINES = 4;
const MAX_MACHINES = 16;

type Random = () => number;

function shuffled<T>(items: readonly T[], random: Random): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/** Datacenter machines of the given GPUs, by GPU, each machine's asks beside it (ids ascending). */
function candidates(asks: readonly InstanceAsk[], datacenterGpus: ReadonlySet<string>) {
  const byGpu = new Map<string, Map<number, InstanceAsk[]>>();
  for (const ask of asks) {
    if (!ask.datacenter || !datacenterGpus.has(ask.gpuName)) continue;
    const machines = byGpu.get(ask.gpuName) ?? new Map<number, InstanceAsk[]>();
    machines.set(ask.machineId, [...(machines.get(ask.machineId) ?? []), ask]);
    byGpu.set(ask.gpuName, machines);
  }
  return byGpu;
}

function networkVolumeAsk(
  id: number,
  clusterId: number,
  manager: InstanceAsk,
  random: Random,
): NetworkVolumeAsk {
  const between = (low: number, high: number) => low + random() * (high - low);
  const minBw = round(between(300, 900), 1);
  const maxBw = round(between(1500, 4000), 1);
  const sizes = [2000, 5000, 10000, 20000];
  return {
    id,
    clusterId,
    diskGb: sizes[Math.floor(random() * sizes.length)] ?? 2000,
    storageCostPerGbMonth: round(between(0.04, 0.15), 3),
    geolocation: manager.geolocation,
    hostId: manager.hostId,
    reliability: manager.reliability,
    verification: manager.verification,
    external: manager.external,
    inetUpMbps: manager.inetUpMbps,
    inetDownMbps: manager.inetDownMbps,
    nwDiskMinBwMbps: minBw,
    nwDiskMaxBwMbps: maxBw,
    nwDiskAvgBwMbps: round(between(minBw, maxBw), 1),
    listedAtSeconds: manager.listedAtSeconds,
    endsAtSeconds: manager.endsAtSeconds,
  };
}

/**
 * Puts some machines of the generated asks into clusters (changing, on those machines only,
 * `clusterId` and, since a cluster is one host's LAN in one place, `hostId` and `geolocation`
 * to its first machine's) and answers each cluster's network-volume ask.
 */
export function formClusters(
  /** Changed in place: the asks of machines put in a cluster. */
  instanceAsks: InstanceAsk[],
  volumeAsks: VolumeAsk[],
  seed: number,
  datacenterGpus: ReadonlySet<string>,
): NetworkVolumeAsk[] {
  const random = seededRandom((seed ^ 0x2545f491) >>> 0);
  const byGpu = candidates(instanceAsks, datacenterGpus);
  const networkVolumeAsks: NetworkVolumeAsk[] = [];
  for (const gpu of shuffled([...byGpu.keys()].sort(), random)) {
    if (networkVolumeAsks.length >= MAX_CLUSTERS) break;
    const machines = byGpu.get(gpu) ?? new Map<number, InstanceAsk[]>();
    // At most half of a GPU's machines, so that most machines stay in no cluster.
    const most = Math.min(MAX_MACHINES, Math.floor(machines.size / 2));
    if (most < MIN_MACHINES) continue;
    const size = MIN_MACHINES + Math.floor(random() * (most - MIN_MACHINES + 1));
    const members = shuffled([...machines.keys()], random)
      .slice(0, size)
      .sort((a, b) => a - b);
    const [managerId] = members;
    const manager = managerId === undefined ? undefined : machines.get(managerId)?.[0];
    if (!manager) continue;
    const clusterId = FIRST_GENERATED_CLUSTER + networkVolumeAsks.length;
    const { hostId, geolocation } = manager;
    const inCluster = new Set(members);
    for (const ask of [...instanceAsks, ...volumeAsks]) {
      if (inCluster.has(ask.machineId)) Object.assign(ask, { clusterId, hostId, geolocation });
    }
    networkVolumeAsks.push(
      networkVolumeAsk(
        FIRST_GENERATED_NETWORK_VOLUME_ASK + networkVolumeAsks.length,
        clusterId,
        manager,
        random,
      ),
    );
  }
  return networkVolumeAsks;
}
