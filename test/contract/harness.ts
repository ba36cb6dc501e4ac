import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { GpuCloudError } from "../../provider/client";
import type { LoggedRequest } from "../support/emulator";

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
