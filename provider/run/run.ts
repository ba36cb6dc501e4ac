import type * as pulumi from "@pulumi/pulumi";
import { ConnectionPools, type GpuCloudClient } from "../client";
import {
  clientFor,
  type ConfigSource,
  type ProviderConfig,
  resolveConfig,
  verifyConfiguration,
} from "./config";
import { Budget } from "./budget";
import { Cancellation } from "./cancellation";
import { EngineWatch, engineAddressOf } from "./engine-watch";
import { MadeThisRun } from "./made-this-run";
import { PlanLedger } from "./plan-ledger";
import { EngineLines, logRetry } from "./progress";
import { RentingLedger } from "./renting-ledger";
import { SharedReads } from "./shared-reads";

export interface RunOptions {
  /** Where the configuration comes from, when it is known at the start (else configure). */
  readonly config?: ConfigSource;
  /**
   * The engine's address, as a provider process is given it (its first argument): the run
   * watches it (run/engine-watch.ts). Without one, nothing is watched.
   */
  readonly engineAddress?: string;
  /** Where progress lines go; by default to the engine's log (run/progress.ts). */
  readonly progress?: (message: string) => void;
  /** The client to use instead of one built from the configuration (a test's fake). */
  readonly client?: GpuCloudClient;
  /**
   * Where lines that must stay go (the plan's prices); by default where progress goes. The
   * plugin sends them to the resource's row without making them ephemeral statuses.
   */
  readonly notice?: (message: string) => void;
  /**
   * Where the stack's status goes (the plan's running total): the stack's row, replaced by the
   * next; by default the engine's log on the stack's row, as an ephemeral line.
   */
  readonly stackStatus?: (message: string) => void;
  /** The resource being worked on, where the door knows it (the plugin: its URN). */
  readonly currentResource?: () => string | undefined;
}

/**
 * One run of a provider: everything the resources of one `pulumi` operation share, passed to
 * each of their methods. A door makes one when its provider process starts (the native
 * plugin's Configure, provider/native/server.ts; the dynamic door's one anchor,
 * provider/provider-runtime.ts); a test makes its own. Nothing of it is ever serialized into
 * a resource's state, least of all the key.
 */
export class Run {
  /** The engine's Cancel, and the engine gone: every wait of the run stops. */
  readonly cancellation = new Cancellation();
  /** Notices the engine going away, and runs the cleanups of the work in flight. */
  readonly engineWatch: EngineWatch;
  /** Reads made once per run and shared by every resource that asks. */
  readonly reads: SharedReads;
  /** What this run made or declared. */
  readonly made = new MadeThisRun();
  /** What the creates that rent instances share: asks claimed, rents in flight, recorded. */
  readonly renting = new RentingLedger();
  /**
   * The stack's cap at `up` (`gpucloud:maxDollarsPerHour`): what the stack runs and what its
   * creates hold, and the refusal of a rent over the cap (run/budget.ts).
   */
  readonly budget: Budget;
  /** The plan's prices: each billable resource's $/hour after the change and now. */
  readonly plan = new PlanLedger();

  #config: ConfigSource | undefined;
  #client: GpuCloudClient | undefined;
  /** The run's connections: its client's and the verification's. */
  readonly #pools = new ConnectionPools();
  #verification: Promise<string | undefined> | undefined;
  readonly #progress: (message: string) => void;
  readonly #notice: ((message: string) => void) | undefined;
  readonly #stackStatus: (message: string) => void;
  readonly #currentResource: (() => string | undefined) | undefined;
  /** Where progress goes by default: the engine's log (not a door's own). */
  readonly #engineLines: EngineLines;

