import { randomBytes } from "node:crypto";
import { z } from "zod";
import { ApiError } from "../shared/http";
import type { State } from "../shared/state";
import type { Endpoint, WorkerGroup } from "./serverless-state";

/**
 * Scaling parameters as the endpoint and worker-group bodies carry them. The official client
 * sends null for every option it was not given: null means "not given" (the default at create,
 * unchanged at update). It also sends fields the description does not list (client_id,
 * endptjob_id, autojob_id, autoscaler_instance, endpoint_state): accepted and ignored.
 */
export const ScalingFields = {
  client_id: z.string().nullish(),
  autoscaler_instance: z.string().nullish(),
  min_load: z.number().nonnegative("must be 0 or more (perf units/s)").nullish(),
  target_util: z
    .number()
    .gt(0, "must be a fraction above 0")
    .max(1, "must be a fraction, at most 1.0")
    .nullish(),
  cold_mult: z.number().nonnegative("must be 0 or more").nullish(),
  cold_workers: z.int("must be a whole number of workers").nonnegative().nullish(),
  max_workers: z.int("must be a whole number of workers").nonnegative().nullish(),
};

/** A credential shaped like the service's keys (the rows' `api_key`). */
export function newApiKey(): string {
  return randomBytes(32).toString("hex");
}

export function isoOf(ms: number): string {
  return new Date(ms).toISOString();
}

/** Null or undefined keeps `current`. */
export function given<T>(value: T | null | undefined, current: T): T {
  return value ?? current;
}

export function describeEndpoint(endpoint: Endpoint, userId: number) {
  return {
    id: endpoint.id,
    endpoint_name: endpoint.name,
    min_load: endpoint.minLoad,
    min_cold_load: endpoint.minColdLoad,
    target_util: endpoint.targetUtil,
    cold_mult: endpoint.coldMult,
    cold_workers: endpoint.coldWorkers,
    max_workers: endpoint.maxWorkers,
    endpoint_state: "active",
    api_key: endpoint.apiKey,
    user_id: userId,
    created_at: isoOf(endpoint.createdAtMs),
  };
}

export function describeWorkerGroup(group: WorkerGroup, state: State) {
  const endpoint = state.endpoints.find((e) => e.id === group.endpointId);
  return {
    id: group.id,
    endpoint_id: group.endpointId,
    endpoint_name: endpoint?.name ?? null,
    template_hash: group.templateHash,
    template_id: group.templateId,
    search_params: group.searchParams,
    search_query: group.searchQuery,
    launch_args: group.launchArgs,
    min_load: group.minLoad,
    target_util: group.targetUtil,
    cold_mult: group.coldMult,
    cold_workers: group.coldWorkers,
    max_workers: group.maxWorkers,
    test_workers: group.testWorkers,
    gpu_ram: group.gpuRam,
    api_key: group.apiKey,
    user_id: state.user.id,
    created_at: isoOf(group.createdAtMs),
  };
}

/** The endpoint a worker group names, by id or else by name. */
export function endpointFor(
  state: State,
  by: { endpoint_id?: number | null; endpoint_name?: string | null },
): Endpoint {
  const endpoint =
    by.endpoint_id != null
      ? state.endpoints.find((e) => e.id === by.endpoint_id)
      : by.endpoint_name != null
        ? state.endpoints.find((e) => e.name === by.endpoint_name)
        : undefined;
  if (!endpoint) {
    throw new ApiError(
      400,
      "invalid_args",
      "Please assign your workergroup to a valid endpoint identifier",
    );
  }
  return endpoint;
}
