import { Run, type RunOptions } from "../../provider/run/run";
import type { TestEmulator } from "./emulator";

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
