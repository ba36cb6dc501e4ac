import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { EmulatorContext } from "../shared/context";
import { ApiError, check, pathId } from "../shared/http";
import type { State } from "../shared/state";
import { findVisibleTemplate } from "../templates/template-launch";
import { parseSearchParams } from "./search-params";
import type { WorkerGroup } from "./serverless-state";
import {
  ScalingFields,
  describeWorkerGroup,
  endpointFor,
  given,
  newApiKey,
} from "./serverless-wire";

const GroupBodySchema = z.object({
  ...ScalingFields,
  autojob_id: z.int().nullish(),
  endpoint_id: z.int().positive().nullish(),
  endpoint_name: z.string().nullish(),
  template_hash: z.string().min(1).nullish(),
  template_id: z.int().positive().nullish(),
  /** A JSON-encoded query object or the client's `key=value` words; an object is taken too. */
  search_params: z
    .union([z.string(), z.record(z.string(), z.unknown())], "must be a string")
    .transform((value) => (typeof value === "string" ? value : JSON.stringify(value)))
    .nullish(),
  launch_args: z.string().nullish(),
  test_workers: z.int("must be a whole number of workers").nonnegative().nullish(),
  /** GB */
  gpu_ram: z.number().nonnegative("must be 0 or more GB").nullish(),
});
type GroupBody = z.infer<typeof GroupBodySchema>;

/** The description's defaults for a new worker group; cold and max workers default to the endpoint's. */
const DEFAULTS = { minLoad: 1, targetUtil: 0.9, coldMult: 3, testWorkers: 3, gpuRam: 24 };

/** The template a body names (hash first), or undefined when it names none. */
function templateOf(state: State, input: GroupBody) {
  if (input.template_hash == null && input.template_id == null) return undefined;
  const template = findVisibleTemplate(state, {
    hashId: input.template_hash,
    id: input.template_id,
  });
  if (!template) {
    const field = input.template_hash != null ? "template_hash" : "template_id";
    throw new ApiError(400, "invalid_args", `${field}: no such template`);
  }
  return template;
}

/**
 * Worker groups (the service's "autojobs"). The official client still calls them at
 * /api/v0/autojobs/: both paths are one endpoint.
 */
export function registerWorkerGroupRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { store, serverless } = ctx;
  const read = { category: "instance_read" } as const;
  const write = { category: "instance_write" } as const;

  for (const base of ["/api/v0/workergroups", "/api/v0/autojobs"]) {
    app.post(`${base}/`, { config: write }, async (request) => {
      const input = check(GroupBodySchema, request.body ?? {}, "invalid_args");
      const endpoint = endpointFor(store.state, input);
      const template = templateOf(store.state, input);
      const searchQuery = parseSearchParams(input.search_params);
      const group = store.mutate((state) => {
        const created: WorkerGroup = {
          id: state.nextIds.workerGroup++,
          endpointId: endpoint.id,
          templateHash: template?.hashId ?? null,
          templateId: template?.id ?? null,
          searchParams: input.search_params ?? JSON.stringify(searchQuery),
          searchQuery,
          launchArgs: input.launch_args ?? null,
          minLoad: given(input.min_load, DEFAULTS.minLoad),
          targetUtil: given(input.target_util, DEFAULTS.targetUtil),
          coldMult: given(input.cold_mult, DEFAULTS.coldMult),
          coldWorkers: input.cold_workers ?? null,
          maxWorkers: input.max_workers ?? null,
          testWorkers: given(input.test_workers, DEFAULTS.testWorkers),
          gpuRam: given(input.gpu_ram, DEFAULTS.gpuRam),
          createdAtMs: ctx.clock.nowMs(),
          apiKey: newApiKey(),
        };
        state.workerGroups.push(created);
        serverless.reconcile(state);
        return created;
      });
      return { success: true, id: group.id };
    });

    app.get(`${base}/`, { config: read }, async () => {
      const { state } = store;
      return {
        success: true,
        results: state.workerGroups.map((g) => describeWorkerGroup(g, state)),
      };
    });

    app.put(`${base}/:id/`, { config: write }, async (request) => {
      const group = store.state.workerGroups.find((g) => g.id === pathId(request.params));
      if (!group) throw new ApiError(400, "invalid_args", "Workgroup not found for user");
      const input = check(GroupBodySchema, request.body ?? {}, "invalid_args");
      const named = input.endpoint_id != null || input.endpoint_name != null;
      const endpoint = named ? endpointFor(store.state, input) : undefined;
      const template = templateOf(store.state, input);
      const searchQuery =
        input.search_params != null ? parseSearchParams(input.search_params) : undefined;
      store.mutate((state) => {
        group.endpointId = endpoint?.id ?? group.endpointId;
        if (template) {
          group.templateHash = template.hashId;
          group.templateId = template.id;
        }
        if (searchQuery && input.search_params != null) {
          group.searchParams = input.search_params;
          group.searchQuery = searchQuery;
        }
        group.launchArgs = given(input.launch_args, group.launchArgs);
        group.minLoad = given(input.min_load, group.minLoad);
        group.targetUtil = given(input.target_util, group.targetUtil);
        group.coldMult = given(input.cold_mult, group.coldMult);
        group.coldWorkers = given(input.cold_workers, group.coldWorkers);
        group.maxWorkers = given(input.max_workers, group.maxWorkers);
        group.testWorkers = given(input.test_workers, group.testWorkers);
        group.gpuRam = given(input.gpu_ram, group.gpuRam);
        serverless.reconcile(state);
      });
      return { success: true };
    });

    // Its workers are released: gone from the account after the release delay.
    app.delete(`${base}/:id/`, { config: write }, async (request, reply) => {
      const id = pathId(request.params);
      if (id === undefined) throw new ApiError(400, "invalid_args", "Invalid autojob ID");
      const group = store.state.workerGroups.find((g) => g.id === id);
      if (!group) {
        return reply.code(404).send({
          success: false,
          error: "no_such_workergroup",
          msg: "No workergroup by that id is available.",
          id,
        });
      }
      const outcome = store.mutate((state) => {
        const released = serverless.releaseGroup(state, group.id);
        state.workerGroups = state.workerGroups.filter((g) => g !== group);
        return released;
      });
      return {
        success: true,
        deleted_workers: outcome.deleted,
        failed_workers: outcome.failed,
        msg: `Deleted workergroup and ${String(outcome.deleted.length)} workers`,
      };
    });
  }
}
