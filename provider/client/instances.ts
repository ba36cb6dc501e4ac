import { z } from "zod";
import { deleteUnlessGone, GpuCloudError } from "./errors";
import { type Instance, instanceSchema } from "./instance-rows";
import { instanceOfferWireSchema } from "./offer-schemas";
import { isRetriedStatus } from "./retry";
import { SharedList } from "./shared-list";
import {
  changeBidBodySchema,
  type ContainerRebuild,
  containerRebuildBodySchema,
  type CreateInstanceRequest,
  createInstanceBodySchema,
  destroyManyBodySchema,
  instanceDocuments,
  type InstanceState,
  prepayBodySchema,
  relabelBodySchema,
  setStateBodySchema,
  setStatesBodySchema,
} from "./instance-requests";
import { StatusRounds } from "./status-rounds";
import type { Transport } from "./transport";
import type { ClientArea } from "./client-area";

const logsReplySchema = z.object({ result_url: z.string() });

/** The states PUT /api/v0/instances/{id}/ moves an instance to. */

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

const showInstanceSchema = z.object({ instances: instanceSchema.nullable() });
const listInstancesSchema = z.object({
  instances: z.array(instanceSchema),
  next_token: z.union([z.string(), z.number()]).nullable().optional(),
  total_instances: z.number().int().optional(),
});
const createInstanceSchema = z.object({ success: z.boolean(), new_contract: z.number().int() });
const successSchema = z.object({ success: z.boolean() });
const prepaidSchema = z.object({
  success: z.boolean(),
  /** Months the deposit covers (the OpenAPI's `timescale`). */
  timescale: z.number(),
  /** The discount it buys, 0 to 1. */
  discount_rate: z.number(),
});

/** What a prepay bought: the months the instance's whole deposit covers, and its discount. */
export interface Prepaid {
  readonly months: number;
  /** 0 to 1, of the instance's price. */
  readonly discountRate: number;
}

const instanceOffersSchema = z.object({ offers: z.array(instanceOfferWireSchema) });
export type InstanceOfferRow = z.infer<typeof instanceOfferWireSchema>;

/** The most instances a page of GET /api/v1/instances/ holds. */
const instancesPerPage = 25;

/**
 * The first page of the account's instance list, and its second: read once, when first asked,
 * and only when it is the last (undefined otherwise).
 */
interface ListHead {
  readonly firstPage: Map<number, Instance>;
  readonly secondPage: () => Promise<Map<number, Instance>> | undefined;
}

/** The list's query parameters (wire names) for `query`, checked once for all its pages. */
function listParams(query: InstanceListQuery): Record<string, string> {
  const { selectFilters, orderBy } = instanceListQuerySchema.parse(query);
  const params: Record<string, string> = {};
  if (selectFilters !== undefined) params["select_filters"] = JSON.stringify(selectFilters);
  if (orderBy !== undefined) params["order_by"] = JSON.stringify(orderBy);
  return params;
}

const byId = (instances: Instance[]) => new Map(instances.map((i) => [i.id, i]));

/**
 * A list's failure that a show by id may not meet (the list refused or failed as a request):
 * undefined. The service not answering, after the transport's retries (no answer, or a status
 * it retries: 429, 502, 503, 504), is thrown: a show would wait through the same retries.
 */
function unlessUnavailable(error: unknown): undefined {
  if (
    error instanceof GpuCloudError &&
    (error.network !== undefined || (error.status !== undefined && isRetriedStatus(error.status)))
  ) {
    throw error;
  }
  return undefined;
}

export class InstancesApi {
  // A refresh reads every instance of a stack at about the same moment: those reads share the
  // head of the account's list (see showAmongMany). Any write here ends the sharing (SharedList).
  private readonly listHead: SharedList<ListHead>;
  // Instances waited on (booting, stopping, being destroyed) share their status reads.
  private readonly statusRounds = new StatusRounds<Instance>(
    (ids) => this.list({ selectFilters: { id: { in: ids } } }),
    (id) => this.show(id),
  );

  constructor(private readonly transport: Transport) {
    this.listHead = new SharedList(async (signal) => {
      const { instances, nextToken, total } = await this.listPage({}, undefined, signal);
      let secondPage: Promise<Map<number, Instance>> | undefined;
      const secondPageIsLast =
        nextToken !== undefined && total !== undefined && total <= 2 * instancesPerPage;
      return {
        firstPage: byId(instances),
        secondPage: () => {
          if (!secondPageIsLast) return undefined;
          secondPage ??= this.listPage({}, nextToken).then((page) => byId(page.instances));
          return secondPage;
        },
      };
    });
  }

