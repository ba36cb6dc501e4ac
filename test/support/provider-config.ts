import type { EmulatorOptions } from "../../emulator";
import { Run, type RunOptions } from "../../provider/run/run";
import { startTestEmulator, type TestEmulator } from "./emulator";

/**
 * A run of the providers configured for `emulator`, as the engine configures a provider
 * process: the stack's `gpucloud:apiKey` and `gpucloud:baseUrl`, pointing at it.
 */
export function runFor(emulator: TestEmulator, options: Omit<RunOptions, "config"> = {}): Run {
  const values: Record<string, string> = {
    "gpucloud:apiKey": emulator.apiKey,
    "gpucloud:baseUrl": emulator.url,
  };
  return new Run({ ...options, config: { get: (key) => values[key] } });
}

/** What a test file whose tests call the providers directly works with. */
export interface ProviderTests {
  /** The current test's run (each test is a run of its own, a provider process of its own). */
  readonly run: Run;
  /** The progress lines of the current test's run, in order. */
  readonly progress: readonly string[];
}

/**
 * One emulator for a test file whose tests call the providers directly: started before the
 * file's tests and closed after them; `assign` receives it once started. Each test gets a run of
 * its own, configured for it (closed with its connections after the test), whose progress lines
 * are kept for the test to read.
 */
export function emulatorForProviders(
  assign: (emulator: TestEmulator) => void,
  options: Partial<EmulatorOptions> = {},
): ProviderTests {
  let started: TestEmulator | undefined;
  let current: Run | undefined;
  let lines: string[] = [];
  beforeAll(async () => {
    started = await startTestEmulator(options);
    assign(started);
  });
  beforeEach(() => {
    const progress: string[] = [];
    lines = progress;
    if (started !== undefined)
      current = runFor(started, { progress: (line) => progress.push(line) });
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  afterAll(async () => {
    await started?.close();
  });
  return {
    get run() {
      if (current === undefined) throw new Error("no run: use it inside a test");
      return current;
    },
    get progress() {
      return lines;
    },
  };
}
