import { z } from "zod";
import { type DeletedWorkers, deletedWorkersSchema } from "./endpoints";
import { SharedList } from "./shared-list";
import type { Transport } from "./transport";
import { documentedBy, type ClientArea } from "./client-area";

// Serverless worker groups (`/api/v0/workergroups/`). Like an endpoint's, a group's row carries
// an `api_key`, a credential: the schemas below do not declare it, so zod strips it from every
// parsed row and it never reaches a caller, a state, a log or an error.

/** The fields of POST /api/v0/workergroups/ (wire names). */
export const workerGroupFieldsSchema = z.object({
  /** The endpoint the group serves (the service also takes `endpoint_name`; we send the id). */
  endpoint_id: z.number().int(),
  /** The template of the workers: its hash, or its numeric id. */
  template_hash: z.string().optional(),
  template_id: z.number().int().optional(),
  /**
   * The offers workers are rented from: a JSON-encoded query object (`{field: {op: value}}`,
   * as POST /api/v0/bundles/ takes it) or the official client's query string.
   */
  search_params: z.string().optional(),
  /** Extra instance-creation arguments, command-line style. */
  launch_args: z.string().optional(),
  min_load: z.number().optional(),
  target_util: z.number().optional(),
  cold_mult: z.number().optional(),
  cold_workers: z.number().int().optional(),
  max_workers: z.number().int().optional(),
  test_workers: z.number().int().optional(),
  /** GB the workload needs (an estimate for the engine; the query picks the machines). */
  gpu_ram: z.number().optional(),
});
export type WorkerGroupFields = z.infer<typeof workerGroupFieldsSchema>;

/** The fields PUT /api/v0/workergroups/{id}/ takes: not `cold_workers` or `max_workers`. */
export const workerGroupUpdateSchema = workerGroupFieldsSchema
  .omit({ cold_workers: true, max_workers: true })
  .partial()
  .strict();
export type WorkerGroupUpdate = z.infer<typeof workerGroupUpdateSchema>;

/** A row of GET /api/v0/workergroups/ without its `api_key` (stripped: never declared here). */
export const workerGroupSchema = z.object({
  id: z.number().int(),
  endpoint_id: z.number().int().nullable().optional(),
  endpoint_name: z.string().nullable().optional(),
  template_hash: z.string().nullable().optional(),
  template_id: z.number().int().nullable().optional(),
  /** The search parameters, parsed into a query object. */
  search_query: z.unknown().optional(),
  launch_args: z.string().nullable().optional(),
  min_load: z.number().nullable().optional(),
  target_util: z.number().nullable().optional(),
  cold_mult: z.number().nullable().optional(),
  test_workers: z.number().int().nullable().optional(),
  gpu_ram: z.number().nullable().optional(),
  /** Not in the service's description of the row; read when present (null: the default). */
  cold_workers: z.number().int().nullable().optional(),
  max_workers: z.number().int().nullable().optional(),
  user_id: z.number().int().optional(),
  created_at: z.union([z.string(), z.number()]).nullable().optional(),
});
export type WorkerGroup = z.infer<typeof workerGroupSchema>;

const listWorkerGroupsSchema = z.object({
  success: z.boolean(),
  results: z.array(workerGroupSchema),
});
const createdWorkerGroupSchema = z.object({ success: z.boolean(), id: z.number().int() });
const successSchema = z.object({ success: z.boolean() });

export class WorkerGroupsApi {
  // A refresh reads each group by listing them all: concurrent reads share one list.
  private readonly shared: SharedList<WorkerGroup[]>;

  constructor(private readonly transport: Transport) {
    this.shared = new SharedList((signal) =>
      this.transport
        .request({
          method: "GET",
          path: "/api/v0/workergroups/",
          response: listWorkerGroupsSchema,
          signal,
        })
        .then((body) => body.results),
    );
  }

  /** The account's worker groups (never their API keys). Reads close together share one. */
  list(signal?: AbortSignal): Promise<WorkerGroup[]> {
    return this.shared.read(signal);
  }

  /** The group, or undefined when the account has none with this id. */
  async find(id: number, signal?: AbortSignal): Promise<WorkerGroup | undefined> {
    return (await this.list(signal)).find((group) => group.id === id);
  }

  /** Creates a worker group; the service starts renting its cold workers. Returns its id. */
  async create(fields: WorkerGroupFields, signal?: AbortSignal): Promise<number> {
    const body = await this.shared.write(() =>
      this.transport.request({
        method: "POST",
        path: "/api/v0/workergroups/",
        body: fields,
        bodySchema: workerGroupFieldsSchema,
        response: createdWorkerGroupSchema,
        creates: true,
        signal,
      }),
    );
    return body.id;
  }

  /** Changes the fields given, in place. */
  async update(id: number, fields: WorkerGroupUpdate, signal?: AbortSignal): Promise<void> {
    await this.shared.write(() =>
      this.transport.request({
        method: "PUT",
        path: `/api/v0/workergroups/${id}/`,
        body: fields,
        bodySchema: workerGroupUpdateSchema,
        response: successSchema,
        signal,
      }),
    );
  }

  /**
   * Deletes the group. Its workers are destroyed asynchronously: the answer lists those the
   * service destroyed (`deleted_workers`, gone a little later) and those it could not
   * (`failed_workers`, still running). An unknown id fails with 404 `no_such_workergroup`.
   */
  async delete(id: number, signal?: AbortSignal): Promise<DeletedWorkers> {
    return this.shared.write(() =>
      this.transport.request({
        method: "DELETE",
        path: `/api/v0/workergroups/${id}/`,
        response: deletedWorkersSchema,
        // Its answer is the only list of the workers to wait for: never sent again once it may
        // have reached the service (a retry would be answered "not found", without the list).
        creates: true,
        signal,
      }),
    );
  }
}

/** The fields the documents give both a create and an update of a worker group. */
const workerGroupFields = [
  "client_id",
  "cold_mult",
  "cold_workers",
  "endpoint_id",
  "endpoint_name",
  "gpu_ram",
  "launch_args",
  "min_load",
  "search_params",
  "target_util",
  "template_hash",
  "template_id",
  "test_workers",
];

export const area: ClientArea = {
  property: "workerGroups",
  Api: WorkerGroupsApi,
  description: "Serverless worker groups.",
  documents: {
    "GET /api/v0/workergroups/": { by: documentedBy.all, body: ["client_id"] },
    "POST /api/v0/workergroups/": {
      by: documentedBy.all,
      body: [
        ...workerGroupFields,
        "autoscaler_instance",
        "docker_login_pass",
        "docker_login_repo",
        "docker_login_user",
        "max_workers",
        "min_cold_load",
      ],
    },
    "DELETE /api/v0/workergroups/{id}/": {
      by: documentedBy.all,
      body: ["autojob_id", "client_id"],
    },
    "PUT /api/v0/workergroups/{id}/": {
      by: documentedBy.all,
      body: [...workerGroupFields, "autojob_id"],
    },
  },
};
