import { z } from "zod";
import { GpuCloudError } from "./errors";
import { SharedList } from "./shared-list";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

// Serverless endpoints (`/api/v0/endptjobs/`). A row of the list also carries the endpoint's
// `api_key`, a credential: what a client sends to call the endpoint (the official client's
// `Endpoint._route` uses it as the route call's key). It is kept apart from the row: `list` and
// `find` never return it; only `keyOf` does, for the Endpoint's secret output.

/** The scaling parameters of an endpoint (wire names), as POST and PUT take them. */
export const endpointFieldsSchema = z.object({
  endpoint_name: z.string(),
  /** Minimum floor load, perf units per second (tokens/s for LLMs). */
  min_load: z.number(),
  /** Target capacity utilization, a fraction in (0, 1]. */
  target_util: z.number(),
  /** Cold (inactive) capacity target as a multiple of the hot capacity target. */
  cold_mult: z.number(),
  /** Workers kept cold when there is no load. */
  cold_workers: z.number().int(),
  /** The most workers (active and inactive) the endpoint may have. */
  max_workers: z.number().int(),
});
export type EndpointFields = z.infer<typeof endpointFieldsSchema>;
const endpointUpdateSchema = endpointFieldsSchema.partial();

/** A row of GET /api/v0/endptjobs/ without its `api_key` (stripped: never declared here). */
export const endpointSchema = z.object({
  id: z.number().int(),
  endpoint_name: z.string(),
  min_load: z.number(),
  target_util: z.number(),
  cold_mult: z.number(),
  cold_workers: z.number().int(),
  max_workers: z.number().int(),
  endpoint_state: z.string().nullable().optional(),
  user_id: z.number().int().optional(),
  created_at: z.union([z.string(), z.number()]).nullable().optional(),
});
export type Endpoint = z.infer<typeof endpointSchema>;

/** A listed row: the endpoint, and its own key apart (the only place the key is kept). */
const listedRowSchema = endpointSchema
  .extend({ api_key: z.string().optional() })
  .transform(({ api_key, ...endpoint }) => ({ endpoint, apiKey: api_key }));
type ListedRow = z.infer<typeof listedRowSchema>;

const listEndpointsSchema = z.object({ success: z.boolean(), results: z.array(listedRowSchema) });
const createdEndpointSchema = z.object({ success: z.boolean(), result: z.number().int() });
const successSchema = z.object({ success: z.boolean() });

/** What a delete of an endpoint or a worker group says of the group's worker instances. */
export const deletedWorkersSchema = z.object({
  success: z.boolean(),
  /** Worker instances the service destroyed (released asynchronously). */
  deleted_workers: z.array(z.number().int()).optional().default([]),
  /** Worker instances the service could not destroy: still on the account. */
  failed_workers: z.array(z.number().int()).optional().default([]),
  msg: z.string().optional(),
});
export type DeletedWorkers = z.infer<typeof deletedWorkersSchema>;

/** The service answers the list of an account without endpoints with this 400. */
function isNoEndpoints(error: unknown): boolean {
  return (
    error instanceof GpuCloudError &&
    error.status === 400 &&
    /no endpoints/i.test(error.serviceMessage ?? "")
  );
}

/**
 * True when the service says the endpoint does not exist: it answers an unknown id with a 400
 * `invalid_args` saying it was "not found" (or a 404).
 */
export function isEndpointGone(error: unknown): boolean {
  if (!(error instanceof GpuCloudError)) return false;
  if (error.isNotFound) return true;
  return error.status === 400 && /not found/i.test(error.serviceMessage ?? "");
}

export class EndpointsApi {
  // A refresh reads each endpoint by listing them all: concurrent reads share one list.
  private readonly shared: SharedList<ListedRow[]>;

  constructor(private readonly transport: Transport) {
    this.shared = new SharedList((signal) => this.fetchList(signal));
  }

