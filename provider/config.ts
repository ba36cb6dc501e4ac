import { z } from "zod";
import { GpuCloudClient, type TransportOptions } from "./client";

/** Where configuration comes from: Pulumi config (`gpucloud:*`), then the environment. */
export interface ConfigSource {
  get(key: string): string | undefined;
}

export const providerConfigSchema = z.object({
  apiKey: z.string().min(1),
  baseUrl: z.url({ protocol: /^https?$/ }),
});
export type ProviderConfig = z.infer<typeof providerConfigSchema>;

const howToSet = {
  apiKey:
    "gpucloud:apiKey is not set: run `pulumi config set --secret gpucloud:apiKey <key>` " +
    "or set the GPUCLOUD_API_KEY environment variable",
  baseUrl:
    "gpucloud:baseUrl is not set: run `pulumi config set gpucloud:baseUrl https://<service address>` " +
    "or set GPUCLOUD_BASE_URL (the local emulator prints its address when it starts)",
  badUrl: "gpucloud:baseUrl must be an http:// or https:// URL, e.g. https://console.example.com",
} as const;

/**
 * Resolves the provider's configuration, failing with how to set what is missing. The key is
 * never part of any message.
 */
export function resolveConfig(
  source: ConfigSource | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ProviderConfig {
  const apiKey = source?.get("gpucloud:apiKey") ?? env["GPUCLOUD_API_KEY"];
  const baseUrl = source?.get("gpucloud:baseUrl") ?? env["GPUCLOUD_BASE_URL"];
  if (apiKey === undefined || apiKey === "") throw new Error(howToSet.apiKey);
  if (baseUrl === undefined || baseUrl === "") throw new Error(howToSet.baseUrl);
  const parsed = providerConfigSchema.safeParse({ apiKey, baseUrl });
  if (!parsed.success) throw new Error(howToSet.badUrl);
  return parsed.data;
}

/** Builds a client from resolved configuration. */
export function clientFor(
  config: ProviderConfig,
  options: Partial<TransportOptions> = {},
): GpuCloudClient {
  return new GpuCloudClient({ ...options, apiKey: config.apiKey, baseUrl: config.baseUrl });
}
