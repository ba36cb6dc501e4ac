import { type ChildProcess, execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import type { TestEmulator } from "./emulator";
import type { TestStack } from "./pulumi-stack";

/** A `pulumi` command running on its own, in its own process group, as a terminal or CI runs it. */
export interface RunningCli {
  readonly pid: number;
  readonly output: string[];
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

export function startCli(
  stack: Pick<TestStack, "workDir" | "cliEnv">,
  args: readonly string[],
): RunningCli {
  const child: ChildProcess = spawn("pulumi", [...args, "--stack", "test", "--non-interactive"], {
    cwd: stack.workDir,
    env: { ...process.env, ...stack.cliEnv },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (child.pid === undefined) throw new Error("pulumi did not start");
  return { pid: child.pid, output, exited };
}

/** Every live process below `pid` (children, grandchildren, …), from /proc. */
export function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The command name is in parentheses and may hold spaces: the ppid follows its ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // The process ended while being read.
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The command line of a process, or "" when it is gone. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** Polls `condition` every 200 ms until it holds; fails naming `what` after `timeoutMs`. */
export async function eventually(
  what: string,
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(200);
  }
}

/** `pulumi cancel`: releases the lock a killed run left on the stack, as a user must. */
export async function releaseLock(stack: Pick<TestStack, "workDir" | "cliEnv">): Promise<void> {
  await promisify(execFile)("pulumi", ["cancel", "--yes", "--stack", "test"], {
    cwd: stack.workDir,
    env: { ...process.env, ...stack.cliEnv },
  });
}

export interface InterruptedUp {
  /** The instance the create had rented when Ctrl-C came. */
  readonly rentedId: number | undefined;
  /** Each rent (an ask accepted) the emulator received after the Ctrl-C, as `METHOD path`. */
  readonly rentsAfter: string[];
  readonly code: number | null;
  /** From the Ctrl-C to the CLI's exit. */
  readonly tookMs: number;
  readonly output: string;
}

/**
 * `pulumi up` of a program declaring one Instance (or a NodeGroup), interrupted as a terminal's
 * Ctrl-C does it (SIGINT to the foreground process group: the CLI, not its plugins) once the
 * emulator holds the `rents` instances it rents at once (a group's nodes), while they boot.
 */
export async function interruptUpWhileBooting(
  stack: Pick<TestStack, "workDir" | "cliEnv">,
  emulator: Pick<TestEmulator, "state" | "requests">,
  rents = 1,
): Promise<InterruptedUp> {
  const cli = startCli(stack, ["up", "--yes", "--skip-preview"]);
  await eventually(
    rents === 1 ? "the instance rented" : `${String(rents)} instances rented`,
    async () => (await emulator.state()).instances.length >= rents,
  );
  const [rented] = (await emulator.state()).instances;
  const before = await emulator.requests();
  const interruptedAt = Date.now();
  process.kill(-cli.pid, "SIGINT");
  const code = await cli.exited;
  // Logged after the last look before the Ctrl-C: sent after it (or at that very moment).
  const seen = Math.max(0, ...before.map((request) => request.seq));
  const rentsAfter = (await emulator.requests())
    .filter((request) => request.seq > seen && /^\/api\/v0\/asks\/\d+\/?$/.test(request.path))
    .map((request) => `${request.method} ${request.path}`);
  return {
    rentedId: rented?.id,
    rentsAfter,
    code,
    tookMs: Date.now() - interruptedAt,
    output: cli.output.join(""),
  };
}
