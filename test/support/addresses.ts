import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A server that answers every request with 404: an address that is not this API. */
export async function notTheApi(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(404, { "content-type": "text/html" }).end("<h1>Not Found</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

/**
 * An address where nothing listens: a free port below every system's ephemeral range (Linux's
 * starts at 32768, macOS's and Windows' at 49152). A port from listen(0), freed again, was in
 * that range, where another process of the run (an emulator, the engine's gRPC servers) could
 * be given it before the test connected: the check then found something answering.
 */
export async function nothingListening(): Promise<string> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once("error", () => {
        resolve(false);
      });
      server.listen(port, "127.0.0.1", () => {
        resolve(true);
      });
    });
    if (free) {
      await new Promise((resolve) => server.close(resolve));
      return `http://127.0.0.1:${String(port)}`;
    }
  }
}
