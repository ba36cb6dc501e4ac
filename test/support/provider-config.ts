import { configure } from "../../provider/provider-runtime";
import type { TestEmulator } from "./emulator";

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
