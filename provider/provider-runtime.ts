import type * as pulumi from "@pulumi/pulumi";
import type { GpuCloudClient } from "./client";
import { clientFor, type ConfigSource, resolveConfig } from "./config";

/**
 * The state of the dynamic-provider process: the configuration the engine handed to
 * `configure`, and one client built from it. It lives here, in the package, so that nothing
 * of it (least of all the key) is ever serialized into a resource's state.
 */
let configSource: ConfigSource | undefined;
let client: GpuCloudClient | undefined;

export function configure(request: pulumi.dynamic.ConfigureRequest): void {
  configSource = request.config;
  client = undefined;
}

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
