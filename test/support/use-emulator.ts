import type { GpuCloudClient } from "../../provider/client";
import type { Run } from "../../provider/run/run";
import { type ClientOptions, clientFor, closeTestConnections } from "./clients";
import { startTestEmulator, type TestEmulator, type TestEmulatorOptions } from "./emulator";
import { runFor } from "./provider-config";

export interface UseEmulatorOptions extends TestEmulatorOptions {
  /**
   * `test`: a fresh emulator for each test, so that no test inherits another's state. `file`:
   * one for the file's tests (started before the first, closed after the last), for files whose
   * tests tolerate what the others left.
   */
  readonly per: "test" | "file";
}

/** What a test file gets from `useEmulator`; each member is the current test's. */
export interface EmulatorHook {
  /**
   * The emulator: a view that always stands for the current one, so that a file may keep it in
   * a constant (`const { emulator } = useEmulator(...)`); using it outside a test throws.
   */
  readonly emulator: TestEmulator;
  /** A client of the emulator, with its full-access key and the fast retry policy. */
  readonly client: GpuCloudClient;
  /** Another client of the same emulator. */
  newClient(options?: ClientOptions): GpuCloudClient;
  /**
   * A run of the providers configured for the emulator, as the engine configures a provider
   * process (each test is a run of its own); closed with its connections after the test.
   */
  readonly run: Run;
  /** The progress lines of the current test's run, in order. */
  readonly progress: readonly string[];
}

/**
 * The one way a test file gets an emulator: started per test or per file, closed afterwards also
 * when a test fails (its close fails a test whose emulator saw a request the service does not
 * document); the clients and runs made through the hook are closed too.
 */
export function useEmulator(options: UseEmulatorOptions): EmulatorHook {
  const { per, ...emulatorOptions } = options;
  let started: TestEmulator | undefined;
  let client: GpuCloudClient | undefined;
  let run: Run | undefined;
  let progress: string[] = [];

  const current = (): TestEmulator => {
    if (started === undefined) throw new Error("no emulator: use it inside a test");
    return started;
  };
  const start = async () => {
    started = undefined;
    started = await startTestEmulator(emulatorOptions);
  };
  // The closed emulator stays current until the next starts: the file's own afterEach hooks run
  // after this one and may still read its key (to check that no output shows it).
  const close = async () => {
    await started?.close();
  };
  if (per === "test") {
    beforeEach(start);
  } else {
    beforeAll(start);
  }
  beforeEach(() => {
    progress = [];
  });
  afterEach(async () => {
    const closing = run;
    run = undefined;
    client = undefined;
    try {
      await closing?.close();
    } finally {
      if (per === "test") await close();
    }
  });
  afterAll(async () => {
    try {
      if (per === "file") await close();
    } finally {
      await closeTestConnections();
    }
  });

  return {
    emulator: viewOf(current),
    get client() {
      const running = current();
      client ??= clientFor(running.url, running.apiKey);
      return client;
    },
    newClient: (clientOptions = {}) => {
      const running = current();
      return clientFor(running.url, running.apiKey, clientOptions);
    },
    get run() {
      const running = current();
      const lines = progress;
      run ??= runFor(running, { progress: (line) => lines.push(line) });
      return run;
    },
    get progress() {
      return progress;
    },
  };
}

/** A TestEmulator whose every member is that of `current()` at the time of use. */
function viewOf(current: () => TestEmulator): TestEmulator {
  return {
    get url() {
      return current().url;
    },
    get apiKey() {
      return current().apiKey;
    },
    call: (...args) => current().call(...args),
    control: (...args) => current().control(...args),
    raw: (...args) => current().raw(...args),
    requests: () => current().requests(),
    writes: () => current().writes(),
    clearRequests: () => current().clearRequests(),
    stateText: () => current().stateText(),
    state: () => current().state(),
    secrets: () => current().secrets(),
    setFaults: (faults) => current().setFaults(faults),
    clearFaults: () => current().clearFaults(),
    queueBoots: (outcomes) => current().queueBoots(outcomes),
    queueApps: (apps) => current().queueApps(apps),
    setGpuUtilization: (instanceId, percent) => current().setGpuUtilization(instanceId, percent),
    setUser: (user) => current().setUser(user),
    addKey: (key, permissions) => current().addKey(key, permissions),
    revokeKey: (key) => current().revokeKey(key),
    removeAsk: (kind, id) => current().removeAsk(kind, id),
    changeAsk: (kind, id, change) => current().changeAsk(kind, id, change),
    clock: (change) => current().clock(change),
    addInvoice: (invoice) => current().addInvoice(invoice),
    // The hook closes it: a test closing it early would leave the hook a closed emulator.
    close: () => Promise.reject(new Error("the emulator of useEmulator closes itself")),
  };
}
