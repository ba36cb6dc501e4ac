import { z } from "zod";
import { type BootOutcome, type Faults, startTestEmulator, type TestEmulator } from "./emulator";
import { emulatorConfig } from "./programs";
import {
  type CreateKind,
  type Mix,
  mixedProgram,
  mixFor,
  mixTotal,
  stackOverhead,
  successfulCreates,
  successfulInstanceDeletes,
  summarizeTraffic,
  type TrafficSummary,
} from "./scale";
import { withStack } from "./pulumi-stack";

/**
 * The fault soak: up and destroy of a mix of our resources while the emulator throttles and
 * fails requests and some instance boots end in dead ends. Used by `npm run soak` and by the
 * short version in test/e2e/soak.test.ts; both check the same things and differ in size.
 */

export const soakFaultSeed = 4242;

/**
 * 20% of all requests get 429 (no `Retry-After`) and 10% of reads (GET) get 503. The emulator
 * tries 429 first, so a GET reaches the 503 rule only 80% of the time: 0.125 × 0.8 = 10%.
 * Besides the rates, the first request of a phase gets 429 and the first GET that reaches the
 * 503 rule gets 503, so that even a short phase meets both faults.
 */
export function soakFaults(seed: number): Faults {
  return {
    seed,
    tooManyRequests: { rate: 0.2, next: 1 },
    serverErrors: { rate: 0.125, next: 1, methods: ["GET"], status: 503 },
  };
}

/**
 * Boot outcomes in the order creates take them: every third instance's boot is first a dead
 * end (`exited` and `offline` in turn), then a running one. Creates run concurrently, so which
 * instance meets a dead end is up to timing; how many dead ends there are is not.
 */
export function soakBoots(instances: number): { outcomes: BootOutcome[]; deadEnds: number } {
  const outcomes: BootOutcome[] = [];
  let deadEnds = 0;
  for (let n = 0; n < instances; n++) {
    if (n % 3 === 0) {
      outcomes.push(
        deadEnds % 2 === 0
          ? { status: "exited", afterPolls: 2, statusMsg: "Error: container exited with code 137" }
          : { status: "offline", afterPolls: 2, statusMsg: "Error: machine is offline" },
      );
      deadEnds += 1;
    }
    outcomes.push({ status: "running", afterPolls: 2 });
  }
  return { outcomes, deadEnds };
}

export interface SoakOptions {
  /** Resources per stack, mixed as {@link mixFor} says. */
  readonly resources: number;
  /** Up-and-destroy rounds on the same stack. */
  readonly rounds: number;
  readonly seed?: number;
  readonly log?: (line: string) => void;
}

export interface PhaseReport {
  readonly seconds: number;
  readonly traffic: TrafficSummary;
  /** 2xx creates by kind. */
  readonly creates: Record<CreateKind, number>;
  /** 2xx instance deletes. */
  readonly instanceDeletes: number;
  readonly resourceChanges: Record<string, number>;
}

export interface RoundReport {
  readonly round: number;
  /** The fault seed of up; destroy's is 1000 more. */
  readonly seed: number;
  readonly mix: Mix;
  readonly deadEnds: number;
  readonly up: PhaseReport;
  readonly destroy: PhaseReport;
  /** What the checks expected and found wrong; empty when the round passed. */
  readonly problems: string[];
}

export interface SoakReport {
  readonly resources: number;
  readonly mix: Mix;
  readonly rounds: RoundReport[];
  readonly seconds: number;
}

const bootQueueSchema = z.object({ bootQueue: z.array(z.unknown()) });

async function phase(
  emulator: TestEmulator,
  run: () => Promise<{ summary: { resourceChanges?: Record<string, number> } }>,
): Promise<PhaseReport> {
  await emulator.clearRequests();
  const started = performance.now();
  const result = await run();
  const seconds = (performance.now() - started) / 1000;
  const requests = await emulator.requests();
  return {
    seconds,
    traffic: summarizeTraffic(requests),
    creates: successfulCreates(requests),
    instanceDeletes: successfulInstanceDeletes(requests),
    resourceChanges: result.summary.resourceChanges ?? {},
  };
}

