import { z } from "zod";
import type { Run } from "../run/run";

// What a program needs to call an endpoint, as the service documents the call: a client POSTs
// `{"endpoint": <its name>, "cost": <estimate>}` to `/route/` on the service's serverless address
// (the OpenAPI's `route`, whose server is not the API's), authenticated with the endpoint's own
// API key (the official client's `Endpoint._route` sends the key of the endpoint's row, as its
// Bearer key and in the body), and is answered a worker's `url` with a signature; it then POSTs
// `{"auth_data": <that answer>, "payload": ...}` to the worker's URL plus the worker's own route
// (the PyWorker guide).

export const callingOutputsSchema = {
  routeUrl: z
    .string()
    .describe(
      'Where a client sends the endpoint\'s route call: POST `{"endpoint": endpointName, ' +
        '"cost": <estimate>}` here with `Authorization: Bearer <apiKey>`, and it answers a ' +
        "worker's `url` (or a `status` to ask again on). Made from `gpucloud:serverlessUrl`, " +
        "else `gpucloud:baseUrl`.",
    ),
  apiKey: z
    .string()
    .meta({ secret: true })
    .describe(
      "The endpoint's own API key (a Pulumi secret), as the service's endpoint list shows it: " +
        "the key a client routes requests with. Read again by refresh.",
    )
    .optional(),
};

/**
 * `<address>/route/`, whether or not the address ends with a slash or holds a path. A user and
 * password in the address are left out: the output is no secret, and the call authenticates
 * with the endpoint's key.
 */
export function routeUrlOf(serverlessUrl: string): string {
  const base = serverlessUrl.endsWith("/") ? serverlessUrl : `${serverlessUrl}/`;
  const url = new URL("route/", base);
  url.username = "";
  url.password = "";
  return url.toString();
}

/** The endpoint's calling outputs, with its key as the service's list gave it. */
export function callingOutputs(
  run: Run,
  apiKey: string | undefined,
): { routeUrl: string; apiKey?: string } {
  const routeUrl = routeUrlOf(run.serverlessUrl);
  return apiKey === undefined ? { routeUrl } : { routeUrl, apiKey };
}

/**
 * The key of an endpoint just created, from the service's list. When that list fails, the key
 * is left for refresh: a created endpoint must reach the state whatever a later read says.
 */
export async function keyAfterCreate(run: Run, endpointId: number): Promise<string | undefined> {
  return run.client.endpoints.keyOf(endpointId).catch(() => undefined);
}
