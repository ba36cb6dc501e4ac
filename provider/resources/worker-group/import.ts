import { isDeepStrictEqual } from "node:util";
import type { InstanceOfferQuery, WorkerGroup as WorkerGroupWire } from "../../client";
import { instanceOfferQueryOfFilters } from "../../client/offer-filters";
import type { Run } from "../../run/run";
import { searchQueryOf } from "./diff";
import { workerGroupInputsSchema, type WorkerGroupInputs, type WorkerGroupOutputs } from "./inputs";

// `pulumi import` of a worker group (Read without recorded properties), by its id.

const isQueryObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The offer query whose `search_params` are the group's: its own filters (those that are not
 * the default market filters) in the query's names and units, else every filter. Undefined when
 * the group searches with the defaults alone; the caller checks the result compiles back to the
 * group's query.
 */
function offerQueryOf(searchQuery: Record<string, unknown>): InstanceOfferQuery | undefined {
  const defaults = searchQueryOf(undefined);
  if (isDeepStrictEqual(searchQuery, defaults)) return undefined;
  const own = Object.fromEntries(
    Object.entries(searchQuery).filter(([key, value]) => !isDeepStrictEqual(defaults[key], value)),
  );
  const fromOwn = instanceOfferQueryOfFilters(own).query;
  if (isDeepStrictEqual(searchQueryOf(fromOwn), searchQuery)) return fromOwn;
  return instanceOfferQueryOfFilters(searchQuery).query;
}

/** A field's default, from the zod definition (never written twice). */
const defaultOf = <Field extends keyof typeof workerGroupInputsSchema.shape>(
  field: Field,
): WorkerGroupInputs[Field] =>
  workerGroupInputsSchema.shape[field].parse(undefined) as WorkerGroupInputs[Field];

const numberOr = (value: number | null | undefined, fallback: number): number =>
  typeof value === "number" ? value : fallback;

/** The inputs a program declares for the group as the service shows it. */
export function importedInputs(group: WorkerGroupWire): WorkerGroupInputs {
  const template =
    typeof group.template_hash === "string" && group.template_hash !== ""
      ? { templateHashId: group.template_hash }
      : typeof group.template_id === "number"
        ? { templateId: group.template_id }
        : {};
  const searchQuery = isQueryObject(group.search_query) ? group.search_query : {};
  const offerQuery = offerQueryOf(searchQuery);
  return {
    endpointId: group.endpoint_id ?? 0,
    ...template,
    ...(offerQuery === undefined ? {} : { offerQuery }),
    ...(group.launch_args ? { launchArgs: group.launch_args } : {}),
    minLoad: numberOr(group.min_load, defaultOf("minLoad")),
    targetUtil: numberOr(group.target_util, defaultOf("targetUtil")),
    coldMult: numberOr(group.cold_mult, defaultOf("coldMult")),
    // Shown by some services only: recorded when shown (a change of either replaces the group).
    ...(typeof group.cold_workers === "number" ? { coldWorkers: group.cold_workers } : {}),
    ...(typeof group.max_workers === "number" ? { maxWorkers: group.max_workers } : {}),
    testWorkers: numberOr(group.test_workers, defaultOf("testWorkers")),
    gpuRamGb: numberOr(group.gpu_ram, defaultOf("gpuRamGb")),
    deleteTimeoutSeconds: defaultOf("deleteTimeoutSeconds"),
  };
}

export async function importedWorkerGroup(
  run: Run,
  id: string,
): Promise<{ id?: string; props?: WorkerGroupOutputs; inputs?: WorkerGroupInputs }> {
  const group = await run.client.workerGroups.find(Number(id));
  if (!group) return {};
  if (typeof group.endpoint_id !== "number") {
    throw new Error(
      `worker group ${group.id} cannot be imported: the service shows no endpoint for it`,
    );
  }
  const inputs = importedInputs(group);
  const searchQuery = isQueryObject(group.search_query)
    ? group.search_query
    : searchQueryOf(inputs.offerQuery);
  return {
    id: String(group.id),
    props: { ...inputs, workerGroupId: group.id, searchQuery },
    inputs,
  };
}
