/**
 * `npm run bench [-- --quick] [-- --fleet] [-- --sizes 10,50] [-- --repeat R] [-- --out DIR]`: how our resources compare
 * with the engine's own floor (no-op dynamic resources) at N = 10, 50 and 200, for pulumi up,
 * refresh and destroy: wall time, API requests, state bytes per resource and the
 * dynamic-provider process's peak memory; and, once per run, the API requests each Instance
 * created by `offerQuery` costs (against an emulator with a generated market). Writes bench.md,
 * bench.json and bench.svg to bench-results/ and prints the tables. A measurement, not a test:
 * nothing asserts a timing.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { z } from "zod";
import type { InstanceOfferQuery } from "../provider/client";
import { repoRoot } from "../test/support/repo-root";
import { startTestEmulator, type TestEmulator } from "../test/support/emulator";
import {
  byQueryProgram,
  countInstanceRequests,
  instanceRequestKind,
  type InstanceRequestKind,
  instanceRequestKinds,
  type Mix,
  mixedProgram,
  mixFor,
  noopProgram,
  routeOf,
  shapesProgram,
  stackOverhead,
  successfulCreates,
} from "../test/support/scale";
import { withStack } from "../test/support/pulumi-stack";
import { emulatorConfig, outsideClient, program, stateResources } from "../test/support/programs";
import {
  fleetEmulatorOptions,
  fleetParallel,
  fleetProgram,
  fleetRequests,
  fleetSize,
  fleetTimeline,
  type FleetTimeline,
} from "../test/support/fleet";
import { lineChart, type Series } from "./bench/chart";

const execFileAsync = promisify(execFile);

/**
 * The three stacks of each size: ours; the no-op floor (the engine's own cost); and our resources'
 * shapes (our classes and their properties, no-op providers: what the engine and the SDK charge
 * for those properties, so that ours over shapes is our provider's own cost).
 */
const allKinds = ["floor", "shapes", "every", "ours"] as const;
type Kind = (typeof allKinds)[number];
const steps = ["up", "refresh", "destroy"] as const;
type StepName = (typeof steps)[number];

interface StepMeasure {
  readonly kind: Kind;
  readonly n: number;
  readonly step: StepName;
  readonly seconds: number;
  /**
   * CPU seconds of the step: the processes it started (the CLI, its plugins, the program) and the
   * bench's own process (the in-process emulator). Less moved by other work on a shared machine
   * than the wall time.
   */
  readonly cpuSeconds: number;
  /** Requests the emulator logged during the step. */
  readonly requests: number;
  /** Peak RSS of the dynamic-provider process(es) of the step, in KB. */
  readonly providerPeakRssKb: number | undefined;
  readonly providerProcesses: number;
  /** Peak RSS of the program's process (the language host's `cmd/run`), in KB. */
  readonly programPeakRssKb: number | undefined;
  readonly resourceChanges: Record<string, number>;
  /** Seconds of every run, when the figures above are medians of several. */
  readonly secondsSamples?: number[];
}

interface StateMeasure {
  readonly kind: Kind;
  readonly n: number;
  /** Bytes of the stack's checkpoint file, the (compact) JSON the file backend rewrites. */
  readonly stateFileBytes: number;
  readonly stateFileBytesPerResource: number;
  /** `pulumi stack export` output bytes (secrets encrypted). */
  readonly exportBytes: number;
  readonly exportBytesPerResource: number;
  /** Mean compact-JSON bytes of one dynamic resource's entry in the state. */
  readonly dynamicEntryBytes: number;
  /** Mean bytes of one copy of `__provider` (the state holds it in inputs and in outputs). */
  readonly providerShimBytes: number;
  /** The same by resource type. */
  readonly providerShimBytesByType: Record<string, number>;
  readonly dynamicEntryBytesByType: Record<string, number>;
}

interface StackMeasure {
  readonly kind: Kind;
  readonly n: number;
  readonly mix: Mix | undefined;
  readonly steps: StepMeasure[];
  readonly state: StateMeasure;
}

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    // The fleet alone (printed, nothing written): for work on pacing and the hand-over.
    fleet: { type: "boolean", default: false },
    sizes: { type: "string" },
    repeat: { type: "string" },
    out: { type: "string" },
    "stacks-only": { type: "boolean", default: false },
    attribute: { type: "boolean", default: false },
  },
  strict: true,
});

const sizes: number[] = flags.sizes
  ? flags.sizes.split(",").map((text) => {
      const n = Number(text);
      if (!Number.isInteger(n) || n < 5) throw new Error(`--sizes: ${text} is not an integer ≥ 5`);
      return n;
    })
  : flags.quick
    ? [10]
    : [10, 50, 200];
const repeat = flags.repeat === undefined ? (flags.quick ? 1 : 3) : Number(flags.repeat);
if (!Number.isInteger(repeat) || repeat < 1) {
  throw new Error(`--repeat: ${flags.repeat ?? ""} is not a positive integer`);
}
/**
 * The stacks of each size. With `--attribute`, also `every`: the shapes stack with every output
 * name registered, inputs left out included (as the classes did before they registered only the
 * inputs given and what the service reports): what those names cost.
 */
const kinds: readonly Kind[] = allKinds.filter((kind) => kind !== "every" || flags.attribute);
const outDir = path.resolve(flags.out ?? path.join(repoRoot, "bench-results"));
const recorder = path.join(repoRoot, "scripts", "bench", "rss-recorder.cjs");

