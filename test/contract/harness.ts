import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import {
  ConnectionPools,
  exponentialBackoff,
  GpuCloudClient,
  GpuCloudError,
  type RetryEvent,
  type RetryPolicy,
} from "../../provider/client";
import type { EmulatorOptions } from "../../emulator";
import {
  type LoggedRequest,
  startEmulatorForEachTest,
  type TestEmulator,
} from "../support/emulator";

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

export interface Harness {
  /** The emulator of the current test. */
  readonly emulator: TestEmulator;
  /** A client of the current test's emulator, with the full-access key and the fast policy. */
  readonly client: GpuCloudClient;
  /** Another client of the same emulator. */
  newClient(options?: ClientOptions): GpuCloudClient;
}

/**
 * Starts a fresh emulator (and client) before each test of the calling file, and closes it
 * after; closes the client's connection pools after the file.
 */
export function useEmulator(options: Partial<EmulatorOptions> = {}): Harness {
  let emulator: TestEmulator | undefined;
  let client: GpuCloudClient | undefined;
  startEmulatorForEachTest((started) => {
    emulator = started;
    client = clientFor(started.url, started.apiKey);
  }, options);
  afterAll(async () => {
    await closeTestConnections();
  });
  const current = (): TestEmulator => {
    if (emulator === undefined) throw new Error("no emulator: use the harness inside a test");
    return emulator;
  };
  return {
    get emulator() {
      return current();
    },
    get client() {
      if (client === undefined) throw new Error("no client: use the harness inside a test");
      return client;
    },
    newClient: (clientOptions = {}) => {
      const running = current();
      return clientFor(running.url, running.apiKey, clientOptions);
    },
  };
}

/** The rejection of `promise`, which must be a GpuCloudError. */
export async function failureOf(promise: Promise<unknown>): Promise<GpuCloudError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GpuCloudError) return error;
    throw new Error(`expected a GpuCloudError, got ${inspect(error)}`);
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** The error as a user might see it: message, JSON and util.inspect output. */
export function everyRendering(error: Error): string {
  return [error.message, JSON.stringify(error), inspect(error, { depth: 5 }), String(error)].join(
    "\n",
  );
}

/** `METHOD path status` of each logged request, for compact assertions. */
export function summary(requests: readonly LoggedRequest[]): string[] {
  return requests.map((entry) => `${entry.method} ${entry.path} ${String(entry.status)}`);
}

/** Logged requests with this method whose path (without query) is `path`. */
export function requestsTo(
  requests: readonly LoggedRequest[],
  method: string,
  path: string,
): LoggedRequest[] {
  return requests.filter((entry) => entry.method === method && entry.path.split("?")[0] === path);
}

export type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

export interface FakeServer {
  readonly url: string;
  /** `METHOD url` of every request received, in order. */
  readonly received: string[];
  close(): Promise<void>;
}

/** A tiny HTTP server on a free port, for responses the emulator never gives. */
export async function startFakeServer(handler: Handler): Promise<FakeServer> {
  const received: string[] = [];
  const server: Server = createServer((request, response) => {
    received.push(`${request.method ?? "?"} ${request.url ?? "?"}`);
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      handler(request, Buffer.concat(chunks).toString("utf8"), response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    received,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => {
          if (error) reject(error);
          else resolve();
        });
      }),
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** Polls `condition` (no fixed sleeps) until it holds, failing after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 5_000,
): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
