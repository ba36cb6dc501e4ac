import * as net from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { z } from "zod";
import { type TestEmulator, startTestEmulator } from "../support/emulator";
import { API_KEY, createInstance } from "./helpers";

// servePorts: an instance's mapped TCP ports answer on the loopback address its row reports.

const PortsRowSchema = z.object({
  actual_status: z.string().nullable(),
  public_ipaddr: z.string().nullable(),
  ports: z
    .record(z.string(), z.array(z.object({ HostIp: z.string(), HostPort: z.string() })))
    .nullable(),
});

const PATIENCE_MS = 10_000;
jest.setTimeout(3 * PATIENCE_MS);

async function show(emulator: TestEmulator, id: number) {
  const reply = await emulator.call("GET", `/api/v0/instances/${String(id)}/`);
  return z.object({ instances: PortsRowSchema }).parse(reply.body).instances;
}

/** The URL of the instance's container port 8000, read from its row as a client would. */
async function urlOf(emulator: TestEmulator, id: number): Promise<string> {
  const row = await show(emulator, id);
  const hostPort = row.ports?.["8000/tcp"]?.[0]?.HostPort;
  if (row.public_ipaddr === null || hostPort === undefined) throw new Error("no port 8000");
  return `http://${row.public_ipaddr}:${hostPort}`;
}

async function statusAt(url: string): Promise<number | "refused"> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(2000) })).status;
  } catch {
    return "refused";
  }
}

async function eventually<T>(read: () => Promise<T>, ready: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const value = await read();
    if (ready(value) || Date.now() > deadline) return value;
    await delay(50);
  }
}

const withPort = { env: { "-p 8000:8000": "1" } };

describe("servePorts", () => {
  let emulator: TestEmulator;
  afterEach(async () => {
    await emulator.close();
  });

  it("reports the loopback address and a real host port, answered by a stand-in app", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, servePorts: true, bootPolls: 0 });
    const id = await createInstance(emulator.call, withPort);
    const row = await show(emulator, id);
    expect(row.actual_status).toBe("running");
    expect(row.public_ipaddr).toBe("127.0.0.1");
    const url = await urlOf(emulator, id);
    expect(await statusAt(`${url}/health`)).toBe(200);
    expect(await (await fetch(url)).text()).toBe("ok\n");
  });

  it("answers the app's not-ready status until it is ready, or forever", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, servePorts: true, bootPolls: 0 });
    await emulator.queueApps([
      { readyAfterSeconds: 1, notReadyStatus: 502 },
      { readyAfterSeconds: null },
    ]);
    const soon = await createInstance(emulator.call, withPort);
    const never = await createInstance(emulator.call, withPort);
    const soonUrl = await urlOf(emulator, soon);
    const neverUrl = await urlOf(emulator, never);
    expect(await statusAt(soonUrl)).toBe(502);
    expect(await statusAt(neverUrl)).toBe(503);
    expect(
      await eventually(
        () => statusAt(soonUrl),
        (s) => s === 200,
      ),
    ).toBe(200);
    expect(await statusAt(neverUrl)).toBe(503);
    // Made ready by hand.
    const changed = await emulator.control("PUT", `/_emulator/instances/${String(never)}/app`, {
      readyAfterSeconds: 0,
    });
    expect(changed.status).toBe(200);
    expect(await statusAt(neverUrl)).toBe(200);
  });

  it("lets the ports go on stop and destroy, and maps fresh ones on start", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, servePorts: true, bootPolls: 0 });
    const id = await createInstance(emulator.call, withPort);
    const url = await urlOf(emulator, id);
    expect(await statusAt(url)).toBe(200);
    await emulator.call("PUT", `/api/v0/instances/${String(id)}/`, { state: "stopped" });
    expect((await show(emulator, id)).ports).toBeNull();
    expect(
      await eventually(
        () => statusAt(url),
        (s) => s === "refused",
      ),
    ).toBe("refused");
    await emulator.call("PUT", `/api/v0/instances/${String(id)}/`, { state: "running" });
    const again = await eventually(
      async () => (await show(emulator, id)).actual_status,
      (s) => s === "running",
    );
    expect(again).toBe("running");
    const restartedUrl = await urlOf(emulator, id);
    expect(await statusAt(restartedUrl)).toBe(200);
    await emulator.call("DELETE", `/api/v0/instances/${String(id)}/`);
    expect(
      await eventually(
        () => statusAt(restartedUrl),
        (s) => s === "refused",
      ),
    ).toBe("refused");
  });

  it("frees every port when the emulator closes", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, servePorts: true, bootPolls: 0 });
    const id = await createInstance(emulator.call, withPort);
    const port = Number(new URL(await urlOf(emulator, id)).port);
    await emulator.close();
    // The port can be bound again: nothing holds it.
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port, host: "127.0.0.1" }, resolve);
    });
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    emulator = await startTestEmulator({ apiKey: API_KEY });
  });

  it("with runOnstart, the onstart's own server answers on $VAST_TCP_PORT_<port>", async () => {
    emulator = await startTestEmulator({
      apiKey: API_KEY,
      servePorts: true,
      runOnstart: true,
      bootPolls: 0,
    });
    const id = await createInstance(emulator.call, {
      ...withPort,
      onstart: 'exec python3 -m http.server "$VAST_TCP_PORT_8000" --bind 127.0.0.1',
    });
    const url = await urlOf(emulator, id);
    // python's file listing, not the stand-in's "ok".
    const text = await eventually(
      async () => {
        try {
          return await (await fetch(url, { signal: AbortSignal.timeout(2000) })).text();
        } catch {
          return "";
        }
      },
      (body) => body.includes("Directory listing"),
    );
    expect(text).toContain("Directory listing");
  });

  it("without servePorts, nothing answers and the addresses are the documentation range", async () => {
    emulator = await startTestEmulator({ apiKey: API_KEY, bootPolls: 0 });
    const id = await createInstance(emulator.call, withPort);
    expect((await show(emulator, id)).public_ipaddr).toMatch(/^192\.0\.2\./);
    expect((await emulator.control("PUT", "/_emulator/apps", { apps: [] })).status).toBe(400);
  });
});
