import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { InstanceKeys } from "../accounts/instance-keys";
import type { Store } from "../shared/store";
import { containerEnv, defaultPath } from "./container-env";
import type { InstanceLogs } from "./instance-logs";
import type { Instance } from "./instance-state";
import { isRunning } from "./lifecycle";
import { portsSettled } from "./served-ports";
import type { Clock } from "../shared/clock";
import type { StandInGpus } from "./stand-in-gpus";

/**
 * `--run-onstart`: each running instance's onstart runs here as `sh -c <onstart>`, as the
 * service runs it in the container when the container starts, again after each stop and start.
 * A stop, a destroy or closing the emulator ends the whole process group (SIGTERM, then SIGKILL
 * after a grace, as `docker stop` does). Each instance has a directory of its own (its cwd and
 * HOME), kept across stops and reboots like a container's disk, and removed with the instance or
 * when its container is created anew (a recycle or an update of what it runs).
 */

/** How long a stopped onstart may take to end before it is killed (docker stop gives 10 s). */
const GRACE_MS = 2000;
/** Instances that boot on the clock (`bootSeconds`) become running between requests. */
const CLOCK_MS = 250;

/** Groups still running, killed if the emulator's process exits without closing it. */
const liveGroups = new Set<number>();
let exitGuard = false;

function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false; // no process left in the group
  }
}

function guardExit(pid: number): void {
  liveGroups.add(pid);
  if (exitGuard) return;
  exitGuard = true;
  process.on("exit", () => {
    for (const group of liveGroups) signalGroup(group, "SIGKILL");
  });
}

async function endGroup(pid: number): Promise<void> {
  signalGroup(pid, "SIGTERM");
  const deadline = Date.now() + GRACE_MS;
  while (signalGroup(pid, 0) && Date.now() < deadline) await delay(25);
  signalGroup(pid, "SIGKILL");
  liveGroups.delete(pid);
}

interface Run {
  /** The boot it belongs to: a start after a stop is another boot, which runs it again. */
  readonly bootKey: string;
  /** Undefined when it could not be started (it is not tried again in the same boot). */
  readonly child: ChildProcess | undefined;
  ending: Promise<void> | undefined;
  /** Its shell has ended and left nothing behind in its group. */
  groupGone: boolean;
}

const bootKeyOf = (instance: Instance) => String(instance.restartedAtMs ?? instance.createdAtMs);
const containerKeyOf = (instance: Instance) =>
  String(instance.containerCreatedAtMs ?? instance.createdAtMs);

/** An instance's directory, and the container it belongs to. */
interface Directory {
  readonly path: string;
  readonly containerKey: string;
}

export class OnstartRunner {
  readonly #runs = new Map<number, Run>();
  readonly #directories = new Map<number, Directory>();
  readonly #work = new Set<Promise<void>>();
  readonly #clock: NodeJS.Timeout;
  #closed = false;