/** Runs the soak against its own emulator; throws when a step fails outright. */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => undefined);
  const baseSeed = options.seed ?? soakFaultSeed;
  const mix = mixFor(options.resources);
  const total = mixTotal(mix);
  const { deadEnds } = soakBoots(mix.instances);
  // Enough attempts that even an instance meeting every dead end in the queue gets a running
  // one (which instance meets which outcome depends on timing).
  const maxAttempts = Math.min(10, Math.max(3, deadEnds + 1));
  const emulator = await startTestEmulator({ bootPolls: 2 });
  const started = performance.now();
  const rounds: RoundReport[] = [];
  try {
    await withStack(
      {
        program: mixedProgram(mix, { pollIntervalSeconds: 0.05, maxAttempts }),
        config: emulatorConfig(emulator),
        projectName: "gpucloud-soak",
      },
      async ({ stack, output }) => {
        const onOutput = (text: string) => output.push(text);
        for (let round = 1; round <= options.rounds; round++) {
          const seed = baseSeed + round - 1;
          const problems: string[] = [];
          const check = (what: string, actual: unknown, expected: unknown) => {
            if (JSON.stringify(actual) !== JSON.stringify(expected)) {
              problems.push(
                `round ${round}: ${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
              );
            }
          };
          await emulator.queueBoots(soakBoots(mix.instances).outcomes);
          await emulator.setFaults(soakFaults(seed));

          log(`round ${round}: up of ${total} resources (fault seed ${seed})`);
          const up = await phase(emulator, () => stack.up({ onOutput }));
          const afterUp = await emulator.state();
          const queueLeft = bootQueueSchema.parse(JSON.parse(await emulator.stateText())).bootQueue;
          check("up: resource changes", up.resourceChanges, { create: total + stackOverhead(mix) });
          check("up: 2xx creates", up.creates, {
            secret: mix.secrets,
            webhook: mix.webhooks,
            volume: mix.volumes,
            instance: mix.instances + deadEnds,
          });
          check("up: instances destroyed after a dead end", up.instanceDeletes, deadEnds);
          check("up: boot outcomes left in the queue", queueLeft.length, 0);
          check(
            "up: resources in the emulator",
            [
              afterUp.secrets.length,
              afterUp.webhooks.length,
              afterUp.volumes.length,
              afterUp.instances.length,
            ],
            [mix.secrets, mix.webhooks, mix.volumes, mix.instances],
          );
          check("up: faulted requests not retried", up.traffic.retriesObserved, faulted(up));

          log(`round ${round}: destroy`);
          await emulator.setFaults(soakFaults(seed + 1000));
          const destroy = await phase(emulator, () => stack.destroy({ onOutput }));
          await emulator.clearFaults();
          const afterDestroy = await emulator.state();
          check("destroy: resource changes", destroy.resourceChanges, {
            delete: total + stackOverhead(mix),
          });
          check("destroy: 2xx creates", destroy.creates, {
            secret: 0,
            webhook: 0,
            volume: 0,
            instance: 0,
          });
          check(
            "destroy: resources left in the emulator",
            [
              afterDestroy.secrets.length,
              afterDestroy.webhooks.length,
              afterDestroy.volumes.length,
              afterDestroy.instances.length,
            ],
            [0, 0, 0, 0],
          );
          check(
            "destroy: faulted requests not retried",
            destroy.traffic.retriesObserved,
            faulted(destroy),
          );
          const report: RoundReport = { round, seed, mix, deadEnds, up, destroy, problems };
          rounds.push(report);
          log(describeRound(report));
        }
      },
    );
  } finally {
    await emulator.close();
  }
  return {
    resources: total,
    mix,
    rounds,
    seconds: (performance.now() - started) / 1000,
  };
}

const faulted = (phase: PhaseReport): number =>
  phase.traffic.tooManyRequests + phase.traffic.serverErrors;

function describePhase(name: string, phase: PhaseReport): string {
  const { traffic, creates } = phase;
  return (
    `${name} ${phase.seconds.toFixed(1)} s: ${traffic.requests} requests ` +
    `(${traffic.gets} GET), ${traffic.tooManyRequests} × 429, ${traffic.serverErrors} × 503, ` +
    `${traffic.retriesObserved} retried; creates ${creates.secret} secrets, ` +
    `${creates.webhook} webhooks, ${creates.volume} volumes, ${creates.instance} instances; ` +
    `${phase.instanceDeletes} instance deletes`
  );
}

export function describeRound(report: RoundReport): string {
  const lines = [
    `round ${report.round} (seed ${report.seed}, ${report.deadEnds} dead-end boots queued): ` +
      (report.problems.length === 0 ? "passed" : `${report.problems.length} problem(s)`),
    `  ${describePhase("up", report.up)}`,
    `  ${describePhase("destroy", report.destroy)}`,
    ...report.problems.map((problem) => `  PROBLEM ${problem}`),
  ];
  return lines.join("\n");
}
