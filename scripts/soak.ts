/**
 * `npm run soak [-- --resources N] [-- --rounds R] [-- --seed S]`: up and destroy of N
 * resources (default 50: 20% volumes, 20% instances, 4 webhooks, the rest secrets), R times,
 * while the emulator answers 20% of requests with 429 and 10% of reads with 503, and every
 * third instance's first boot is a dead end. Exits 1 when a run fails or a check finds a
 * resource created twice or anything left behind. test/e2e/soak.test.ts is the short version.
 */
import { writeFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { repoRoot } from "../test/support/repo-root";
import { runSoak, soakFaultSeed } from "../test/support/soak";

const { values: flags } = parseArgs({
  options: {
    resources: { type: "string", default: "50" },
    rounds: { type: "string", default: "1" },
    seed: { type: "string", default: String(soakFaultSeed) },
  },
  strict: true,
});

function positiveInteger(name: string, text: string, min: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    process.stderr.write(`[soak] --${name} must be an integer ≥ ${min}, not ${text}\n`);
    process.exit(2);
  }
  return value;
}

const resources = positiveInteger("resources", flags.resources, 5);
const rounds = positiveInteger("rounds", flags.rounds, 1);
const seed = positiveInteger("seed", flags.seed, 0);

async function main(): Promise<void> {
  const report = await runSoak({
    resources,
    rounds,
    seed,
    log: (line) => process.stdout.write(`[soak] ${line}\n`),
  });
  const problems = report.rounds.flatMap((round) => round.problems);
  const totals = report.rounds.reduce(
    (sum, round) => {
      for (const phase of [round.up, round.destroy]) {
        sum.requests += phase.traffic.requests;
        sum.tooManyRequests += phase.traffic.tooManyRequests;
        sum.serverErrors += phase.traffic.serverErrors;
        sum.retriesObserved += phase.traffic.retriesObserved;
      }
      return sum;
    },
    { requests: 0, tooManyRequests: 0, serverErrors: 0, retriesObserved: 0 },
  );
  const outDir = path.join(repoRoot, "bench-results");
  await mkdir(outDir, { recursive: true });
  await writeFile(path.join(outDir, "soak.json"), JSON.stringify(report, null, 2) + "\n");
  process.stdout.write(
    `[soak] ${report.rounds.length} round(s) of ${report.resources} resources ` +
      `(${JSON.stringify(report.mix)}) in ${report.seconds.toFixed(0)} s: ` +
      `${totals.requests} requests, ${totals.tooManyRequests} × 429, ` +
      `${totals.serverErrors} × 503, ${totals.retriesObserved} retried; ` +
      (problems.length === 0 ? "every check passed\n" : `${problems.length} problem(s)\n`),
  );
  if (problems.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[soak] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
