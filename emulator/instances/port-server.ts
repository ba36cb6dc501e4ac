import * as http from "node:http";
import * as net from "node:net";
import { z } from "zod";
import type { Store } from "../shared/store";
import { openedPorts } from "./instance-row";
import type { Instance } from "./instance-state";
import { isRunning } from "./lifecycle";
import { bootKeyOf, recordServedPorts, type ServedPorts, servedPortsOf } from "./served-ports";
import type { Clock } from "../shared/clock";

/**
 * `servePorts`: each instance's mapped TCP ports (`-p 8000:8000` env entries) answer for real on
 * the loopback address, which its row reports as `public_ipaddr`, at the host ports its row's
 * `ports` map names: so that a client's wait for the app can be tested. The ports are taken when
 * the instance is created (or started again) and let go when it stops, is destroyed or the
 * emulator closes. What answers is a stand-in app (below), or, when the emulator runs the
 * onstart (`runOnstart`) and the instance has one, the user's own server: the port is only
 * reserved, and the onstart binds it from `VAST_TCP_PORT_<port>` as the container's
 * environment names it.
 */

/** The loopback address the served ports answer on. */
const LOOPBACK = "127.0.0.1";

/**
 * A stand-in app: HTTP on every path, answering `notReadyStatus` until it is ready, then 200.
 * `readyAfterSeconds` counts from when the emulator first sees the instance running; null: never.
 * It accepts TCP connections from the start, as a server that has bound its port while loading.
 */
export const StandInAppSchema = z.object({
  readyAfterSeconds: z.number().nonnegative().nullable().default(0),
  notReadyStatus: z.int().min(100).max(599).default(503),
});
export type StandInApp = z.infer<typeof StandInAppSchema>;

interface Serving {
  readonly bootKey: string;
  readonly servers: net.Server[];
}

export class PortServer {
  readonly #serving = new Map<number, Serving>();
  /** The apps the next instances with a mapped port take, in order (`PUT /_emulator/apps`). */
  readonly #queue: StandInApp[] = [];
  readonly #apps = new Map<number, StandInApp>();
  /** When each instance's app first saw it running (ms), for `readyAfterSeconds`. */
  readonly #runningSince = new Map<number, number>();
  #closed = false;

  constructor(
    private readonly store: Store,
    /** The user's onstart serves the ports of instances that have one. */
    private readonly onstartServes: boolean,
    /** The account's time, by which instances run and apps get ready (shared/clock.ts). */
    private readonly clock: Clock,
  ) {}

  queue(apps: readonly StandInApp[]): number {
    this.#queue.push(...apps);
    return this.#queue.length;
  }

  clearQueue(): void {
    this.#queue.length = 0;
  }

  /** Changes the app of an instance that has one; false when it has none. */
  setApp(instanceId: number, app: StandInApp): boolean {
    if (!this.#apps.has(instanceId)) return false;
    this.#apps.set(instanceId, app);
    this.#runningSince.delete(instanceId);
    return true;
  }

  /** Takes and lets go of ports as the instances' states say; call after every change. */
  reconcile(nowMs = this.clock.nowMs()): void {
    if (this.#closed) return;
    const living = new Map(this.store.state.instances.map((i) => [i.id, i]));
    for (const [instanceId, serving] of this.#serving) {
      const instance = living.get(instanceId);
      if (
        instance === undefined ||
        !wantsPorts(instance) ||
        serving.bootKey !== bootKeyOf(instance)
      ) {
        this.#release(instanceId, instance);
      }
    }
    for (const instance of living.values()) {
      if (wantsPorts(instance) && !this.#serving.has(instance.id)) this.#serve(instance);
      if (isRunning(instance, nowMs) && !this.#runningSince.has(instance.id)) {
        this.#runningSince.set(instance.id, nowMs);
      }
    }
    for (const instanceId of this.#apps.keys()) {
      if (!living.has(instanceId)) {
        this.#apps.delete(instanceId);
        this.#runningSince.delete(instanceId);
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    const servers = [...this.#serving.values()].flatMap((serving) => serving.servers);
    this.#serving.clear();
    await Promise.all(servers.map(closeServer));
  }

  /**
   * Binds the instance's TCP ports. With an IP literal, `listen` binds on the next tick (its
   * address lookup answers then), before the emulator reads another request: the row of the
   * very next request already names them.
   */
  #serve(instance: Instance): void {
    const tcp = openedPorts(instance).filter((port) => port.endsWith("/tcp"));
    if (tcp.length === 0) return;
    const reserveOnly = this.onstartServes && (instance.onstart ?? "").trim() !== "";
    if (!reserveOnly && !this.#apps.has(instance.id)) {
      this.#apps.set(instance.id, this.#queue.shift() ?? StandInAppSchema.parse({}));
    }
    const servers: net.Server[] = [];
    const ports = new Map<string, number>();
    const pending = new Set(tcp);
    for (const port of tcp) {
      const server = reserveOnly ? net.createServer() : this.#standIn(instance.id);
      // A port that cannot be had is simply not served.
      server.on("error", () => pending.delete(port));
      server.listen({ port: 0, host: LOOPBACK }, () => {
        pending.delete(port);
        const address = server.address();
        if (address !== null && typeof address !== "string") ports.set(port, address.port);
        // The onstart's server binds it: the emulator only picked a free one.
        if (reserveOnly) server.close();
      });
      if (!reserveOnly) servers.push(server);
    }
    const served: ServedPorts = {
      bootKey: bootKeyOf(instance),
      address: LOOPBACK,
      ports,
      pending,
    };
    recordServedPorts(instance, served);
    this.#serving.set(instance.id, { bootKey: served.bootKey, servers });
  }

  #release(instanceId: number, instance: Instance | undefined): void {
    const serving = this.#serving.get(instanceId);
    this.#serving.delete(instanceId);
    this.#runningSince.delete(instanceId);
    if (instance !== undefined && servedPortsOf(instance)?.bootKey !== bootKeyOf(instance)) {
      recordServedPorts(instance, undefined);
    }
    for (const server of serving?.servers ?? []) void closeServer(server);
  }

  #standIn(instanceId: number): http.Server {
    const server = http.createServer((request, response) => {
      request.resume();
      const instance = this.store.state.instances.find((i) => i.id === instanceId);
      const now = this.clock.nowMs();
      if (instance === undefined || !isRunning(instance, now)) {
        response.socket?.destroy(); // no container is up to answer
        return;
      }
      const since = this.#runningSince.get(instanceId) ?? now;
      this.#runningSince.set(instanceId, since);
      const app = this.#apps.get(instanceId) ?? StandInAppSchema.parse({});
      const ready = app.readyAfterSeconds !== null && now - since >= app.readyAfterSeconds * 1000;
      response.writeHead(ready ? 200 : app.notReadyStatus, { "content-type": "text/plain" });
      response.end(ready ? "ok\n" : "not ready\n");
    });
    // Keep-alive sockets would hold a closing emulator open.
    server.keepAliveTimeout = 1;
    return server;
  }
}

/** Wants its ports: created or started, not stopped, outbid or at a dead end. */
function wantsPorts(instance: Instance): boolean {
  return (
    instance.intendedStatus === "running" &&
    instance.outbidDollarsPerHour === null &&
    instance.boot.status === "running"
  );
}

async function closeServer(server: net.Server): Promise<void> {
  if (server instanceof http.Server) server.closeAllConnections();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
}
