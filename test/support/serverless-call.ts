import { z } from "zod";

// A serverless endpoint called as the service documents it (docs/guides/serverless.md): the
// route call to the endpoint's `routeUrl` with its own key, asked again while it answers a
// status, then the request to the worker it names, with the route's answer as `auth_data`.

/** What an Endpoint outputs for calling it. */
export interface EndpointCall {
  readonly routeUrl: string;
  readonly endpointName: string;
  readonly apiKey: string;
}

const readySchema = z.looseObject({ url: z.string(), reqnum: z.int(), signature: z.string() });

async function post(url: string, body: unknown, key?: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify(body),
  });
  const answer: unknown = await response.json();
  if (!response.ok) throw new Error(`POST ${url}: ${String(response.status)}`);
  return answer;
}

/**
 * The worker's answer to `payload` at its route `/generate`, and the route call's answer. Each
 * route call is the engine's look at the endpoint's workers (a booting one moves on), so a few
 * suffice; no waiting between them.
 */
export async function callEndpoint(call: EndpointCall, payload: unknown, attempts = 10) {
  let answer: unknown;
  for (let attempt = 0; attempt < attempts; attempt++) {
    answer = await post(call.routeUrl, { endpoint: call.endpointName, cost: 100 }, call.apiKey);
    const ready = readySchema.safeParse(answer);
    if (ready.success) {
      const served = await post(`${ready.data.url}/generate`, { auth_data: answer, payload });
      return { route: ready.data, served };
    }
  }
  throw new Error(`no worker became ready: ${JSON.stringify(answer)}`);
}
