import v8 from "node:v8";
import type * as pulumi from "@pulumi/pulumi";
import type { GpuCloudClient } from "./client";
import {
  clientFor,
  type ConfigSource,
  type ProviderConfig,
  resolveConfig,
  verifyConfiguration,
} from "./config";

/**
 * The state of the dynamic-provider process: the configuration the engine handed to
 * `configure`, and one client built from it. It lives here, in the package, so that nothing
 * of it (least of all the key) is ever serialized into a resource's state.
 */
let configSource: ConfigSource | undefined;
let client: GpuCloudClient | undefined;

/**
 * Called once per resource type with the same stack configuration: the first call's is kept,
 * so that every resource type shares one client (and its shared list reads). The first call
 * also sets {@link providerProcessV8Flags}, which hold for the whole process.
 */
export function configure(request: pulumi.dynamic.ConfigureRequest): void {
  if (configSource === undefined) {
    for (const flag of providerProcessV8Flags) v8.setFlagsFromString(flag);
  }
  configSource ??= request.config;
}

/**
 * V8 flags the dynamic-provider process sets at its first `configure`, before its first request:
 * they bound its peak memory (the README's performance notes give the figures). They hold for
 * the whole process, which the engine starts for one `pulumi` operation to serve the stack's
 * dynamic resources: the user's own dynamic resources in the same program share them, and run
 * with the same smaller young generation. (Tests that call `configure` set them in their worker.)
 *
 * - undici parses HTTP with WebAssembly (llhttp). After two or three replies V8 recompiles the
 *   parser's main function with its optimizing compiler: 70 ms of CPU and a 23 MB allocation
 *   peak (`--trace-wasm-compilation-times`), for a process that parses a few hundred small
 *   replies. A tiering budget no run reaches (V8 counts about a byte executed per unit) keeps
 *   the parser on the baseline compiler, for WebAssembly compiled after it is set.
 * - V8 doubles its young generation when much of what it allocates survives a collection, as a
 *   run's replies and checks do while resources are in flight: 34 → 67 MB. A growth factor of 1
 *   keeps it near the size it has when the provider starts (after the SDK's load), so that
 *   short-lived garbage is collected a little more often instead of held.
 */
export const providerProcessV8Flags: readonly string[] = [
  "--wasm-tiering-budget=2000000000",
  "--semi-space-growth-factor=1",
];

/** The configured client; throws, saying how to set it, when configuration is missing. */
export function providerClient(): GpuCloudClient {
  client ??= clientFor(resolveConfig(configSource), {
    onRetry: (event) => {
      // Debug-level: what was retried and why, never a credential or a body.
      void import("@pulumi/pulumi").then((sdk) =>
        sdk.log.debug(
          `gpucloud: retry ${event.retry} of ${event.endpoint} in ${event.delayMs} ms (${event.reason})`,
        ),
      );
    },
  });
  return client;
}

// One verification per provider process (one `pulumi` operation), shared by every check.
let verification: Promise<string | undefined> | undefined;

/**
 * The configuration and credentials, checked once per run on the first check that asks: a
 * missing or malformed setting, an address where nothing answers (within 3 s), an address that
 * is not this API, a refused key. The problem becomes one check failure without a stack trace;
 * every check of the run reports it, so that nothing proceeds to write with a broken setup.
 */
export async function configurationFailures(): Promise<pulumi.dynamic.CheckFailure[]> {
  verification ??= (async () => {
    let config: ProviderConfig;
    try {
      config = resolveConfig(configSource);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    return verifyConfiguration(config);
  })();
  const problem = await verification;
  return problem === undefined ? [] : [{ property: "", reason: problem }];
}

/**
 * Shows a progress line in `pulumi up`'s display, on the stack's row (a dynamic provider is
 * not told which resource it is working on). The dynamic-provider process is given the
 * engine's address as its first argument but does not hand it to the SDK's logger, so it is
 * handed over here, once. Progress is best effort: a line that cannot be sent is dropped.
 */
export function reportProgress(message: string): void {
  void import("@pulumi/pulumi")
    .then(async (sdk) => {
      const engineAddress = process.argv[2];
      if (!sdk.runtime.hasEngine() && engineAddress && /^[\w.[\]:-]+:\d+$/.test(engineAddress)) {
        // The organization is not known to a provider process; it is not used for logging.
        sdk.runtime.resetOptions(
          sdk.getProject(),
          sdk.getStack(),
          -1,
          engineAddress,
          "",
          false,
          "",
        );
      }
      await sdk.log.info(`gpucloud: ${message}`);
    })
    .catch(() => undefined);
}
