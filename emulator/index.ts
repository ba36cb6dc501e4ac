import Fastify, { type FastifyInstance } from "fastify";
import { KeyRing, registerAuth } from "./auth";
import type { EmulatorContext } from "./context";
import { FaultInjector } from "./faults";
import { installHttpBasics } from "./http";
import {
  type EmulatorOptions,
  EmulatorOptionsSchema,
  parseOptions,
  type StartOptions,
  StartOptionsSchema,
} from "./options";
import { RateLimiter } from "./rateLimits";
import { RequestLog } from "./requestLog";
import { registerServiceRouting } from "./service-routes";
import { registerApiKeyRoutes } from "./routes/apikeys";
import { registerBidRoutes } from "./routes/bids";
import { registerEndpointRoutes } from "./routes/endpoints";
import { registerCommandRoutes } from "./routes/commands";
import { registerControlRoutes } from "./routes/control";
import { registerInstanceRoutes } from "./routes/instances";
import { registerNetworkVolumeRoutes } from "./routes/network-volumes";
import { registerOfferRoutes } from "./routes/offers";
import { registerOverlayRoutes } from "./routes/overlays";
import { registerSecretRoutes } from "./routes/secrets";
import { registerSshRoutes } from "./routes/ssh";
import { registerTemplateRoutes } from "./routes/templates";
import { registerUserRoutes } from "./routes/users";
import { registerVolumeRoutes } from "./routes/volumes";
import { registerWebhookRoutes } from "./routes/webhooks";
import { registerWorkerGroupRoutes } from "./routes/workergroups";
import { ServerlessEngine } from "./serverless";
import { registerServerlessEngine } from "./serverless-hooks";
import { Store } from "./state";
import { registerTraffic } from "./traffic";

export type { EmulatorOptions, StartOptions } from "./options";
export { EmulatorOptionsSchema, StartOptionsSchema } from "./options";

export interface RunningEmulator {
  url: string;
  port: number;
  close(): Promise<void>;
}

const ROUTES = [
  registerUserRoutes,
  registerSecretRoutes,
  registerWebhookRoutes,
  registerVolumeRoutes,
  registerOfferRoutes,
  registerInstanceRoutes,
  registerCommandRoutes,
  registerSshRoutes,
  registerApiKeyRoutes,
  registerTemplateRoutes,
  registerBidRoutes,
  registerEndpointRoutes,
  registerWorkerGroupRoutes,
  registerOverlayRoutes,
  registerNetworkVolumeRoutes,
  registerControlRoutes,
];

/** An app ready for app.inject; throws when a state file cannot be read as emulator state. */
export function buildEmulator(options: EmulatorOptions): FastifyInstance {
  const settings = parseOptions(EmulatorOptionsSchema, options);
  const store = Store.open(settings);
  const faults = new FaultInjector(settings.seed ?? 1);
  const ctx: EmulatorContext = {
    store,
    keys: new KeyRing(settings.apiKey),
    faults,
    requests: new RequestLog(),
    rateLimits: new RateLimiter(settings.rateLimits),
    settings,
    serverless: new ServerlessEngine(store, settings, faults),
  };
  // No logger: Fastify would log requests, and requests carry the API key.
  const app = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  installHttpBasics(app);
  registerTraffic(app, ctx.requests, ctx.faults, ctx.rateLimits);
  registerAuth(app, ctx.keys);
  registerServiceRouting(app, ctx.requests, settings.strict);
  registerServerlessEngine(app, ctx.serverless, store);
  for (const register of ROUTES) register(app, ctx);
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
