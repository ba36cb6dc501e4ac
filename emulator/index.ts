import Fastify, { type FastifyInstance } from "fastify";
import { areas } from "./areas";
import { registerAuth } from "./accounts/auth";
import { InstanceKeys } from "./accounts/instance-keys";
import { KeyRing } from "./accounts/key-ring";
import { settleMeters } from "./billing/meter";
import { FaultInjector } from "./control/faults";
import { RateLimiter } from "./control/rate-limits";
import { RequestLog } from "./control/request-log";
import { registerServiceRouting } from "./control/service-routing";
import { registerTraffic } from "./control/traffic";
import { registerContainers } from "./instances/container-hooks";
import { InstanceLogs } from "./instances/instance-logs";
import { PortServer } from "./instances/port-server";
import { StandInGpus } from "./instances/stand-in-gpus";
import {
  type EmulatorOptions,
  EmulatorOptionsSchema,
  type StartOptions,
  StartOptionsSchema,
  parseOptions,
} from "./options";
import { registerServerlessEngine } from "./serverless/engine-hooks";
import { ServerlessEngine } from "./serverless/worker-engine";
import { Clock } from "./shared/clock";
import type { EmulatorContext } from "./shared/context";
import { installHttpBasics } from "./shared/http";
import { Store } from "./shared/store";

export type { EmulatorOptions, StartOptions } from "./options";
export { EmulatorOptionsSchema, StartOptionsSchema } from "./options";

export interface RunningEmulator {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** An app ready for app.inject; throws when a state file cannot be read as emulator state. */
export function buildEmulator(options: EmulatorOptions): FastifyInstance {
  const settings = parseOptions(EmulatorOptionsSchema, options);
  const store = Store.open(settings);
  const clock = new Clock();
  // Every change settles the bills at the moment it happens (billing/meter.ts).
  store.settle((state) => {
    settleMeters(state, clock.nowMs());
  });
  const faults = new FaultInjector(settings.seed ?? 1);
  const ctx: EmulatorContext = {
    store,
    clock,
    keys: new KeyRing(settings.apiKey),
    instanceKeys: new InstanceKeys(),
    logs: new InstanceLogs(),
    faults,
    requests: new RequestLog(),
    rateLimits: new RateLimiter(settings.rateLimits),
    settings,
    serverless: new ServerlessEngine(store, settings, faults, clock),
    ports: settings.servePorts ? new PortServer(store, settings.runOnstart, clock) : undefined,
    gpus: settings.runOnstart ? new StandInGpus() : undefined,
  };
  // No logger: Fastify would log requests, and requests carry the API key.
  const app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  installHttpBasics(app);
  registerTraffic(app, ctx.requests, ctx.faults, ctx.rateLimits);
  registerAuth(app, ctx.keys, ctx.instanceKeys, ctx.requests);
  registerServiceRouting(app, ctx.requests, settings.strict);
  registerServerlessEngine(app, ctx.serverless, store, clock);
  registerContainers(app, ctx);
  // Each area's routes (<area>/area.ts), from the list generated from the folders.
  for (const area of areas) for (const register of area.routes) register(app, ctx);
  return app;
}

export async function startEmulator(options: StartOptions): Promise<RunningEmulator> {
  const { port, host, ...emulatorOptions } = parseOptions(StartOptionsSchema, options);
  const app = buildEmulator(emulatorOptions);
  try {
    await app.listen({ port, host });
  } catch (error) {
    await app.close();
    throw error;
  }
  const address = app.server.address();
  if (address === null || typeof address === "string") {
    await app.close();
    throw new Error("The emulator is not listening on a TCP port.");
  }
  const hostInUrl = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${hostInUrl}:${String(address.port)}`,
    port: address.port,
    close: async () => {
      await app.close();
    },
  };
}
