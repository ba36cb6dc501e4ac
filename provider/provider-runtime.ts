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
 * of it (least of all the key) is ever serialized into a resource's state. It changes nothing
 * of the process it runs in (no V8 flag, no collection, no global): the process is shared with
 * the user's own dynamic resources.
 */
let configSource: ConfigSource | undefined;
let client: GpuCloudClient | undefined;

/** A resource provider's methods, as the engine calls them. */
export type ProviderCall = "check" | "diff" | "create" | "read" | "update" | "delete";

/**
 * Called once per resource type with the same stack configuration: the first call's is kept,
 * so that every resource type shares one client (and its shared list reads). The second
 * parameter is what entries written into states by earlier releases pass; it means nothing now.
 */
export function configure(
  request: pulumi.dynamic.ConfigureRequest,
  _collection?: "now" | "at-first-call",
): void {
  configSource ??= request.config;
}

/**
 * Kept for the entries that earlier releases copied by value into states (provider/shim.ts):
 * they call it before each method. It does nothing.
 */
export function beforeCall(_call: ProviderCall): void {}

/** The configured client; throws, saying how to set it, when configuration is missing. */
export function providerClient(): GpuCloudClient {
  if (client !== undefined) return client;
  client = clientFor(resolveConfig(configSource), {
    onRetry: (event) => {
      // Debug-level: what was retried and why, never a credential or a body.
      // Best effort, like progress: a line that cannot be logged must not reject unhandled.
      // The standalone plugin bundles the SDK (its resource classes import it anyway): there
      // esbuild makes this import a call into the bundle's own copy, which is always present.
      void import("@pulumi/pulumi")
        .then((sdk) =>
          sdk.log.debug(
            `gpucloud: retry ${event.retry} of ${event.endpoint} in ${event.delayMs} ms (${event.reason})`,
          ),
        )
        .catch(() => undefined);
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
 * Where progress goes instead, when a host knows better (the native plugin sends each line with
 * the URN of the resource being worked on): returns false to leave a line to the default.
 */
let progressSink: ((message: string) => boolean) | undefined;

export function setProgressSink(sink: ((message: string) => boolean) | undefined): void {
  progressSink = sink;
}

/**
 * Shows a progress line in `pulumi up`'s display, on the stack's row (a dynamic provider is
 * not told which resource it is working on). The dynamic-provider process is given the
 * engine's address as its first argument but does not hand it to the SDK's logger, so it is
 * handed over here, once. Progress is best effort: a line that cannot be sent is dropped.
 */
export function reportProgress(message: string): void {
  if (progressSink?.(message) === true) return;
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
