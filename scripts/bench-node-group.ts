/**
 * `npm run bench:node-group [-- --sizes 4,16]`: a NodeGroup's `up` and `destroy` under the
 * service's documented rate limits with 20 s boots, for docs/maintainers/performance.md: the time
 * until every node runs, the requests by kind, and the refusals (429). The emulator's market is
 * the generated one plus a 20-machine H100 cluster (the generated clusters hold at most 11
 * matching offers). A measurement, not a test: nothing asserts a figure.
 */
import { parseArgs } from "node:util";
import { startTestEmulator, type LoggedRequest } from "../test/support/emulator";
import { emulatorConfig, program } from "../test/support/programs";
import { withStack } from "../test/support/pulumi-stack";
import { routeOf } from "../test/support/scale";

const { values: args } = parseArgs({ options: { sizes: { type: "string", default: "4,16" } } });
const sizes = (args.sizes ?? "4,16").split(",").map(Number);
const bootSeconds = 20;

/** A cluster of 20 H100 machines beside the generated market. */
const clusterAsks = Array.from({ length: 20 }, (_, index) => ({
  id: 95001 + index,
  gpuName: "H100 SXM",
  numGpus: 8,
  gpuRamMb: 81920,
  dollarsPerHour: 20 + index * 0.05,
  diskGb: 2000,
  geolocation: "Helsinki, FI",
  machineId: 95001 + index,
  hostId: 9500,
  datacenter: true,
  clusterId: 950,
}));

/** `POST overlay`, `GET instances/{id}`: the request's kind. */
const kindOf = (request: LoggedRequest) =>
  `${request.method} ${routeOf(request.path)
    .replace(/^\/api\/v[01]\//, "")
    .replace(/\/\d+(?=\/|$)/g, "/{id}")}`;

function tally(requests: readonly LoggedRequest[]) {
  const kinds = new Map<string, { answered: number; refused: number }>();
  for (const request of requests) {
    if (request.path.startsWith("/_emulator")) continue;
    const kind = kinds.get(kindOf(request)) ?? { answered: 0, refused: 0 };
    if (request.status === 429) kind.refused += 1;
    else kind.answered += 1;
    kinds.set(kindOf(request), kind);
  }
  return [...kinds.entries()].sort(([a], [b]) => a.localeCompare(b));
}

async function measure(nodeCount: number): Promise<void> {
  const emulator = await startTestEmulator({
    market: { seed: 1 },
    instanceAsks: clusterAsks,
    networkVolumeAsks: [
      {
        id: 95901,
        clusterId: 950,
        diskGb: 20000,
        storageCostPerGbMonth: 0.08,
        geolocation: "Helsinki, FI",
      },
    ],
    rateLimits: "documented",
    bootSeconds,
  });
  try {
    await withStack(
      {
        program: program(`
new gpucloud.NodeGroup("trainers", {
  nodeCount: ${nodeCount},
  offerQuery: { gpuName: "H100 SXM", numGpus: 8 },
  image: "pytorch/pytorch",
  diskGb: 100,
  networkVolume: { sizeGb: 500, mountPath: "/data" },
  pollIntervalSeconds: 3,
});`),
        config: emulatorConfig(emulator),
      },
      async ({ stack }) => {
        for (const step of ["up", "destroy"] as const) {
          await emulator.clearRequests();
          const started = Date.now();
          if (step === "up") await stack.up();
          else await stack.destroy();
          const seconds = (Date.now() - started) / 1000;
          const requests = await emulator.requests();
          const refused = requests.filter((request) => request.status === 429).length;
          console.log(
            `\n### ${nodeCount} nodes, ${step}: ${seconds.toFixed(1)} s, ` +
              `${requests.length} requests, ${refused} refused (429)\n`,
          );
          if (step === "up") {
            // When the rents landed (the emulator's clock is this machine's), and so where the
            // last boot ended: what `up` took beyond one boot is the goal's measure.
            const rentedAtMs = (await emulator.state()).instances.map((i) =>
              Number(i["createdAtMs"]),
            );
            const first = (Math.min(...rentedAtMs) - started) / 1000;
            const last = (Math.max(...rentedAtMs) - started) / 1000;
            console.log(
              `rents landed from +${first.toFixed(1)} s to +${last.toFixed(1)} s; the last boot ` +
                `ended at +${(last + bootSeconds).toFixed(1)} s; up ended ` +
                `${(seconds - last - bootSeconds).toFixed(1)} s after it, ` +
                `${(seconds - bootSeconds).toFixed(1)} s beyond one boot\n`,
            );
          }
          console.log("| request | answered | refused |\n| --- | --- | --- |");
          for (const [kind, { answered, refused: no }] of tally(requests)) {
            console.log(`| ${kind} | ${answered} | ${no} |`);
          }
        }
      },
    );
  } finally {
    await emulator.close();
  }
}

async function main(): Promise<void> {
  for (const size of sizes) await measure(size);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
