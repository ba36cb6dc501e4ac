import { connect } from "node:net";

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

interface EngineAddress {
  readonly host: string;
  readonly port: number;
}

/** The engine's address in a provider process's first argument, if it holds one. */
export function engineAddressOf(argument: string | undefined): EngineAddress | undefined {
  const match = /^([\w.-]+|\[[\d:a-fA-F]+\]):(\d+)$/.exec(argument ?? "");
  if (!match?.[1] || !match[2]) return undefined;
  return { host: match[1].replace(/^\[|\]$/g, ""), port: Number(match[2]) };
}

function refuses(address: EngineAddress): Promise<boolean> {
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

/** One run's watch on its engine: the cleanups of the work in flight, and the timer. */
export class EngineWatch {
  readonly #cleanups = new Set<Cleanup>();
  #timer: NodeJS.Timeout | undefined;
  #refusals = 0;

  constructor(
    /** The engine's address; without one (not a provider process) nothing is watched. */
    private readonly address: EngineAddress | undefined,
    /** Stops every create of the run before its next attempt (the run's cancellation). */
    private readonly stopCreates: () => void,
  ) {}

  /**
   * Runs `work` with `cleanup` registered: if the engine goes away meanwhile, every registered
   * cleanup runs and the process exits. Outside a provider process (no engine address) it only
   * runs `work`.
   */
  async whileWatched<T>(cleanup: Cleanup, work: () => Promise<T>): Promise<T> {
    const address = this.address;
    if (address === undefined) return work();
    this.#cleanups.add(cleanup);
    this.#timer ??= setInterval(() => void this.check(address), checkIntervalMs).unref();
    try {
      return await work();
    } finally {
      this.#cleanups.delete(cleanup);
      if (this.#cleanups.size === 0) this.stopWatching();
    }
  }

  private async check(address: EngineAddress): Promise<void> {
    this.#refusals = (await refuses(address)) ? this.#refusals + 1 : 0;
    if (this.#refusals < refusalsToGiveUp) return;
    this.stopWatching();
    // Nobody will record what this process makes now: every create stops before its next
    // attempt (no search, no rent), as at the engine's Cancel, while the cleanups run.
    this.stopCreates();
    await Promise.allSettled([...this.#cleanups].map((cleanup) => cleanup()));
    process.exit(1);
  }

  private stopWatching(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#refusals = 0;
  }
}