  constructor(
    private readonly store: Store,
    private readonly keys: InstanceKeys,
    private readonly logs: InstanceLogs,
    /** The account's time, by which instances run (shared/clock.ts). */
    private readonly time: Clock,
    /** The `nvidia-smi` each onstart finds first on its PATH (stand-in-gpus.ts). */
    private readonly gpus?: StandInGpus,
  ) {
    this.#clock = setInterval(() => {
      this.reconcile();
    }, CLOCK_MS);
    this.#clock.unref();
  }

  /** Starts and ends processes as the instances' states say; call after every change. */
  reconcile(nowMs = this.time.nowMs()): void {
    if (this.#closed) return;
    const living = new Set<number>();
    for (const instance of this.store.state.instances) {
      living.add(instance.id);
      const run = this.#runs.get(instance.id);
      const bootKey = bootKeyOf(instance);
      // Its environment names its ports: with servePorts, once they are bound (a tick).
      const wanted =
        isRunning(instance, nowMs) &&
        (instance.onstart ?? "").trim() !== "" &&
        (run?.bootKey === bootKey || portsSettled(instance));
      if (run !== undefined && (!wanted || run.bootKey !== bootKey)) {
        this.#end(instance.id, run, "the instance stopped");
      }
      if (wanted && run?.bootKey !== bootKey)
        this.#runs.set(instance.id, this.#start(instance, bootKey, nowMs));
    }
    for (const [instanceId, run] of this.#runs) {
      if (!living.has(instanceId)) this.#end(instanceId, run, "the instance was destroyed");
    }
    for (const [instanceId, directory] of this.#directories) {
      const instance = this.store.state.instances.find((i) => i.id === instanceId);
      if (instance !== undefined && containerKeyOf(instance) === directory.containerKey) continue;
      this.#directories.delete(instanceId);
      this.#discard(directory);
    }
  }

  /** Removes a directory once the processes in flight (its own among them) have ended. */
  #discard(directory: Directory): void {
    const inFlight = [...this.#work];
    this.#track(
      Promise.all(inFlight).then(() => {
        removeDirectory(directory.path);
      }),
    );
  }

  /** Ends every process and removes every directory. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#clock);
    for (const [instanceId, run] of this.#runs) {
      this.#end(instanceId, run, "the emulator closed");
    }
    await Promise.all([...this.#work]);
    for (const directory of this.#directories.values()) removeDirectory(directory.path);
    this.#directories.clear();
  }

  /** Runs the onstart; a failure to (a NUL byte in an env value, no room for a directory) is logged. */
  #start(instance: Instance, bootKey: string, nowMs: number): Run {
    const instanceId = instance.id;
    let child: ChildProcess;
    try {
      // A container created anew starts from an empty disk.
      const containerKey = containerKeyOf(instance);
      const existing = this.#directories.get(instanceId);
      if (existing !== undefined && existing.containerKey !== containerKey) this.#discard(existing);
      const directory =
        existing?.containerKey === containerKey
          ? existing.path
          : fs.mkdtempSync(path.join(os.tmpdir(), `gpucloud-emulator-C.${String(instanceId)}-`));
      this.#directories.set(instanceId, { path: directory, containerKey });
      const gpuBin = this.gpus?.binFor(instance);
      const emulatorPath = process.env.PATH;
      const env = containerEnv(
        this.store.state,
        instance,
        {
          apiKey: this.keys.keyOf(instanceId),
          directory,
          path:
            gpuBin === undefined
              ? emulatorPath
              : [gpuBin, emulatorPath ?? defaultPath].join(path.delimiter),
        },
        nowMs,
      );
      child = spawn("sh", ["-c", instance.onstart ?? ""], {
        cwd: directory,
        env,
        detached: true, // its own process group, which a stop ends as a whole
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      // The code alone: Node's message may quote an env value, and the log needs no key.
      const code = error instanceof Error && "code" in error ? String(error.code) : "error";
      this.#note(instanceId, `onstart could not be run (${code})`);
      return { bootKey, child: undefined, ending: undefined, groupGone: true };
    }
    const run: Run = { bootKey, child, ending: undefined, groupGone: false };
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding("utf8");
      stream?.on("data", (chunk: string) => {
        if (this.#exists(instanceId)) this.logs.append(instanceId, chunk);
      });
    }
    child.on("error", (error) => {
      this.#note(instanceId, `onstart could not be run: ${error.message}`);
    });
    child.on("close", (code, signal) => {
      // What it started in the background (`server &`) lives on in its group until a stop; an
      // empty group is never signalled again, lest its number be another's by then.
      if (child.pid !== undefined && !signalGroup(child.pid, 0)) {
        run.groupGone = true;
        liveGroups.delete(child.pid);
      }
      this.#note(instanceId, `onstart ended (${signal ?? `exit code ${String(code)}`})`);
    });
    if (child.pid !== undefined) {
      guardExit(child.pid);
      this.#note(instanceId, `onstart started (pid ${String(child.pid)})`);
    }
    return run;
  }

  #end(instanceId: number, run: Run, why: string): void {
    if (this.#runs.get(instanceId) === run) this.#runs.delete(instanceId);
    const pid = run.child?.pid;
    if (run.ending !== undefined || pid === undefined || run.groupGone) return;
    this.#note(instanceId, `ending onstart: ${why}`);
    run.ending = endGroup(pid);
    this.#track(run.ending);
  }

  /** Work the close waits for; a failure (a directory that cannot be removed) is dropped. */
  #track(work: Promise<unknown>): void {
    const tracked: Promise<void> = work.then(
      () => undefined,
      () => undefined,
    );
    this.#work.add(tracked);
    void tracked.then(() => this.#work.delete(tracked));
  }

  #exists(instanceId: number): boolean {
    return this.store.state.instances.some((i) => i.id === instanceId);
  }

  #note(instanceId: number, line: string): void {
    if (this.#exists(instanceId)) this.logs.note(instanceId, line);
  }
}

function removeDirectory(directory: string): void {
  fs.rmSync(directory, { recursive: true, force: true });
}