function log(line: string): void {
  process.stdout.write(`[bench] ${line}\n`);
}

// ---- Peak memory --------------------------------------------------------------------------

const rssLineSchema = z.object({
  pid: z.number(),
  argv: z.array(z.string()),
  maxRssKb: z.number(),
  signal: z.string().optional(),
});
type RssLine = z.infer<typeof rssLineSchema>;

async function readRss(file: string): Promise<RssLine[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => rssLineSchema.parse(JSON.parse(line)));
}

const isProvider = (line: RssLine): boolean =>
  line.argv.some((arg) => arg.includes("dynamic-provider"));
const isProgram = (line: RssLine): boolean =>
  line.argv.some((arg) => arg.includes(`${path.sep}cmd${path.sep}run`));

/**
 * The recorder's lines of a step. The engine stops the provider with SIGINT as the step ends;
 * its line is normally there when the Automation API call returns, but wait briefly if not.
 */
async function stepRss(file: string): Promise<RssLine[]> {
  for (let waited = 0; ; waited += 100) {
    const lines = await readRss(file);
    if (lines.some(isProvider) || waited >= 3_000) return lines;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const peak = (lines: RssLine[]): number | undefined =>
  lines.length === 0 ? undefined : Math.max(...lines.map((line) => line.maxRssKb));

// ---- CPU time ------------------------------------------------------------------------------

/** Clock ticks a second of /proc's times (USER_HZ: 100 on Linux). */
const ticksPerSecond = 100;

/**
 * CPU seconds used so far by this process and by its children that have ended (each with the
 * descendants it waited for: a step's CLI, language host, program and plugins), from
 * /proc/self/stat's utime, stime, cutime and cstime; where there is no /proc, this process's alone.
 */
async function cpuSecondsSoFar(): Promise<number> {
  const own = process.cpuUsage();
  const ownSeconds = (own.user + own.system) / 1e6;
  const stat = await readFile("/proc/self/stat", "utf8").catch(() => undefined);
  if (stat === undefined) return ownSeconds;
  // The fields after the command's closing parenthesis start at field 3 (state); cutime and
  // cstime are fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const children = Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(children) ? ownSeconds + children / ticksPerSecond : ownSeconds;
}

// ---- State size ---------------------------------------------------------------------------

const mean = (numbers: number[]): number =>
  numbers.length === 0 ? 0 : numbers.reduce((a, b) => a + b, 0) / numbers.length;

function measureState(
  kind: Kind,
  n: number,
  exported: string,
  stateFileBytes: number,
): StateMeasure {
  const dynamic = stateResources(exported).filter((resource) =>
    resource.type.startsWith("pulumi-nodejs:dynamic"),
  );
  // Ours (and their shapes) also hold the stack's instance sweeper: its bytes count against N.
  const expected = kind === "floor" ? n : n + stackOverhead(mixFor(n)) - 1;
  if (dynamic.length !== expected) {
    throw new Error(`${kind} N=${n}: ${dynamic.length} dynamic resources in the state`);
  }
  const shimBytes = (resource: (typeof dynamic)[number]): number => {
    const shim = resource.outputs?.["__provider"];
    return typeof shim === "string" ? Buffer.byteLength(shim) : 0;
  };
  const entryBytes = (resource: (typeof dynamic)[number]): number =>
    Buffer.byteLength(JSON.stringify(resource));
  const byType = (measure: (resource: (typeof dynamic)[number]) => number) => {
    const types = [...new Set(dynamic.map((resource) => resource.type))].sort();
    return Object.fromEntries(
      types.map((type) => [
        type.replace(/^pulumi-nodejs:dynamic[/:]?/, "") || "Resource",
        Math.round(mean(dynamic.filter((r) => r.type === type).map(measure))),
      ]),
    );
  };
  const exportBytes = Buffer.byteLength(exported);
  return {
    kind,
    n,
    stateFileBytes,
    stateFileBytesPerResource: Math.round(stateFileBytes / n),
    exportBytes,
    exportBytesPerResource: Math.round(exportBytes / n),
    dynamicEntryBytes: Math.round(mean(dynamic.map(entryBytes))),
    providerShimBytes: Math.round(mean(dynamic.map(shimBytes))),
    providerShimBytesByType: byType(shimBytes),
    dynamicEntryBytesByType: byType(entryBytes),
  };
}

/** The size of the stack's checkpoint file in a file backend (`.pulumi/stacks/<project>/<stack>.json`). */
async function checkpointBytes(backendDir: string): Promise<number> {
  const stacks = path.join(backendDir, ".pulumi", "stacks");
  for (const project of await readdir(stacks)) {
    for (const file of await readdir(path.join(stacks, project))) {
      if (file.endsWith(".json")) return (await stat(path.join(stacks, project, file))).size;
    }
  }
  throw new Error(`no checkpoint file under ${stacks}`);
}

// ---- One stack ----------------------------------------------------------------------------

async function measureStack(
  kind: Kind,
  n: number,
  emulator: TestEmulator,
  rssLog: string,
  options: { readonly sharesInstalledPackage?: boolean } = {},
): Promise<StackMeasure> {
  const mix = kind === "floor" ? undefined : mixFor(n);
  const program =
    mix === undefined
      ? noopProgram(n)
      : kind === "shapes" || kind === "every"
        ? shapesProgram(mix, { pollIntervalSeconds: 0.05 }, { everyOutput: kind === "every" })
        : mixedProgram(mix, { pollIntervalSeconds: 0.05 });
  return withStack(
    {
      program,
      config: kind === "ours" ? emulatorConfig(emulator) : undefined,
      env: { NODE_OPTIONS: `--require ${JSON.stringify(recorder)}`, GPUCLOUD_RSS_LOG: rssLog },
      // One project name for both kinds: it is part of every URN, hence of the state sizes.
      projectName: "gpucloud-bench",
      sharesInstalledPackage: options.sharesInstalledPackage,
    },
    async ({ stack, exportState, output, workDir }) => {
      const onOutput = (text: string) => output.push(text);
      const measured: StepMeasure[] = [];
      let state: StateMeasure | undefined;
      const expected: Record<StepName, Record<string, number>> = {
        up: { create: n + stackOverhead(mix) },
        refresh: { same: n + stackOverhead(mix) },
        destroy: { delete: n + stackOverhead(mix) },
      };
      for (const step of steps) {
        await writeFile(rssLog, "");
        await emulator.clearRequests();
        const started = performance.now();
        const cpuBefore = await cpuSecondsSoFar();
        const result = await (step === "up"
          ? stack.up({ onOutput })
          : step === "refresh"
            ? stack.refresh({ onOutput })
            : stack.destroy({ onOutput }));
        const seconds = (performance.now() - started) / 1000;
        const cpuSeconds = (await cpuSecondsSoFar()) - cpuBefore;
        const requests = (await emulator.requests()).length;
        const rss = await stepRss(rssLog);
        const resourceChanges = result.summary.resourceChanges ?? {};
        if (JSON.stringify(resourceChanges) !== JSON.stringify(expected[step])) {
          throw new Error(
            `${kind} N=${n} ${step}: changes ${JSON.stringify(resourceChanges)}, expected ` +
              JSON.stringify(expected[step]),
          );
        }
        const providers = rss.filter(isProvider);
        measured.push({
          kind,
          n,
          step,
          seconds,
          cpuSeconds,
          requests,
          providerPeakRssKb: peak(providers),
          providerProcesses: providers.length,
          programPeakRssKb: peak(rss.filter(isProgram)),
          resourceChanges,
        });
        log(
          `${kind.padEnd(6)} N=${String(n).padEnd(3)} ${step.padEnd(7)} ${seconds.toFixed(2)} s ` +
            `(CPU ${cpuSeconds.toFixed(2)} s), ` +
            `${requests} requests, provider peak RSS ${mb(peak(providers))} MB`,
        );
        if (step === "up") {
          const stateFileBytes = await checkpointBytes(path.join(workDir, ".state"));
          state = measureState(kind, n, await exportState(false), stateFileBytes);
        }
      }
      if (state === undefined) throw new Error("no state measured");
      return { kind, n, mix, steps: measured, state };
    },
  );
}

// ---- Instances by query ------------------------------------------------------------------

/** Instances of the by-query stack, and the seed of its emulator's generated market. */
const byQueryInstances = 10;
const marketSeed = 1;

/**
 * One query for every instance, as a program declaring a pool of alike GPUs does: the single-GPU
 * model with the most offers in the market, found by one search before the measured up. Half
 * the instances spell it in the official client's syntax. The creates search at about the same
 * moment; each claims the offer it chooses, so none asks for an offer another is renting.
 */
async function byQueryQueries(emulator: TestEmulator): Promise<(InstanceOfferQuery | string)[]> {
  const client = outsideClient(emulator);
  try {
    const offers = await client.searchOffers({ numGpus: 1 });
    const counts = new Map<string, number>();
    for (const offer of offers) counts.set(offer.gpuName, (counts.get(offer.gpuName) ?? 0) + 1);
    const [gpuName, count] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ["", 0];
    if (count < byQueryInstances) {
      throw new Error(
        `by query: no GPU has ${byQueryInstances} single-GPU offers (${count} at most)`,
      );
    }
    return Array.from({ length: byQueryInstances }, (_, n) =>
      n % 2 === 0 ? { gpuName, numGpus: 1 } : `gpu_name=${gpuName.replaceAll(" ", "_")} num_gpus=1`,
    );
  } finally {
    await client.close();
  }
}

interface ByQueryMeasure {
  readonly instances: number;
  readonly marketSeed: number;
  readonly queries: (InstanceOfferQuery | string)[];
  /** Resources the up created: the instances, the stack and its instance sweeper. */
  readonly resources: number;
  /** Wall time of the up. */
  readonly seconds: number;
  /** Requests the emulator logged during the up (preview and creates). */
  readonly requests: number;
  readonly requestsPerCreate: number;
  readonly byKind: Record<InstanceRequestKind, number>;
  /** The requests counted as `other`, by method and route (path without query or final slash). */
  readonly otherRoutes: Record<string, number>;
  /** Creates the emulator refused: the offer was rented (by a sibling) since the search. */
  readonly createsRefused: number;
}

/**
 * `pulumi up` of instances rented by `offerQuery` against an emulator with a generated market,
 * where renting is exclusive: the requests each create costs, by kind. Then destroys them.
 */
async function measureByQuery(emulator: TestEmulator): Promise<ByQueryMeasure> {
  const queries = await byQueryQueries(emulator);
  const n = queries.length;
  const mix: Mix = { secrets: 0, webhooks: 0, volumes: 0, instances: n };
  return withStack(
    {
      program: byQueryProgram(queries),
      config: emulatorConfig(emulator),
      projectName: "gpucloud-bench",
    },
    async ({ stack, output }) => {
      const onOutput = (text: string) => output.push(text);
      await emulator.clearRequests();
      const started = performance.now();
      const up = await stack.up({ onOutput });
      const seconds = (performance.now() - started) / 1000;
      const requests = await emulator.requests();
      const expected = { create: n + stackOverhead(mix) };
      const changes = up.summary.resourceChanges ?? {};
      if (JSON.stringify(changes) !== JSON.stringify(expected)) {
        throw new Error(
          `by query: changes ${JSON.stringify(changes)}, expected ${JSON.stringify(expected)}`,
        );
      }
      const rented = successfulCreates(requests).instance;
      if (rented !== n)
        throw new Error(`by query: ${rented} successful creates for ${n} instances`);
      const byKind = countInstanceRequests(requests);
      const otherRoutes: Record<string, number> = {};
      for (const request of requests) {
        if (instanceRequestKind(request) !== "other") continue;
        const route = `${request.method} ${routeOf(request.path)}`;
        otherRoutes[route] = (otherRoutes[route] ?? 0) + 1;
      }
      const measure: ByQueryMeasure = {
        instances: n,
        marketSeed,
        queries,
        resources: expected.create,
        seconds,
        requests: requests.length,
        requestsPerCreate: requests.length / n,
        byKind,
        otherRoutes,
        createsRefused: byKind.create - rented,
      };
      log(
        `by query N=${n} up ${seconds.toFixed(2)} s, ${requests.length} requests ` +
          `(${measure.requestsPerCreate.toFixed(1)} per create: ` +
          instanceRequestKinds.map((kind) => `${kind} ${byKind[kind]}`).join(", ") +
          ")",
      );
      await stack.destroy({ onOutput });
      const left = (await emulator.state()).instances.length;
      if (left !== 0) throw new Error(`by query: ${left} instances left after destroy`);
      return measure;
    },
  );
}

// ---- A fleet under the service's limits -----------------------------------------------------

interface FleetMeasure {
  readonly instances: number;
  readonly parallel: number;
  readonly bootSeconds: number;
  /** Wall time of the up, until every worker runs and is recorded. */
  readonly upSeconds: number;
  readonly destroySeconds: number;
  /** Requests of the up, answered (not 429) and refused with 429, by kind. */
  readonly answeredByKind: Record<InstanceRequestKind, number>;
  readonly refusedByKind: Record<InstanceRequestKind, number>;
  readonly statusReadsPerInstance: number;
  /** Seconds after the up started: rents, hand-overs (the emulator's log). */
  readonly timeline: FleetTimeline;
  readonly destroyRequests: { answered: number; refused: number };
}

/**
 * `pulumi up` and `destroy` of a fleet (test/support/fleet.ts) against an emulator that limits
 * every endpoint as the service documents and boots instances in wall-clock time.
 */
async function measureFleet(): Promise<FleetMeasure> {
  const emulator = await startTestEmulator({ ...fleetEmulatorOptions });
  try {
    return await withStack(
      {
        program: program(fleetProgram(fleetSize)),
        config: emulatorConfig(emulator),
        projectName: "gpucloud-bench",
      },
      async ({ stack, output }) => {
        const onOutput = (text: string) => output.push(text);
        let started = performance.now();
        const startedAtMs = Date.now();
        await stack.up({ onOutput, parallel: fleetParallel });
        const upSeconds = (performance.now() - started) / 1000;
        const upRequests = await emulator.requests();
        const up = fleetRequests(upRequests);
        const running = (await emulator.state()).instances.length;
        if (running !== fleetSize) throw new Error(`fleet: ${running} of ${fleetSize} instances`);
        await emulator.clearRequests();
        started = performance.now();
        await stack.destroy({ onOutput, parallel: fleetParallel });
        const destroySeconds = (performance.now() - started) / 1000;
        const destroyed = fleetRequests(await emulator.requests());
        const left = (await emulator.state()).instances.length;
        if (left !== 0) throw new Error(`fleet: ${left} instances left after destroy`);
        const sum = (counts: Record<InstanceRequestKind, number>) =>
          Object.values(counts).reduce((total, count) => total + count, 0);
        const measure: FleetMeasure = {
          instances: fleetSize,
          parallel: fleetParallel,
          bootSeconds: fleetEmulatorOptions.bootSeconds,
          upSeconds,
          destroySeconds,
          answeredByKind: up.answeredByKind,
          refusedByKind: up.refusedByKind,
          statusReadsPerInstance: up.statusReads.answered / fleetSize,
          timeline: fleetTimeline(upRequests, startedAtMs),
          destroyRequests: {
            answered: sum(destroyed.answeredByKind),
            refused: sum(destroyed.refusedByKind),
          },
        };
        log(
          `fleet N=${fleetSize} up ${upSeconds.toFixed(1)} s (boot ${measure.bootSeconds} s), ` +
            `status reads ${measure.statusReadsPerInstance.toFixed(2)} per instance, ` +
            `429s ${sum(up.refusedByKind)}; destroy ${destroySeconds.toFixed(1)} s; ` +
            timelineText(measure.timeline),
        );
        return measure;
      },
    );
  } finally {
    await emulator.close();
  }
}

function timelineText(timeline: FleetTimeline): string {
  const at = (seconds: number) => `${seconds.toFixed(1)} s`;
  return (
    `first request ${at(timeline.firstRequest)}, rents ${at(timeline.firstRent)} to ${at(timeline.lastRent)}, ` +
    `hand-overs ${at(timeline.firstHandOver)} to ${at(timeline.lastHandOver)} after the up started`
  );
}

function fleetTable(fleet: FleetMeasure): string {
  const per = (count: number) => (count / fleet.instances).toFixed(2);
  return markdownTable(
    ["requests during up", "answered", "per instance", "refused (429)"],
    [
      ...instanceRequestKinds.map((kind) => [
        requestKindLabels[kind],
        String(fleet.answeredByKind[kind]),
        per(fleet.answeredByKind[kind]),
        String(fleet.refusedByKind[kind]),
      ]),
    ],
  );
}

// ---- Medians ------------------------------------------------------------------------------

function median(numbers: number[]): number {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const medianOf = (numbers: (number | undefined)[]): number | undefined => {
  const known = numbers.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : median(known);
};

/** One stack's figures from several runs: the median of each (state sizes do not vary). */
function summarize(samples: StackMeasure[]): StackMeasure {
  const [first] = samples;
  if (first === undefined) throw new Error("no samples");
  if (samples.length === 1) return first;
  return {
    ...first,
    steps: steps.map((step) => {
      const runs = samples.map((sample) => stepOf(sample, step));
      const seconds = runs.map((run) => run.seconds);
      return {
        ...stepOf(first, step),
        seconds: median(seconds),
        cpuSeconds: median(runs.map((run) => run.cpuSeconds)),
        requests: median(runs.map((run) => run.requests)),
        providerPeakRssKb: medianOf(runs.map((run) => run.providerPeakRssKb)),
        providerProcesses: Math.max(...runs.map((run) => run.providerProcesses)),
        programPeakRssKb: medianOf(runs.map((run) => run.programPeakRssKb)),
        secondsSamples: seconds,
      };
    }),
  };
}

// ---- Reports ------------------------------------------------------------------------------

const mb = (kb: number | undefined): string => (kb === undefined ? "?" : (kb / 1024).toFixed(0));

function find(stacks: StackMeasure[], kind: Kind, n: number): StackMeasure {
  const found = stacks.find((stack) => stack.kind === kind && stack.n === n);
  if (!found) throw new Error(`no ${kind} measurement for N=${n}`);
  return found;
}

function stepOf(stack: StackMeasure, step: StepName): StepMeasure {
  const found = stack.steps.find((measure) => measure.step === step);
  if (!found) throw new Error(`no ${step} of ${stack.kind} N=${stack.n}`);
  return found;
}

function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`,
    ...rows.map(line),
  ].join("\n");
}

const ratio = (ours: number | undefined, floor: number | undefined): number | undefined =>
  ours === undefined || floor === undefined || floor === 0 ? undefined : ours / floor;
const showRatio = (value: number | undefined): string =>
  value === undefined ? "?" : value.toFixed(2);

/** Ours against the floor, per size and step: what the issue's goals are stated in. */
interface Ratios {
  readonly n: number;
  readonly step: StepName;
  readonly time: number | undefined;
  /** CPU seconds, ours / floor. */
  readonly cpu: number | undefined;
  readonly providerPeakRss: number | undefined;
  /** Mean state entry bytes of a resource (compact JSON), ours / floor; the same for every step. */
  readonly stateEntryBytes: number | undefined;
  /** Checkpoint file bytes, ours / floor (same N). */
  readonly stateFileBytes: number | undefined;
  /** Time of our resources' shapes (no-op providers) / floor: the engine's and SDK's share. */
  readonly shapesTime: number | undefined;
  /** Time of ours / our resources' shapes: our provider's own share. */
  readonly timeOverShapes: number | undefined;
  /** With `--attribute`: time of the shapes registering every output name / floor. */
  readonly everyOutputTime?: number | undefined;
}

function ratiosOf(stacks: StackMeasure[]): Ratios[] {
  return sizes.flatMap((n) => {
    const ours = find(stacks, "ours", n);
    const floor = find(stacks, "floor", n);
    const shapes = find(stacks, "shapes", n);
    return steps.map((step) => {
      const o = stepOf(ours, step);
      const f = stepOf(floor, step);
      const sh = stepOf(shapes, step);
      return {
        n,
        step,
        time: ratio(o.seconds, f.seconds),
        cpu: ratio(o.cpuSeconds, f.cpuSeconds),
        providerPeakRss: ratio(o.providerPeakRssKb, f.providerPeakRssKb),
        stateEntryBytes: ratio(ours.state.dynamicEntryBytes, floor.state.dynamicEntryBytes),
        stateFileBytes: ratio(ours.state.stateFileBytes, floor.state.stateFileBytes),
        shapesTime: ratio(sh.seconds, f.seconds),
        timeOverShapes: ratio(o.seconds, sh.seconds),
        ...(kinds.includes("every")
          ? { everyOutputTime: ratio(stepOf(find(stacks, "every", n), step).seconds, f.seconds) }
          : {}),
      };
    });
  });
}

function mainTable(stacks: StackMeasure[]): string {
  const rows: string[][] = [];
  for (const n of sizes) {
    const ours = find(stacks, "ours", n);
    const floor = find(stacks, "floor", n);
    for (const step of steps) {
      const o = stepOf(ours, step);
      const f = stepOf(floor, step);
      const ratios = ratiosOf(stacks).find((r) => r.n === n && r.step === step);
      rows.push([
        step,
        String(n),
        o.seconds.toFixed(2),
        f.seconds.toFixed(2),
        showRatio(ratios?.time),
        `${o.cpuSeconds.toFixed(2)} / ${f.cpuSeconds.toFixed(2)}`,
        showRatio(ratios?.cpu),
        String(o.requests),
        step === "up" ? `${ours.state.dynamicEntryBytes} / ${floor.state.dynamicEntryBytes}` : "",
        step === "up" ? showRatio(ratios?.stateEntryBytes) : "",
        `${mb(o.providerPeakRssKb)} / ${mb(f.providerPeakRssKb)}`,
        showRatio(ratios?.providerPeakRss),
      ]);
    }
  }
  return markdownTable(
    [
      "step",
      "N",
      "ours s",
      "floor s",
      "time ratio",
      "CPU s (ours / floor)",
      "CPU ratio",
      "API requests",
      "state bytes/resource (ours / floor)",
      "state ratio",
      "provider peak RSS MB (ours / floor)",
      "memory ratio",
    ],
    rows,
  );
}

/** Where each step's time goes: the engine, its SDK's handling of our properties, our provider. */
function timeTable(stacks: StackMeasure[]): string {
  const attributed = kinds.includes("every");
  const rows: string[][] = [];
  const allRatios = ratiosOf(stacks);
  for (const n of sizes) {
    for (const step of steps) {
      const seconds = (kind: Kind) => stepOf(find(stacks, kind, n), step).seconds.toFixed(2);
      const cpu = (kind: Kind) => stepOf(find(stacks, kind, n), step).cpuSeconds;
      const ratios = allRatios.find((r) => r.n === n && r.step === step);
      rows.push([
        step,
        String(n),
        seconds("floor"),
        seconds("shapes"),
        ...(attributed ? [seconds("every")] : []),
        seconds("ours"),
        showRatio(ratios?.shapesTime),
        ...(attributed ? [showRatio(ratios?.everyOutputTime)] : []),
        showRatio(ratios?.timeOverShapes),
        showRatio(ratios?.time),
        showRatio(ratio(cpu("shapes"), cpu("floor"))),
        ...(attributed ? [showRatio(ratio(cpu("every"), cpu("floor")))] : []),
        showRatio(ratio(cpu("ours"), cpu("shapes"))),
      ]);
    }
  }
  return markdownTable(
    [
      "step",
      "N",
      "floor s",
      "shapes s",
      ...(attributed ? ["every s"] : []),
      "ours s",
      "shapes / floor (engine and SDK)",
      ...(attributed ? ["every / floor (every output name registered)"] : []),
      "ours / shapes (our provider)",
      "ours / floor",
      "CPU: shapes / floor",
      ...(attributed ? ["CPU: every / floor"] : []),
      "CPU: ours / shapes",
    ],
    rows,
  );
}

function stateTable(stacks: StackMeasure[]): string {
  const rows = sizes.map((n) => {
    const ours = find(stacks, "ours", n).state;
    const floor = find(stacks, "floor", n).state;
    return [
      String(n),
      `${ours.stateFileBytes} / ${floor.stateFileBytes}`,
      `${ours.stateFileBytesPerResource} / ${floor.stateFileBytesPerResource}`,
      `${ours.exportBytes} / ${floor.exportBytes}`,
      `${ours.exportBytesPerResource} / ${floor.exportBytesPerResource}`,
      `${ours.dynamicEntryBytes} / ${floor.dynamicEntryBytes}`,
      `${ours.providerShimBytes} / ${floor.providerShimBytes}`,
    ];
  });
  return markdownTable(
    [
      "N",
      "checkpoint file bytes (ours / floor)",
      "checkpoint bytes/resource",
      "export bytes (ours / floor)",
      "export bytes/resource",
      "dynamic entry bytes",
      "`__provider` bytes/resource (one copy)",
    ],
    rows,
  );
}

function typeTable(stacks: StackMeasure[]): string {
  const largest = sizes[sizes.length - 1] ?? 10;
  const ours = find(stacks, "ours", largest).state;
  const floor = find(stacks, "floor", largest).state;
  const rows = [
    ...Object.keys(ours.providerShimBytesByType).map((type) => [
      type,
      String(ours.dynamicEntryBytesByType[type] ?? ""),
      String(ours.providerShimBytesByType[type] ?? ""),
    ]),
    ...Object.keys(floor.providerShimBytesByType).map((type) => [
      `no-op ${type} (floor)`,
      String(floor.dynamicEntryBytesByType[type] ?? ""),
      String(floor.providerShimBytesByType[type] ?? ""),
    ]),
  ];
  return markdownTable(
    [
      "type",
      "state entry bytes",
      "`__provider` bytes (one copy; inputs and outputs hold one each)",
    ],
    rows,
  );
}

const requestKindLabels: Record<InstanceRequestKind, string> = {
  instanceList: "instance list (this stack's leftovers, by label), GET /api/v1/instances/",
  offerSearch: "offer search, POST /api/v0/bundles/",
  create: "create, PUT /api/v0/asks/{id}/",
  statusRead:
    "status read (a shared round's list by id, or a show), GET /api/v1/instances/ or /api/v0/instances/{id}/",
  destroy: "destroy, DELETE /api/v0/instances/{id}/",
  handOver: "hand-over (relabel), PUT /api/v0/instances/{id}/",
  other: "other",
};

function byQueryTable(byQuery: ByQueryMeasure): string {
  const perCreate = (count: number) => (count / byQuery.instances).toFixed(1);
  const otherRoutes = Object.entries(byQuery.otherRoutes)
    .map(([route, count]) => `${route} × ${count}`)
    .join(", ");
  return markdownTable(
    ["requests during up", "total", "per create"],
    [
      ...instanceRequestKinds.map((kind) => [
        kind === "other" && otherRoutes !== "" ? `other: ${otherRoutes}` : requestKindLabels[kind],
        String(byQuery.byKind[kind]),
        perCreate(byQuery.byKind[kind]),
      ]),
      ["all", String(byQuery.requests), byQuery.requestsPerCreate.toFixed(1)],
    ],
  );
}

function chart(stacks: StackMeasure[]): string {
  const colors: Record<StepName, string> = {
    up: "#1f77b4",
    refresh: "#2ca02c",
    destroy: "#d62728",
  };
  const series: Series[] = [];
  for (const step of steps) {
    for (const kind of ["ours", "floor"] as const) {
      series.push({
        label: `${step}, ${kind === "ours" ? "ours" : "no-op floor"}`,
        color: colors[step],
        dashed: kind === "floor",
        points: sizes.map((n) => [n, stepOf(find(stacks, kind, n), step).seconds] as const),
      });
    }
  }
  return lineChart("pulumi-gpucloud: wall time against stack size", series);
}

function byQuerySection(byQuery: ByQueryMeasure): string[] {
  return [
    "## Instances by query",
    "",
    `\`pulumi up\` of ${byQuery.instances} instances rented by one \`offerQuery\` (one GPU model, ` +
      `single GPU), against an emulator of its own with a generated market (seed ` +
      `${byQuery.marketSeed}; renting exclusive); instances run on their first poll. ` +
      `${byQuery.resources} resources (with the stack and its instance sweeper) in ` +
      `${byQuery.seconds.toFixed(2)} s, one run; ${byQuery.createsRefused} creates refused.`,
    "",
    byQueryTable(byQuery),
    "",
  ];
}

function fleetSection(fleet: FleetMeasure): string[] {
  return [
    "## A fleet under the service's limits",
    "",
    `\`pulumi up --parallel ${fleet.parallel}\` of ${fleet.instances} single-GPU workers rented by one ` +
      `\`offerQuery\`, against an emulator with the documented rate limits (\`--rate-limits ` +
      `documented\`), boots of ${fleet.bootSeconds} s in wall-clock time and a generated market; one ` +
      `run. Up until all run: ${fleet.upSeconds.toFixed(1)} s (boot + ` +
      `${(fleet.upSeconds - fleet.bootSeconds).toFixed(1)} s); status reads ` +
      `${fleet.statusReadsPerInstance.toFixed(2)} per instance; ${timelineText(fleet.timeline)}. Destroy: ` +
      `${fleet.destroySeconds.toFixed(1)} s, ${fleet.destroyRequests.answered} requests answered, ` +
      `${fleet.destroyRequests.refused} refused.`,
    "",
    fleetTable(fleet),
    "",
  ];
}

// ---- Main ---------------------------------------------------------------------------------

async function main(): Promise<void> {
  if (flags.fleet) {
    log(`a fleet: N=${fleetSize}, --parallel ${fleetParallel}, documented rate limits, one run`);
    const fleet = await measureFleet();
    process.stdout.write(`\n${fleetTable(fleet)}\n\n`);
    return;
  }
  const started = performance.now();
  const { stdout: pulumiVersion } = await execFileAsync("pulumi", ["version"]);
  const environment = {
    date: new Date().toISOString(),
    quick: flags.quick,
    sizes,
    node: process.version,
    pulumi: pulumiVersion.trim(),
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? "unknown"}`,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    // The CLI's default `--parallel` is 4 × GOMAXPROCS (the usable cores), unless PULUMI_PARALLEL
    // sets it: at most that many resource steps are in flight, so a provider's start-up stalls
    // that many steps at once.
    parallel: process.env["PULUMI_PARALLEL"]
      ? `PULUMI_PARALLEL=${process.env["PULUMI_PARALLEL"]}`
      : `CLI default (${4 * os.availableParallelism()} here: 4 × cores)`,
    emulator: "in-process, no added latency; instances run on their first poll (bootPolls 0)",
  };
  log(
    `sizes ${sizes.join(", ")}, ${repeat} run(s) each; ${environment.cpus}; node ${environment.node}; pulumi ${environment.pulumi}`,
  );

  const tmp = await mkdtemp(path.join(os.tmpdir(), "gpucloud-bench-"));
  const rssLog = path.join(tmp, "rss.jsonl");
  const emulator = await startTestEmulator({ bootPolls: 0 });
  const samples: StackMeasure[] = [];
  let byQuery: ByQueryMeasure | undefined;
  let fleet: FleetMeasure | undefined;
  try {
    // The first CLI run of a session pays for cold caches: a small stack, not recorded. Ours
    // too: the first processes after an install compile the bundled runtime and write its code
    // cache beside it (provider/dynamic-runtime.ts), which every later one reads. Each stack
    // holds a copy of the installed package, as a project does: the warm-up's is the installed
    // one itself, so that the stacks' copies hold its caches (each stack's `up` compiled our
    // code afresh before, as a project's first command after `npm install` does).
    log("warm-up (not recorded)");
    await measureStack("floor", 5, emulator, rssLog);
    await measureStack("ours", 5, emulator, rssLog, { sharesInstalledPackage: true });
    // Runs interleave sizes and kinds, so that a slow spell of the machine spreads over all.
    for (let run = 1; run <= repeat; run++) {
      if (repeat > 1) log(`run ${run} of ${repeat}`);
      for (const n of sizes) {
        for (const kind of kinds) {
          samples.push(await measureStack(kind, n, emulator, rssLog));
        }
      }
    }
    // Its own emulator: the market's offers beside the main one's hand-written asks would
    // change nothing there, but exclusive renting would (the mix rents each seeded ask often).
    if (!flags["stacks-only"]) {
      log(`instances by query: N=${byQueryInstances}, one run, market seed ${marketSeed}`);
      const market = await startTestEmulator({ bootPolls: 0, market: { seed: marketSeed } });
      try {
        byQuery = await measureByQuery(market);
      } finally {
        await market.close();
      }
      log(`a fleet: N=${fleetSize}, --parallel ${fleetParallel}, documented rate limits, one run`);
      fleet = await measureFleet();
    }
  } finally {
    await emulator.close();
    await rm(tmp, { recursive: true, force: true });
  }
  const totalSeconds = (performance.now() - started) / 1000;
  if (!flags["stacks-only"] && (byQuery === undefined || fleet === undefined)) {
    throw new Error("instances by query or the fleet were not measured");
  }
  const stacks = sizes.flatMap((n) =>
    kinds.map((kind) =>
      summarize(samples.filter((sample) => sample.kind === kind && sample.n === n)),
    ),
  );

  const table = mainTable(stacks);
  const markdown = [
    `# pulumi-gpucloud benchmark${flags.quick ? " (quick)" : ""}`,
    "",
    `${environment.date}: ${environment.cpus}, ${environment.memoryGb} GiB; Node ${environment.node}; Pulumi ${environment.pulumi}; parallelism ${environment.parallel}.`,
    `Emulator ${environment.emulator}. Ours: 20% volumes, 20% instances, 20% webhooks up to the service's 4 per account, the rest secrets.`,
    "Floor: the same number of no-op dynamic resources (create returns its inputs).",
    "Shapes: our resources declared through our classes, with the properties they register, each with a no-op provider (stored as a module reference, as ours): nothing is sent to an API.",
    `Wall time is the Automation API call (CLI start, program, plugins, engine, state writes)${repeat > 1 ? `, median of ${repeat} runs` : ""}.`,
    "API requests: the emulator's log for the step. State bytes/resource: the mean size of one dynamic resource's entry in the state (compact JSON, as the file backend writes it), after up; state ratio: ours / floor.",
    "Peak RSS: maxRSS of the dynamic-provider plugin process, recorded at its exit; memory ratio: ours / floor.",
    "CPU: the CPU seconds of the step's processes (the CLI, its plugins, the program) and the bench's own (the in-process emulator); less moved than the wall time by other work on a shared machine.",
    "",
    table,
    "",
    "## Where the time goes",
    "",
    "Shapes over the floor is what the engine and the SDK charge for our resources' properties (their number and size); ours over shapes is our provider's own work: its start in each `pulumi` process (loading zod, undici and the package), its checks and its API requests." +
      (kinds.includes("every")
        ? " Every: the shapes stack with every output name of an Instance and a Volume registered, the inputs left out included (as the classes did before they registered only the inputs given and what the service reports): every over shapes is what those names cost."
        : ""),
    "",
    timeTable(stacks),
    "",
    "## State",
    "",
    stateTable(stacks),
    "",
    `By type, N = ${sizes[sizes.length - 1] ?? ""}:`,
    "",
    typeTable(stacks),
    "",
    ...(byQuery === undefined ? [] : byQuerySection(byQuery)),
    ...(fleet === undefined ? [] : fleetSection(fleet)),
    "![wall time against N](bench.svg)",
    "",
    `Total bench time ${totalSeconds.toFixed(0)} s.`,
    "",
  ].join("\n");
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, "bench.md"), markdown);
  await writeFile(
    path.join(outDir, "bench.json"),
    JSON.stringify(
      {
        environment,
        repeat,
        totalSeconds,
        ratios: ratiosOf(stacks),
        byQuery,
        fleet,
        stacks,
        samples,
      },
      null,
      2,
    ) + "\n",
  );
  await writeFile(path.join(outDir, "bench.svg"), chart(stacks));
  process.stdout.write(
    [
      "",
      table,
      timeTable(stacks),
      stateTable(stacks),
      typeTable(stacks),
      ...(byQuery === undefined ? [] : [byQueryTable(byQuery)]),
      ...(fleet === undefined ? [] : [fleetTable(fleet)]),
      "",
    ].join("\n\n"),
  );
  log(
    `wrote ${path.relative(process.cwd(), outDir) || "."}/bench.{md,json,svg} in ${totalSeconds.toFixed(0)} s`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