  /**
   * Rents an instance from an ask. Never retried once it may have reached the service: a
   * failure with `mayHaveCreated` means an instance may exist and must be looked for.
   */
  async create(
    askId: number,
    request: CreateInstanceRequest,
    signal?: AbortSignal,
    /** Stops the create only while it waits to be sent (see RequestSpec.waitSignal). */
    waitSignal?: AbortSignal,
  ): Promise<number> {
    const body = await this.listHead.write(() =>
      this.transport.request({
        // PUT, as the service's operation, its guides and its official client (not the POST of
        // the specification's one-line summary).
        method: "PUT",
        path: `/api/v0/asks/${askId}/`,
        body: { client_id: "me", ...request },
        bodySchema: createInstanceBodySchema,
        response: createInstanceSchema,
        creates: true,
        signal,
        ...(waitSignal === undefined ? {} : { waitSignal }),
      }),
    );
    return body.new_contract;
  }

  /**
   * The instance, or undefined when it does not exist, for a caller that reads many instances
   * at about the same moment (a refresh). Reads within 2 s share one request for the first page
   * of the account's list (25 instances, the most a page holds); those not on it share the
   * second page when the account has no more than 50 instances, and otherwise show theirs by
   * id. A read of a listed instance waits for at most two requests in a row, as one that shows
   * by id after the first page does. A stack's refresh then sends one request in an account of
   * up to 25 instances, two up to 50, and beyond, one for each of its instances not on the
   * first page, and one more. A list the service refused or failed as a request (a 4xx, a 500)
   * leaves each read to show its instance by id, which reports its own failure. One it did not
   * answer once the transport's retries were spent (no answer, 429, 502, 503, 504) fails the
   * read with it: a show would wait through the same retries, for each instance in turn.
   */
  async showAmongMany(instanceId: number): Promise<Instance | undefined> {
    const head = await this.listHead.read().catch(unlessUnavailable);
    const listed =
      head?.firstPage.get(instanceId) ??
      (await head?.secondPage()?.catch(unlessUnavailable))?.get(instanceId);
    return listed ?? this.show(instanceId);
  }

  /**
   * The instance as the next shared status round that reads it finds it, or undefined when it
   * does not exist: for callers that wait on an instance (a boot, a stop, a destroy). The
   * instances waited on through this client are read by one list request a round (up to 25 of
   * them, status-rounds.ts says which when more wait), at a steady `intervalMs` (the shortest
   * any waiter asks for); only one the list does not hold is shown by id. The first round
   * comes at once. A waiter whose `signal` fires leaves the rounds (rejected with the signal's
   * reason): no round reads for it any more.
   */
  nextStatus(
    instanceId: number,
    intervalMs: number,
    signal?: AbortSignal,
  ): Promise<Instance | undefined> {
    return this.statusRounds.next(instanceId, intervalMs, signal);
  }

  /**
   * The instance's container logs (`vastai show logs`): the service uploads them and answers a
   * URL (`result_url`), read without the key. `filter` keeps the lines holding that text,
   * `tail` the last lines. Empty when the URL does not answer yet (the upload is under way).
   */
  async logs(
    instanceId: number,
    options: { filter?: string; tail?: number },
    signal?: AbortSignal,
  ): Promise<string> {
    const body = await this.transport.request({
      method: "PUT",
      path: `/api/v0/instances/request_logs/${instanceId}`,
      body: {
        ...(options.tail === undefined ? {} : { tail: String(options.tail) }),
        ...(options.filter === undefined ? {} : { filter: options.filter }),
      },
      response: logsReplySchema,
      signal,
    });
    // The key stays here: the URL is a presigned upload's, answered to anyone who has it.
    const answer = await fetch(body.result_url, {
      signal:
        signal === undefined
          ? AbortSignal.timeout(10_000)
          : AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
    });
    return answer.ok ? await answer.text() : "";
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
    const params = listParams(query);
    const all: Instance[] = [];
    let afterToken: string | undefined;
    do {
      const page = await this.listPage(params, afterToken, signal);
      all.push(...page.instances);
      afterToken = page.nextToken;
    } while (afterToken !== undefined);
    return all;
  }

  /** One page of the list; `nextToken` is undefined on the last. */
  private async listPage(
    params: Readonly<Record<string, string>>,
    afterToken: string | undefined,
    signal?: AbortSignal,
  ): Promise<{ instances: Instance[]; nextToken: string | undefined; total: number | undefined }> {
    const body = await this.transport.request({
      method: "GET",
      path: "/api/v1/instances/",
      query: afterToken === undefined ? params : { ...params, after_token: afterToken },
      response: listInstancesSchema,
      signal,
    });
    const last =
      body.next_token === null || body.next_token === undefined || body.instances.length === 0;
    return {
      instances: body.instances,
      nextToken: last ? undefined : String(body.next_token),
      total: body.total_instances,
    };
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
    await this.listHead.write(() =>
      this.transport.request({
        method: "PUT",
        path: `/api/v0/instances/${instanceId}/`,
        body: { state },
        bodySchema: setStateBodySchema,
        response: successSchema,
        signal,
      }),
    );
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
    await this.listHead.write(() =>
      this.transport.request({
        method: "PUT",
        path: "/api/v0/instances/",
        body: { ids: instanceIds, state },
        bodySchema: setStatesBodySchema,
        response: bulkResponseSchema,
        signal,
      }),
    );
  }

