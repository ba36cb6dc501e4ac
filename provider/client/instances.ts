import { z } from "zod";
import { deleteUnlessGone } from "./errors";
import type { Transport } from "./transport";

/** Values of `actual_status`; null while provisioning. */
export const deadEndStatuses = ["exited", "unknown", "offline"] as const;

export const instanceSchema = z.object({
  id: z.number().int(),
  actual_status: z.string().nullable().optional(),
  intended_status: z.string().nullable().optional(),
  cur_state: z.string().nullable().optional(),
  status_msg: z.string().nullable().optional(),
  ssh_host: z.string().nullable().optional(),
  ssh_port: z.number().int().nullable().optional(),
  public_ipaddr: z.string().nullable().optional(),
  label: z.string().nullable().optional(),
  image_uuid: z.string().nullable().optional(),
  onstart: z.string().nullable().optional(),
  extra_env: z.unknown().optional(),
  /** GB */
  disk_space: z.number().nullable().optional(),
  /** MB in the REST API. */
  gpu_ram: z.number().nullable().optional(),
  gpu_name: z.string().nullable().optional(),
  num_gpus: z.number().nullable().optional(),
  runtype: z.string().nullable().optional(),
  next_state: z.string().nullable().optional(),
  machine_id: z.number().int().nullable().optional(),
  /** The ask (offer) the instance was rented from. */
  bundle_id: z.number().int().nullable().optional(),
  /** Epoch seconds. */
  start_date: z.number().nullable().optional(),
  dph_total: z.number().nullable().optional(),
  geolocation: z.string().nullable().optional(),
});
export type Instance = z.infer<typeof instanceSchema>;

/** The states PUT /api/v0/instances/{id}/ moves an instance to. */
export const instanceStateSchema = z.enum(["stopped", "running"]);
export type InstanceState = z.infer<typeof instanceStateSchema>;

const filterValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** Filters and order of GET /api/v1/instances/ (`select_filters`, `order_by`). */
export const instanceListQuerySchema = z.object({
  /** Column → {operator: value}; only columns stored on the contract (not dph_total, num_gpus). */
  selectFilters: z
    .record(
      z.string(),
      z.partialRecord(
        z.enum(["eq", "neq", "gt", "gte", "lt", "lte", "in", "notin"]),
        z.union([filterValueSchema, z.array(filterValueSchema)]),
      ),
    )
    .optional(),
  /** id is added as the last tie-breaker by the service. */
  orderBy: z.array(z.object({ col: z.string(), dir: z.enum(["asc", "desc"]) })).optional(),
});
export type InstanceListQuery = z.infer<typeof instanceListQuerySchema>;

// Per-id results are the emulator's; a 200 with success false (some id unknown) is an error.
const bulkResponseSchema = z.object({ success: z.boolean(), msg: z.string().optional() });

/** One distinct combination of the values the instance list can be filtered on. */
const instanceFilterValuesSchema = z.object({
  actual_status: z.string().nullable().optional(),
  verification: z.string().nullable().optional(),
  gpu_name: z.string().nullable().optional(),
});
export type InstanceFilterValues = z.infer<typeof instanceFilterValuesSchema>;
const instanceFiltersSchema = z.object({ filters: z.array(instanceFilterValuesSchema) });

// The service lists an instance's environment as [name, value] pairs; accept a map as well.
const extraEnvSchema = z.union([
  z.array(z.tuple([z.string(), z.string()])),
  z.record(z.string(), z.string()).transform((env) => Object.entries(env)),
]);

/** An instance's environment variables as a map (empty when the service sent none). */
export function environmentOf(instance: Instance): Record<string, string> {
  const parsed = extraEnvSchema.safeParse(instance.extra_env);
  return parsed.success ? Object.fromEntries(parsed.data) : {};
}

const showInstanceSchema = z.object({ instances: instanceSchema.nullable() });
const listInstancesSchema = z.object({
  instances: z.array(instanceSchema),
  next_token: z.union([z.string(), z.number()]).nullable().optional(),
  total_instances: z.number().int().optional(),
});
const createInstanceSchema = z.object({ success: z.boolean(), new_contract: z.number().int() });
const successSchema = z.object({ success: z.boolean() });

export const instanceOfferSchema = z.object({
  id: z.number().int(),
  gpu_name: z.string(),
  num_gpus: z.number(),
  /** MB */
  gpu_ram: z.number(),
  dph_total: z.number(),
  /** GB: the most disk an instance rented from this ask can have. */
  disk_space: z.number().optional(),
});
export type InstanceOffer = z.infer<typeof instanceOfferSchema>;
const instanceOffersSchema = z.object({ offers: z.array(instanceOfferSchema) });

