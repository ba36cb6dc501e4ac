import { isDeepStrictEqual } from "node:util";
import type {
  WorkerGroup as WorkerGroupWire,
  WorkerGroupFields,
  WorkerGroupUpdate,
} from "../../client";
import { searchQueryOf } from "./diff";
import type { WorkerGroupInputs, WorkerGroupOutputs } from "./inputs";

// ---- The mapping between the group's inputs and the service's fields ----------------------

export function templateOf(
  inputs: WorkerGroupInputs,
): Pick<WorkerGroupFields, "template_hash" | "template_id"> {
  return inputs.templateHashId !== undefined
    ? { template_hash: inputs.templateHashId }
    : { template_id: inputs.templateId };
}

export function updateOf(inputs: WorkerGroupInputs): WorkerGroupUpdate {
  return {
    endpoint_id: inputs.endpointId,
    ...templateOf(inputs),
    search_params: JSON.stringify(searchQueryOf(inputs.offerQuery)),
    // A removed value is cleared on the service.
    launch_args: inputs.launchArgs ?? "",
    min_load: inputs.minLoad,
    target_util: inputs.targetUtil,
    cold_mult: inputs.coldMult,
    test_workers: inputs.testWorkers,
    gpu_ram: inputs.gpuRamGb,
  };
}

export function createOf(inputs: WorkerGroupInputs): WorkerGroupFields {
  const { launch_args: launchArgs, ...fields } = updateOf(inputs);
  return {
    ...fields,
    endpoint_id: inputs.endpointId,
    ...(launchArgs ? { launch_args: launchArgs } : {}),
    ...(inputs.coldWorkers === undefined ? {} : { cold_workers: inputs.coldWorkers }),
    ...(inputs.maxWorkers === undefined ? {} : { max_workers: inputs.maxWorkers }),
  };
}

const isQueryObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The recorded outputs with what the service shows of the group (the fields its list gives). */
export function withService(props: WorkerGroupOutputs, group: WorkerGroupWire): WorkerGroupOutputs {
  const outs: WorkerGroupOutputs = { ...props };
  if (typeof group.endpoint_id === "number") outs.endpointId = group.endpoint_id;
  if (props.templateHashId !== undefined && group.template_hash) {
    outs.templateHashId = group.template_hash;
  }
  if (props.templateId !== undefined && typeof group.template_id === "number") {
    outs.templateId = group.template_id;
  }
  if (isQueryObject(group.search_query)) outs.searchQuery = group.search_query;
  const launchArgs = group.launch_args ?? "";
  if (launchArgs !== (props.launchArgs ?? "")) outs.launchArgs = launchArgs;
  if (typeof group.min_load === "number") outs.minLoad = group.min_load;
  if (typeof group.target_util === "number") outs.targetUtil = group.target_util;
  if (typeof group.cold_mult === "number") outs.coldMult = group.cold_mult;
  if (typeof group.test_workers === "number") outs.testWorkers = group.test_workers;
  if (typeof group.gpu_ram === "number") outs.gpuRamGb = group.gpu_ram;
  // Shown by some services only; compared only when the program sets them.
  if (props.coldWorkers !== undefined && typeof group.cold_workers === "number") {
    outs.coldWorkers = group.cold_workers;
  }
  if (props.maxWorkers !== undefined && typeof group.max_workers === "number") {
    outs.maxWorkers = group.max_workers;
  }
  return outs;
}

/** The inputs of outputs: everything but the outputs of the service. */
export function inputsOf(outs: WorkerGroupOutputs): WorkerGroupInputs {
  const { workerGroupId: _id, searchQuery: _query, ...inputs } = outs;
  return inputs;
}

/** The group was created as asked: its endpoint, template and query are those sent. */
export function isAsSent(group: WorkerGroupWire, fields: WorkerGroupFields): boolean {
  const template =
    fields.template_hash !== undefined
      ? group.template_hash === fields.template_hash
      : group.template_id === fields.template_id;
  return (
    group.endpoint_id === fields.endpoint_id &&
    template &&
    isDeepStrictEqual(group.search_query, JSON.parse(fields.search_params ?? "{}"))
  );
}
