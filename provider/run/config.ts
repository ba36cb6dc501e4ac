import { z } from "zod";
import {
  type ConnectionPools,
  exponentialBackoff,
  GpuCloudClient,
  GpuCloudError,
  type TransportOptions,
} from "../client";

/** Where configuration comes from: Pulumi config (`gpucloud:*`), then the environment. */
export interface ConfigSource {
  get(key: string): string | undefined;
}

export const providerConfigSchema = z.object({
  apiKey: z.string().min(1).meta({ secret: true }),
  baseUrl: z.url({ protocol: /^https?$/ }),
  maxDollarsPerHour: z.number().positive().optional(),
  // The service serves a serverless endpoint's route call (POST /route/) from another address
  // than its API (the OpenAPI's `route` names its own server); the emulator serves both.
  serverlessUrl: z.url({ protocol: /^https?$/ }).optional(),
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
  badServerlessUrl:
    "gpucloud:serverlessUrl must be an http:// or https:// URL: the address the service " +
    "answers serverless route calls (POST /route/) at; unset it to use gpucloud:baseUrl",
  badCap:
    "gpucloud:maxDollarsPerHour must be a positive number of dollars per hour, e.g. 12.5 " +
    "(the stack's spending cap); unset it to have no cap",
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
  const maxDollarsPerHour = resolveCap(
    source?.get("gpucloud:maxDollarsPerHour") ?? env["GPUCLOUD_MAX_DOLLARS_PER_HOUR"],
  );
  const serverlessUrl = source?.get("gpucloud:serverlessUrl") ?? env["GPUCLOUD_SERVERLESS_URL"];
  const given = serverlessUrl === undefined || serverlessUrl === "" ? undefined : serverlessUrl;
  if (given !== undefined && !providerConfigSchema.shape.serverlessUrl.safeParse(given).success) {
    throw new Error(`${howToSet.badServerlessUrl}; ${describeUrl(given)}`);
  }
  const parsed = providerConfigSchema.safeParse({
    apiKey,
    baseUrl,
    ...(maxDollarsPerHour === undefined ? {} : { maxDollarsPerHour }),
    ...(given === undefined ? {} : { serverlessUrl: given }),
  });
  if (!parsed.success) throw new Error(`${howToSet.badUrl}; ${describeUrl(baseUrl)}`);
  // The client adds /api/v0 to every path: a base URL holding it would ask /api/v0/api/v0/.
  if (/\/api\/v\d+\/?$/.test(new URL(baseUrl).pathname)) {
    throw new Error(
      "gpucloud:baseUrl must be the service's address without /api/v0 " +
        `(received ${new URL(baseUrl).pathname}); the provider adds the API path itself`,
    );
  }
  return parsed.data;
}

/** The stack's cap, when set: a positive, finite number of dollars per hour. */
function resolveCap(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const cap = Number(value);
  if (!Number.isFinite(cap))
    throw new Error(`${howToSet.badCap}; received text that is not a number`);
  if (cap <= 0) {
    throw new Error(`${howToSet.badCap}; received ${cap === 0 ? "zero" : "a negative number"}`);
  }
  return cap;
}

/** What kind of URL was given, never the whole of it (a URL may hold a password). */
function describeUrl(value: string): string {
  if (!URL.canParse(value)) return "received text that is not a URL";
  return `received a ${new URL(value).protocol.replace(/:$/, "")}: URL`;
}

/** How long check waits for the service before saying that nothing answers. */
export const reachabilityTimeoutMs = 3_000;

/**
 * Reads the current user once to verify the address and the key, and turns a certain problem
 * into one line naming what to fix: nothing answers at the address, the address is not this
 * API, or the key is refused. Anything else (a slow or overloaded service, a key whose scope
 * lacks user_read) is left to the calls that follow: undefined means "no known problem".
 */
export async function verifyConfiguration(
  config: ProviderConfig,
  /** The connections of the client that follows (the run's), so that the probe's is reused. */
  pools?: ConnectionPools,
): Promise<string | undefined> {
  const probe = clientFor(config, {
    ...(pools === undefined ? {} : { pools }),
    timeoutMs: reachabilityTimeoutMs,
    // A refused connection is retried briefly (a service starting up), within the 3 s.
    retryPolicy: {
      maxAttempts: 4,
      deadlineMs: reachabilityTimeoutMs - 500,
      floorMs: 250,
      backoff: exponentialBackoff(250, 1_000),
    },
  });
  try {
    await probe.users.current();
    return undefined;
  } catch (error) {
    if (!(error instanceof GpuCloudError)) return undefined;
    const where = `gpucloud:baseUrl ${config.baseUrl}`;
    if (error.network === "not-connected" || error.network === "timed-out") {
      return (
        `${where}: nothing answers there ` +
        `(${error.network === "timed-out" ? `no reply within ${reachabilityTimeoutMs / 1000} s` : whyNotConnected(error.message)}); ` +
        "is the service (or the emulator) running at that address?"
      );
    }
    if (error.status === 404) {
      return (
        `${where} answers, but not as the gpucloud API (HTTP 404 on GET /api/v0/users/current/): ` +
        "is gpucloud:baseUrl the service's address, without /api/v0?"
      );
    }
    if (error.status === 401 || (error.status === 403 && !lacksPermission(error))) {
      return (
        `gpucloud:apiKey was refused by ${config.baseUrl} (HTTP ${error.status}): the key is wrong, ` +
        "expired or revoked; set a valid one with `pulumi config set --secret gpucloud:apiKey <key>` " +
        "or GPUCLOUD_API_KEY"
      );
    }
    return undefined;
  }
}

/** The transport's message names the system's error code; said in words here. */
function whyNotConnected(message: string): string {
  if (message.includes("ECONNREFUSED")) return "connection refused";
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return "no such host";
  return "no connection";
}

/** A 403 that says the key lacks a permission: a scoped key without user_read, not an error. */
function lacksPermission(error: GpuCloudError): boolean {
  return /permission|scope|lacks/i.test(error.serviceMessage ?? "");
}

/** Builds a client from resolved configuration. */
export function clientFor(
  config: ProviderConfig,
  options: Partial<TransportOptions> = {},
): GpuCloudClient {
  return new GpuCloudClient({ ...options, apiKey: config.apiKey, baseUrl: config.baseUrl });
}