  private async fetchList(signal?: AbortSignal): Promise<ListedRow[]> {
    try {
      const body = await this.transport.request({
        method: "GET",
        path: "/api/v0/endptjobs/",
        response: listEndpointsSchema,
        signal,
      });
      return body.results;
    } catch (error) {
      if (isNoEndpoints(error)) return [];
      throw error;
    }
  }

  /**
   * The account's endpoints (never their API keys); an account without any is an empty list
   * (the service answers it with a 400). Reads close together share one request.
   */
  async list(signal?: AbortSignal): Promise<Endpoint[]> {
    return (await this.shared.read(signal)).map((row) => row.endpoint);
  }

  /** The endpoint, or undefined when the account has none with this id. */
  async find(id: number, signal?: AbortSignal): Promise<Endpoint | undefined> {
    return (await this.list(signal)).find((endpoint) => endpoint.id === id);
  }

  /**
   * The endpoint's own API key, as the service's list shows it: what a client calls the endpoint
   * with. Undefined when the account has no such endpoint or the row carries no key. A
   * credential: for a secret output only, never a message.
   */
  async keyOf(id: number, signal?: AbortSignal): Promise<string | undefined> {
    return (await this.shared.read(signal)).find((row) => row.endpoint.id === id)?.apiKey;
  }

  /** Creates an endpoint; returns its id. */
  async create(fields: EndpointFields, signal?: AbortSignal): Promise<number> {
    const body = await this.shared.write(() =>
      this.transport.request({
        method: "POST",
        path: "/api/v0/endptjobs/",
        body: fields,
        bodySchema: endpointFieldsSchema,
        response: createdEndpointSchema,
        creates: true,
        signal,
      }),
    );
    return body.result;
  }

  /** Changes the fields given, in place; the service reconciles the workers. */
  async update(id: number, fields: Partial<EndpointFields>, signal?: AbortSignal): Promise<void> {
    await this.shared.write(() =>
      this.transport.request({
        method: "PUT",
        path: `/api/v0/endptjobs/${id}/`,
        body: fields,
        bodySchema: endpointUpdateSchema,
        response: successSchema,
        signal,
      }),
    );
  }

  /**
   * Deletes the endpoint and its worker groups. The service destroys their worker instances
   * asynchronously: the answer lists those it destroyed (`deleted_workers`, gone from the
   * account a little later) and those it could not (`failed_workers`, still running). A caller
   * that must leave nothing running waits for both (see the resources' delete).
   */
  async delete(id: number, signal?: AbortSignal): Promise<DeletedWorkers> {
    return this.shared.write(() =>
      this.transport.request({
        method: "DELETE",
        path: `/api/v0/endptjobs/${id}/`,
        response: deletedWorkersSchema,
        // Its answer is the only list of the workers to wait for: never sent again once it may
        // have reached the service (a retry would be answered "not found", without the list).
        creates: true,
        signal,
      }),
    );
  }
}

/** The fields the documents give both a create and an update of an endpoint. */
const endpointFields = [
  "autoscaler_instance",
  "client_id",
  "cold_mult",
  "cold_workers",
  "endpoint_name",
  "inactivity_timeout",
  "max_queue_time",
  "max_workers",
  "min_cold_load",
  "min_load",
  "target_queue_time",
  "target_util",
];

export const area: ClientArea = {
  property: "endpoints",
  Api: EndpointsApi,
  description: "Serverless endpoints.",
  documents: {
    "GET /api/v0/endptjobs/": { by: documentedBy.all, body: ["client_id"] },
    "POST /api/v0/endptjobs/": { by: documentedBy.all, body: endpointFields },
    "DELETE /api/v0/endptjobs/{id}/": { by: documentedBy.all, body: ["client_id", "endptjob_id"] },
    "PUT /api/v0/endptjobs/{id}/": {
      by: documentedBy.all,
      body: [...endpointFields, "endpoint_state", "endptjob_id"],
    },
  },
};