  /**
   * Destroys several instances. When some id is unknown it fails (a GpuCloudError whose message
   * names those ids); the others were destroyed all the same.
   */
  async destroyMany(instanceIds: number[], signal?: AbortSignal): Promise<void> {
    await this.listHead.write(() =>
      this.transport.request({
        method: "DELETE",
        path: "/api/v0/instances/",
        body: { instance_ids: instanceIds },
        bodySchema: destroyManyBodySchema,
        response: bulkResponseSchema,
        signal,
      }),
    );
  }

  /** Destroys an instance; one that is already gone counts as destroyed. */
  async destroy(instanceId: number, signal?: AbortSignal): Promise<void> {
    await this.listHead.write(() =>
      deleteUnlessGone(
        this.transport.request({
          method: "DELETE",
          path: `/api/v0/instances/${instanceId}/`,
          response: successSchema,
          signal,
        }),
      ),
    );
  }

  async relabel(instanceId: number, label: string, signal?: AbortSignal): Promise<void> {
    await this.listHead.write(() =>
      this.transport.request({
        method: "PUT",
        path: `/api/v0/instances/${instanceId}/`,
        body: { label },
        bodySchema: relabelBodySchema,
        response: successSchema,
        signal,
      }),
    );
  }

  /**
   * Changes an interruptible instance's bid, $/hour (0.001 to 32). Raising it above the bid
   * that took the instance's machine resumes it. The service refuses an on-demand instance
   * (400 invalid_args) and an unknown one (404 no_such_instance).
   */
  async changeBid(instanceId: number, dollarsPerHour: number, signal?: AbortSignal): Promise<void> {
    await this.listHead.write(() =>
      this.transport.request({
        method: "PUT",
        path: `/api/v0/instances/bid_price/${instanceId}/`,
        body: { client_id: "me", price: dollarsPerHour },
        bodySchema: changeBidBodySchema,
        response: successSchema,
        signal,
      }),
    );
  }

  /**
   * Deposits `dollars` of the account's credit into an on-demand instance, which makes it a
   * reserved one (`vastai prepay instance`): its price is discounted by how many months the
   * whole deposit covers, recalculated at every deposit. Money moves: never retried once it
   * may have reached the service (a failure with `mayHaveCreated` means it may have been taken;
   * the instance's `credit_balance` tells). The service refuses an unknown instance (400) and
   * an amount over the account's credit (411 "Insufficient credit").
   */
  async prepay(instanceId: number, dollars: number, signal?: AbortSignal): Promise<Prepaid> {
    const body = await this.listHead.write(() =>
      this.transport.request({
        method: "PUT",
        path: `/api/v0/instances/prepay/${instanceId}/`,
        body: { amount: dollars },
        bodySchema: prepayBodySchema,
        response: prepaidSchema,
        creates: true,
        signal,
      }),
    );
    return { months: body.timescale, discountRate: body.discount_rate };
  }

  /**
   * Rebuilds the container on its machine from new launch settings (`vastai update instance`):
   * the instance, machine and price stay; what the container wrote outside a volume is gone.
   */
  async rebuildContainer(id: number, settings: ContainerRebuild, signal?: AbortSignal) {
    const body = { id, ...settings };
    await this.containerWrite(`update_template/${id}/`, body, containerRebuildBodySchema, signal);
  }

  /** Stops and starts the container (its disk kept), keeping the instance's GPU priority. */
  async rebootContainer(id: number, signal?: AbortSignal): Promise<void> {
    await this.containerWrite(`reboot/${id}/`, {}, z.object({}), signal);
  }

  /** Recreates the container from a fresh pull of its image, on its machine. */
  async recycleContainer(id: number, signal?: AbortSignal): Promise<void> {
    await this.containerWrite(`recycle/${id}/`, {}, z.object({}), signal);
  }

  private async containerWrite<B>(
    path: string,
    body: B,
    bodySchema: z.ZodType<B>,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.listHead.write(() =>
      this.transport.request({
        method: "PUT",
        path: `/api/v0/instances/${path}`,
        ...{ body, bodySchema, response: successSchema, signal },
      }),
    );
  }

  /**
   * Searches instance offers with a raw query body in the service's wire form (`{}` lists them
   * all). Programs use the typed `GpuCloudClient.searchOffers`, which checks the query and the
   * answers.
   */
  async searchOffers(
    query: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<InstanceOfferRow[]> {
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

export const area: ClientArea = {
  property: "instances",
  Api: InstancesApi,
  documents: instanceDocuments,
};
