import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check, pathId } from "../shared/http";
import type { Endpoint } from "./serverless-state";
import { ScalingFields, describeEndpoint, given, newApiKey } from "./serverless-wire";

const EndpointBodySchema = z.object({
  ...ScalingFields,
  min_cold_load: z.number().nonnegative("must be 0 or more").nullish(),
  endpoint_name: z.string().min(1, "must not be empty").max(256).nullish(),
  endptjob_id: z.int().nullish(),
  endpoint_state: z.string().nullish(),
});

/** The description's defaults for a new endpoint. */
const DEFAULTS = {
  name: "default-endpoint",
  minLoad: 10,
  minColdLoad: 0,
  targetUtil: 0.9,
  coldMult: 2.5,
  coldWorkers: 5,
  maxWorkers: 20,
};

/** Serverless endpoints (the service's "endptjobs"). */
export function registerEndpointRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, serverless } = ctx;
  // Endpoints rent instances (billed): the instance categories.
  const read = { category: "instance_read" } as const;
  const write = { category: "instance_write" } as const;
  const find = (params: unknown, msg: string): Endpoint => {
    const id = pathId(params);
    const endpoint = store.state.endpoints.find((e) => e.id === id);
    if (!endpoint) throw new ApiError(400, "invalid_args", msg);
    return endpoint;
  };

  app.post("/api/v0/endptjobs/", { config: write }, async (request) => {
    const input = check(EndpointBodySchema, request.body ?? {}, "invalid_args");
    const endpoint = store.mutate((state) => {
      const created: Endpoint = {
        id: state.nextIds.endpoint++,
        name: given(input.endpoint_name, DEFAULTS.name),
        minLoad: given(input.min_load, DEFAULTS.minLoad),
        minColdLoad: given(input.min_cold_load, DEFAULTS.minColdLoad),
        targetUtil: given(input.target_util, DEFAULTS.targetUtil),
        coldMult: given(input.cold_mult, DEFAULTS.coldMult),
        coldWorkers: given(input.cold_workers, DEFAULTS.coldWorkers),
        maxWorkers: given(input.max_workers, DEFAULTS.maxWorkers),
        createdAtMs: ctx.clock.nowMs(),
        apiKey: newApiKey(),
      };
      state.endpoints.push(created);
      return created;
    });
    return { success: true, result: endpoint.id };
  });

  // With none at all the service answers 400, as its description's example shows.
  app.get("/api/v0/endptjobs/", { config: read }, async () => {
    const { endpoints, user } = store.state;
    if (endpoints.length === 0) {
      throw new ApiError(400, "invalid_args", "No endpoints for user found");
    }
    return { success: true, results: endpoints.map((e) => describeEndpoint(e, user.id)) };
  });

  app.put("/api/v0/endptjobs/:id/", { config: write }, async (request) => {
    const endpoint = find(request.params, "Endpointgroup not found for user");
    const input = check(EndpointBodySchema, request.body ?? {}, "invalid_args");
    store.mutate((state) => {
      endpoint.name = given(input.endpoint_name, endpoint.name);
      endpoint.minLoad = given(input.min_load, endpoint.minLoad);
      endpoint.minColdLoad = given(input.min_cold_load, endpoint.minColdLoad);
      endpoint.targetUtil = given(input.target_util, endpoint.targetUtil);
      endpoint.coldMult = given(input.cold_mult, endpoint.coldMult);
      endpoint.coldWorkers = given(input.cold_workers, endpoint.coldWorkers);
      endpoint.maxWorkers = given(input.max_workers, endpoint.maxWorkers);
      serverless.reconcile(state);
    });
    return { success: true };
  });

  // Its worker groups go too; their workers are released (gone after the release delay).
  app.delete("/api/v0/endptjobs/:id/", { config: write }, async (request) => {
    const endpoint = find(request.params, "Routegroup not found for user");
    const outcome = store.mutate((state) => {
      const groups = state.workerGroups.filter((g) => g.endpointId === endpoint.id);
      const released = groups.map((g) => serverless.releaseGroup(state, g.id));
      state.workerGroups = state.workerGroups.filter((g) => g.endpointId !== endpoint.id);
      state.endpoints = state.endpoints.filter((e) => e !== endpoint);
      return {
        deleted: released.flatMap((r) => r.deleted),
        failed: released.flatMap((r) => r.failed),
      };
    });
    return {
      success: true,
      deleted_workers: outcome.deleted,
      failed_workers: outcome.failed,
      msg: `Deleted endpoint job and ${String(outcome.deleted.length)} workers`,
    };
  });
}
