import type { FastifyInstance, FastifyReply } from "fastify";
import { z } from "zod";
import { bearerKey } from "../accounts/auth";
import { statusOf } from "../instances/lifecycle";
import type { EmulatorContext } from "../shared/context";
import { pathId } from "../shared/http";
import { AuthDataSchema, Router, WORKER_PREFIX } from "./routing";

// The OpenAPI's `route` body: `endpoint` and `cost` required. The official client also sends
// `api_key` (the endpoint's), `request_idx` and `replay_timeout`: accepted.
const RouteBodySchema = z.looseObject({
  endpoint: z.string().min(1),
  cost: z.number().nonnegative(),
  api_key: z.string().optional(),
});

// What the official client sends a worker (`_do_request`): the route's answer and its payload.
const WorkerBodySchema = z.looseObject({
  auth_data: AuthDataSchema,
  payload: z.unknown(),
});

/** The OpenAPI's error bodies for `route` are `{error}`, not the console API's {success, msg}. */
function refuse(reply: FastifyReply, status: number, error: string) {
  return reply.code(status).send({ error });
}

/**
 * The serverless address's calls (routing.ts): POST /route/ and the stand-in workers. Outside
 * /api/: the service serves them from another address than its console API, which the emulator
 * also answers on its own.
 */
export function registerRouteRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, keys, clock } = ctx;
  const router = new Router();

  app.post("/route/", async (request, reply) => {
    const body = RouteBodySchema.safeParse(request.body ?? {});
    if (!body.success) {
      return refuse(reply, 400, "Invalid endpoint or missing required parameters");
    }
    // The endpoint's own key (the official client's), in the header or the body; or an account
    // key (the OpenAPI's Bearer auth).
    const key = bearerKey(request.headers.authorization) ?? body.data.api_key;
    const endpoint = store.state.endpoints.find((e) => e.name === body.data.endpoint);
    const accountKey = key !== undefined && keys.grants(key, undefined) !== undefined;
    if (!accountKey && (endpoint === undefined || key !== endpoint.apiKey)) {
      return refuse(reply, 401, "Authentication failed");
    }
    if (endpoint === undefined) {
      return refuse(reply, 400, "Invalid endpoint or missing required parameters");
    }
    const origin = `${request.protocol}://${request.host}`;
    return store.mutate((state) =>
      router.route(state, endpoint, body.data.cost, origin, clock.nowMs()),
    );
  });

  // A stand-in PyWorker: checks the route's signature, then answers as a model server would,
  // with what it was asked (the payload and the worker route it came to).
  app.post(`${WORKER_PREFIX}/:id/*`, async (request, reply) => {
    const id = pathId(request.params);
    const worker = store.state.instances.find(
      (instance) =>
        instance.id === id && instance.workerGroupId !== null && instance.releaseAtMs === null,
    );
    if (id === undefined || worker === undefined) {
      return refuse(reply, 404, "No such worker: route the request again");
    }
    if (statusOf(worker, clock.nowMs()).actualStatus !== "running") {
      return refuse(reply, 503, "The worker is not running: route the request again");
    }
    const body = WorkerBodySchema.safeParse(request.body ?? {});
    const url = `${request.protocol}://${request.host}${WORKER_PREFIX}/${String(id)}`;
    if (!body.success || !router.verify(body.data.auth_data, url)) {
      return refuse(reply, 401, "auth_data is not a route answer for this worker");
    }
    const rest = z.object({ "*": z.string() }).safeParse(request.params);
    return {
      worker: id,
      route: `/${rest.success ? rest.data["*"] : ""}`,
      reqnum: body.data.auth_data.reqnum,
      payload: body.data.payload,
    };
  });
}
