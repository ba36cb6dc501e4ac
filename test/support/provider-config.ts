import { configure } from "../../provider/provider-runtime";
import type { EmulatorOptions } from "../../emulator";
import { closeAllPools } from "../../provider/client";
import { startTestEmulator, type TestEmulator } from "./emulator";

/**
 * Configures this test process's provider runtime as the engine configures a provider process:
 * the stack's `gpucloud:apiKey` and `gpucloud:baseUrl`, pointing at `emulator`. The runtime keeps
 * its first configuration, so a file calls this once, with one emulator for all its tests.
 */
export function configureProviderFor(emulator: TestEmulator): void {
  const values: Record<string, string> = {
    "gpucloud:apiKey": emulator.apiKey,
    "gpucloud:baseUrl": emulator.url,
  };
  configure({ config: { get: (key) => values[key], require: (key) => values[key] ?? "" } });
}

/**
 * One emulator for a test file whose tests call the providers directly: started before the
 * file's tests and handed to the provider runtime (which keeps its first configuration), then
 * closed after them, with the client's connection pools. `assign` receives it once started.
 */
export function emulatorForProviders(
  assign: (emulator: TestEmulator) => void,
  options: Partial<EmulatorOptions> = {},
): void {
  let started: TestEmulator | undefined;
  beforeAll(async () => {
    started = await startTestEmulator(options);
    configureProviderFor(started);
    assign(started);
  });
  afterAll(async () => {
    await closeAllPools();
    await started?.close();
  });
}
