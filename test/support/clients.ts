import {
  ConnectionPools,
  exponentialBackoff,
  GpuCloudClient,
  type RetryEvent,
  type RetryPolicy,
} from "../../provider/client";

/** Short waits, so that retried tests stay fast; the counts are those of a real policy. */
export const fastRetryPolicy: RetryPolicy = {
  maxAttempts: 5,
  deadlineMs: 5_000,
  floorMs: 5,
  backoff: exponentialBackoff(5, 50),
};

export interface ClientOptions {
  apiKey?: string;
  retryPolicy?: RetryPolicy;
  timeoutMs?: number;
  onRetry?: (event: RetryEvent) => void;
}

/**
 * The connections of every client a test file makes through `clientFor`, as a process shares
 * them: closed after the file (closeTestConnections).
 */
const testPools = new ConnectionPools();

/** Closes the connections of every client `clientFor` made in this file. */
export function closeTestConnections(): Promise<void> {
  return testPools.close();
}

export function clientFor(baseUrl: string, apiKey: string, options: ClientOptions = {}) {
  return new GpuCloudClient({
    pools: testPools,
    baseUrl,
    apiKey: options.apiKey ?? apiKey,
    retryPolicy: options.retryPolicy ?? fastRetryPolicy,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
  });
}