/** The body of a create-instance request (wire names; `client_id` is added). */
export const createInstanceRequestSchema = z.object({
  image: z.string(),
  /** GB, at least 8. */
  disk: z.number(),
  onstart: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  label: z.string().optional(),
  runtype: z.string().optional(),
  /** A bid, $/hour. */
  price: z.number().optional(),
  image_login: z.string().optional(),
});
export type CreateInstanceRequest = z.infer<typeof createInstanceRequestSchema>;
const createInstanceBodySchema = createInstanceRequestSchema.extend({
  client_id: z.literal("me"),
});
const relabelBodySchema = z.object({ label: z.string() });
const setStateBodySchema = z.object({ state: instanceStateSchema });
const setStatesBodySchema = z.object({
  ids: z.array(z.number().int()).min(1),
  state: instanceStateSchema,
});
const destroyManyBodySchema = z.object({ instance_ids: z.array(z.number().int()).min(1) });

export class InstancesApi {
  constructor(private readonly transport: Transport) {}

  /**
   * Rents an instance from an ask. Never retried once it may have reached the service: a
   * failure with `mayHaveCreated` means an instance may exist and must be looked for.
   */
  async create(
    askId: number,
    request: CreateInstanceRequest,
    signal?: AbortSignal,
  ): Promise<number> {
    const body = await this.transport.request({
      method: "POST",
      path: `/api/v0/asks/${askId}/`,
      body: { client_id: "me", ...request },
      bodySchema: createInstanceBodySchema,
      response: createInstanceSchema,
      creates: true,
      signal,
    });
    return body.new_contract;
  }

  /** The instance, or undefined when it does not exist. */
  async show(instanceId: number, signal?: AbortSignal): Promise<Instance | undefined> {
    const body = await this.transport.request({
      method: "GET",
      path: `/api/v0/instances/${instanceId}/`,
      query: { owner: "me" },
      response: showInstanceSchema,
      signal,
    });
    return body.instances ?? undefined;
  }

  /**
   * Every instance of the account (or those matching `query`), following the pages (25 a
   * page): each page's `next_token` goes back as `after_token` until it is null.
   */
  async list(query: InstanceListQuery = {}, signal?: AbortSignal): Promise<Instance[]> {
    const { selectFilters, orderBy } = instanceListQuerySchema.parse(query);
    const params: Record<string, string> = {};
    if (selectFilters !== undefined) params["select_filters"] = JSON.stringify(selectFilters);
    if (orderBy !== undefined) params["order_by"] = JSON.stringify(orderBy);
    const all: Instance[] = [];
    let afterToken: string | undefined;
    do {
      const body = await this.transport.request({
        method: "GET",
        path: "/api/v1/instances/",
        query: afterToken === undefined ? params : { ...params, after_token: afterToken },
        response: listInstancesSchema,
        signal,
      });
      all.push(...body.instances);
      afterToken =
        body.next_token === null || body.next_token === undefined || body.instances.length === 0
          ? undefined
          : String(body.next_token);
    } while (afterToken !== undefined);
    return all;
  }

  /** The distinct (actual_status, verification, gpu_name) of the account's instances. */
  async filterValues(signal?: AbortSignal): Promise<InstanceFilterValues[]> {
    const body = await this.transport.request({
      method: "GET",
      path: "/api/v0/instances/filters/",
      response: instanceFiltersSchema,
      signal,
    });
    return body.filters;
  }

  /** Stops (`"stopped"`) or starts (`"running"`) an instance; its disk is kept while stopped. */
  async setState(instanceId: number, state: InstanceState, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "PUT",
      path: `/api/v0/instances/${instanceId}/`,
      body: { state },
      bodySchema: setStateBodySchema,
      response: successSchema,
      signal,
    });
  }

  /**
   * Stops or starts several instances. When some id is unknown it fails (a GpuCloudError whose
   * message names those ids); the others were changed all the same.
   */
  async setStates(
    instanceIds: number[],
    state: InstanceState,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.transport.request({
      method: "PUT",
      path: "/api/v0/instances/",
      body: { ids: instanceIds, state },
      bodySchema: setStatesBodySchema,
      response: bulkResponseSchema,
      signal,
    });
  }

  /**
   * Destroys several instances. When some id is unknown it fails (a GpuCloudError whose message
   * names those ids); the others were destroyed all the same.
   */
  async destroyMany(instanceIds: number[], signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "DELETE",
      path: "/api/v0/instances/",
      body: { instance_ids: instanceIds },
      bodySchema: destroyManyBodySchema,
      response: bulkResponseSchema,
      signal,
    });
  }

  /** Destroys an instance; one that is already gone counts as destroyed. */
  async destroy(instanceId: number, signal?: AbortSignal): Promise<void> {
    await deleteUnlessGone(
      this.transport.request({
        method: "DELETE",
        path: `/api/v0/instances/${instanceId}/`,
        response: successSchema,
        signal,
      }),
    );
  }

  async relabel(instanceId: number, label: string, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: "PUT",
      path: `/api/v0/instances/${instanceId}/`,
      body: { label },
      bodySchema: relabelBodySchema,
      response: successSchema,
      signal,
    });
  }

  /** Searches instance offers (asks); `{}` lists them all. */
  async searchOffers(
    query: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<InstanceOffer[]> {
    const body = await this.transport.request({
      method: "POST",
      path: "/api/v0/bundles/",
      body: query,
      response: instanceOffersSchema,
      signal,
    });
    return body.offers;
  }
}
