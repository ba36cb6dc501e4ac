import { connect } from "node:net";
import { cancelWaits } from "./cancellation";

/**
 * Notices that the Pulumi engine that started this provider process is gone. When the `pulumi`
 * CLI is killed (a cancelled CI job kills its process group), its plugins live on in their own
 * process groups, still inside their creates, with nobody left to record what they rent. The
 * engine's address is the process's first argument; while it refuses connections, the engine
 * is gone.
 */
const checkIntervalMs = 1_000;
/** Refusals in a row before the engine counts as gone (one can be a passing hiccup). */
const refusalsToGiveUp = 3;

function engineAddress(): { host: string; port: number } | undefined {
  const match = /^([\w.-]+|\[[\d:a-fA-F]+\]):(\d+)$/.exec(process.argv[2] ?? "");
  if (!match?.[1] || !match[2]) return undefined;
  return { host: match[1].replace(/^\[|\]$/g, ""), port: Number(match[2]) };
}

function refuses(address: { host: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(address);
    socket.setTimeout(2_000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      resolve(error.code === "ECONNREFUSED");
    });
  });
}

type Cleanup = () => Promise<void>;
const cleanups = new Set<Cleanup>();
let timer: NodeJS.Timeout | undefined;
let refusals = 0;

async function check(address: { host: string; port: number }): Promise<void> {
  refusals = (await refuses(address)) ? refusals + 1 : 0;
  if (refusals < refusalsToGiveUp) return;
  stopWatching();
  // Nobody will record what this process makes now: every create stops before its next
  // attempt (no search, no rent), as at the engine's Cancel, while the cleanups run.
  cancelWaits();
  await Promise.allSettled([...cleanups].map((cleanup) => cleanup()));
  process.exit(1);
}

function stopWatching(): void {
  if (timer) clearInterval(timer);
  timer = undefined;
  refusals = 0;
}

/**
 * Runs `work` with `cleanup` registered: if the engine goes away meanwhile, every registered
 * cleanup runs and the process exits. Outside a provider process (no engine address) it only
 * runs `work`.
 */
export async function whileEngineWatched<T>(cleanup: Cleanup, work: () => Promise<T>): Promise<T> {
  const address = engineAddress();
  if (address === undefined) return work();
  cleanups.add(cleanup);
  timer ??= setInterval(() => void check(address), checkIntervalMs).unref();
  try {
    return await work();
  } finally {
    cleanups.delete(cleanup);
    if (cleanups.size === 0) stopWatching();
  }
}
