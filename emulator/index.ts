import Fastify, { type FastifyInstance } from "fastify";
import { KeyRing, registerAuth } from "./accounts/auth";
import type { EmulatorContext } from "./shared/context";
import { FaultInjector } from "./control/faults";
import { installHttpBasics } from "./shared/http";
import {
  type EmulatorOptions,
  EmulatorOptionsSchema,
  parseOptions,
  type StartOptions,
  StartOptionsSchema,
} from "./options";
import { RateLimiter } from "./control/rate-limits";
import { RequestLog } from "./control/request-log";
import { registerServiceRouting } from "./control/service-routing";
import { registerApiKeyRoutes } from "./accounts/api-key-routes";
import { registerBidRoutes } from "./instances/bid-routes";
import { registerEndpointRoutes } from "./serverless/endpoint-routes";
import { registerCommandRoutes } from "./instances/command-routes";
import { registerControlRoutes } from "./control/control-routes";
import { registerInstanceRoutes } from "./instances/instance-routes";
import { registerOfferRoutes } from "./market/offer-routes";
import { registerOverlayRoutes } from "./instances/overlay-routes";
import { registerSecretRoutes } from "./accounts/secret-routes";
import { registerSshRoutes } from "./accounts/ssh-key-routes";
import { registerTemplateRoutes } from "./templates/template-routes";
import { registerUserRoutes } from "./accounts/user-routes";
import { registerVolumeRoutes } from "./volumes/volume-routes";
import { registerWebhookRoutes } from "./accounts/webhook-routes";
import { registerWorkerGroupRoutes } from "./serverless/worker-group-routes";
import { ServerlessEngine } from "./serverless/worker-engine";
import { registerServerlessEngine } from "./serverless/engine-hooks";
import { Store } from "./shared/state";
import { registerTraffic } from "./control/traffic";

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
