/**
 * The service's documented rate limits of the endpoints this client calls: each operation's 429
 * example in the service's OpenAPI reads `API requests too frequent endpoint threshold=T`, which
 * the client reads as T requests a second (the unit is not published; the emulator reads it so).
 * Keyed as {@link endpointOf} names a request: method and path as the client sends it, ids
 * replaced. Endpoints whose 429 gives no threshold (or that document no 429: offer search,
 * webhooks, overlays, network volumes) are not here: they are paced only by what their refusals
 * teach (pacing.ts).
 */
const documented: Readonly<Record<string, number>> = {
  // Instances.
  "GET /api/v1/instances/": 1.0,
  "GET /api/v0/instances/:id/": 2.0,
  "PUT /api/v0/instances/:id/": 1.0,
  "DELETE /api/v0/instances/:id/": 3.0,
  "DELETE /api/v0/instances/:id/ssh/:id/": 2.0,
  "PUT /api/v0/asks/:id/": 4.5,
  "PUT /api/v0/instances/bid_price/:id/": 5.5,
  "PUT /api/v0/instances/prepay/:id/": 2.0,
  // Account configuration.
  "GET /api/v0/secrets/": 5.0,
  "POST /api/v0/secrets/": 3.0,
  "PUT /api/v0/secrets/": 3.0,
  "DELETE /api/v0/secrets/": 3.0,
  "GET /api/v0/auth/apikeys/": 1.0,
  "POST /api/v0/auth/apikeys/": 2.0,
  "DELETE /api/v0/auth/apikeys/:id/": 2.0,
  "POST /api/v0/ssh/": 1.0,
  "PUT /api/v0/ssh/:id/": 1.0,
  "GET /api/v0/template/": 3.0,
  // Volumes.
  "GET /api/v0/volumes/": 5.5,
  "DELETE /api/v0/volumes/": 5.5,
  "POST /api/v0/volumes/search/": 5.5,
  // Serverless.
  "POST /api/v0/endptjobs/": 4.0,
  "GET /api/v0/endptjobs/": 3.0,
  "PUT /api/v0/endptjobs/:id/": 2.0,
  "DELETE /api/v0/endptjobs/:id/": 3.0,
  "POST /api/v0/workergroups/": 4.0,
  "GET /api/v0/workergroups/": 2.0,
  "PUT /api/v0/workergroups/:id/": 2.0,
  "DELETE /api/v0/workergroups/:id/": 3.0,
  // Billing.
  "GET /api/v0/charges/": 1.0,
  "GET /api/v1/invoices/": 3.0,
};

/** An endpoint's documented threshold in requests a second, or undefined when none is. */
export function documentedThreshold(endpoint: string): number | undefined {
  return documented[endpoint];
}