  constructor(options: RunOptions = {}) {
    this.#config = options.config;
    this.#client = options.client;
    this.#engineLines = new EngineLines(options.engineAddress);
    this.#progress =
      options.progress ??
      ((message) => {
        this.#engineLines.line(message);
      });
    this.#notice = options.notice;
    this.#stackStatus =
      options.stackStatus ??
      ((message) => {
        this.#engineLines.line(message, true);
      });
    this.#currentResource = options.currentResource;
    this.engineWatch = new EngineWatch(engineAddressOf(options.engineAddress), () => {
      this.cancellation.cancel();
    });
    this.reads = new SharedReads(() => this.client);
    // A run given a client and no configuration (a test's fake) has no cap.
    this.budget = new Budget(() =>
      this.#config === undefined && options.client !== undefined
        ? undefined
        : this.maxDollarsPerHour,
    );
  }

  /**
   * The configuration the engine hands to a provider (Configure). Called once per resource type
   * with the same stack configuration: the first is kept, so that every resource type shares
   * one client (and its shared list reads).
   */
  configure(source: ConfigSource | undefined): void {
    this.#config ??= source;
  }

  /** The configured client; throws, saying how to set it, when configuration is missing. */
  get client(): GpuCloudClient {
    this.#client ??= clientFor(resolveConfig(this.#config), {
      pools: this.#pools,
      onRetry: logRetry,
    });
    return this.#client;
  }

  /**
   * The service's address as configured (not a secret, unlike the key): an instance with a
   * maxLifetime calls it back from its own watchdog (shared/expiry-watchdog.ts). Throws, saying
   * how to set it, when configuration is missing.
   */
  get baseUrl(): string {
    return resolveConfig(this.#config).baseUrl;
  }

  /**
   * Where the service answers serverless route calls (`gpucloud:serverlessUrl`), else the
   * service's address: an Endpoint's `routeUrl` is made from it. Throws, saying how to set it,
   * when configuration is missing or malformed.
   */
  get serverlessUrl(): string {
    const config = resolveConfig(this.#config);
    return config.serverlessUrl ?? config.baseUrl;
  }

  /**
   * The stack's spending cap (`gpucloud:maxDollarsPerHour`), in dollars per hour; undefined
   * when none is set. Throws, saying how to set it, when configuration is missing or the cap
   * is malformed (check reports that first, through configurationFailures).
   */
  get maxDollarsPerHour(): number | undefined {
    return resolveConfig(this.#config).maxDollarsPerHour;
  }

  /**
   * The configuration and credentials, checked once per run on the first check that asks: a
   * missing or malformed setting, an address where nothing answers (within 3 s), an address
   * that is not this API, a refused key. The problem becomes one check failure without a stack
   * trace; every check of the run reports it, so that nothing proceeds to write with a broken
   * setup.
   */
  async configurationFailures(): Promise<pulumi.dynamic.CheckFailure[]> {
    this.#verification ??= (async () => {
      let config: ProviderConfig;
      try {
        config = resolveConfig(this.#config);
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
      return verifyConfiguration(config, this.#pools);
    })();
    const problem = await this.#verification;
    return problem === undefined ? [] : [{ property: "", reason: problem }];
  }

  /** A progress line for the operation's display (best effort). */
  progress(message: string): void {
    this.#progress(message);
  }

  /** A line that stays in the operation's display and its `--json` diagnostics (best effort). */
  notice(message: string): void {
    (this.#notice ?? this.#progress)(message);
  }

  /** The stack's status on its row, which the next replaces (best effort). */
  stackStatus(message: string): void {
    this.#stackStatus(message);
  }

  /** The URN of the resource being worked on, where the door knows it (the plugin). */
  currentResource(): string | undefined {
    return this.#currentResource?.();
  }

  /**
   * Resolves once the lines this run sent to the engine's log were answered (bounded): a door
   * awaits it before it answers a method, so that no line arrives after its step ended.
   */
  linesAnswered(): Promise<void> {
    return this.#engineLines.answered();
  }

  /** Closes the run's connections: for tests and plugins that want a clean exit. */
  async close(): Promise<void> {
    await this.#pools.close();
  }
}
