import { GpuCloudError } from "../../client";
import { readResult } from "../../shared/read-result";
import type { ResourceImplementation } from "../../shared/resource-implementation";
import { checkInputs, containsUnknown, fieldFailure } from "../../shared/validation";
import { deleteNamingWorkers, releaseWorkers } from "../../serverless/release";
import { coldWithinMax } from "../../serverless/scaling";
import { accountFailures, createGroup } from "./create";
import { choosingOptions, diffWorkerGroup, searchQueryOf, serviceChanges } from "./diff";
import { workerGroupInputsSchema, type WorkerGroupInputs, type WorkerGroupOutputs } from "./inputs";
import { importedWorkerGroup } from "./import";
import { recordWorkerGroupDiff, workerGroupPlanFailures } from "./pricing";
import { inputsOf, updateOf, withService } from "./wire";

/** Status reads while the group's workers are released, ms. */
const releaseIntervalMs = 2_000;

export const implementation: ResourceImplementation<WorkerGroupInputs, WorkerGroupOutputs> = {
  async check(run, olds, news) {
    const setup = await run.configurationFailures();
    const checked = checkInputs(workerGroupInputsSchema, news, { type: "WorkerGroup" });
    const failures = [...setup, ...checked.failures];
    const templates = (["templateHashId", "templateId"] as const).filter(
      (field) => news[field] !== undefined && news[field] !== null,
    );
    if (templates.length === 0) {
      failures.push(
        fieldFailure(
          "templateHashId",
          "required: the workers' template, by templateHashId (Template.hashId) or templateId " +
            "(Template.templateId)",
        ),
      );
    } else if (templates.length > 1) {
      failures.push(fieldFailure("templateHashId", "give templateHashId or templateId, not both"));
    }
    const query = news["offerQuery"];
    if (typeof query === "object" && query !== null && !Array.isArray(query)) {
      for (const option of choosingOptions) {
        if (query[option] === undefined) continue;
        failures.push(
          fieldFailure(
            `offerQuery.${option}`,
            "a worker group's query only filters offers (the service's engine chooses among " +
              "them and rents on demand): remove order, limit and type",
          ),
        );
      }
    }
    const { coldWorkers, maxWorkers } = checked.inputs;
    const tooMany =
      typeof coldWorkers === "number" && typeof maxWorkers === "number"
        ? coldWithinMax(coldWorkers, maxWorkers)
        : undefined;
    if (tooMany !== undefined) failures.push(fieldFailure("coldWorkers", tooMany));
    if (failures.length === 0 && !containsUnknown(news["endpointId"])) {
      failures.push(...(await accountFailures(run, checked.inputs)));
    }
    // Its workers' range in the plan's prices (pricing/plan.ts).
    if (failures.length === 0) {
      failures.push(...(await workerGroupPlanFailures(run, olds, checked.inputs, news)));
    }
    return { inputs: checked.inputs, failures };
  },

  async diff(run, _id, olds, news) {
    const diff = diffWorkerGroup(olds, news);
    await recordWorkerGroupDiff(run, olds, news, diff);
    return diff;
  },

  async create(run, inputs) {
    const workerGroupId = await createGroup(run, inputs);
    const searchQuery = searchQueryOf(inputs.offerQuery);
    return { id: String(workerGroupId), outs: { ...inputs, workerGroupId, searchQuery } };
  },

  async read(run, id, props) {
    if (!props) return importedWorkerGroup(run, id);
    const found = await run.client.workerGroups.find(props.workerGroupId);
    if (!found) return {};
    const outs = withService(props, found);
    if (outs.launchArgs === "" && props.launchArgs === undefined) delete outs.launchArgs;
    return readResult(id, props, outs, inputsOf(outs));
  },

  async update(run, _id, olds, news) {
    const client = run.client;
    let searchQuery = olds.searchQuery;
    if (serviceChanges(olds, news).length > 0) {
      await client.workerGroups.update(olds.workerGroupId, updateOf(news));
      searchQuery = searchQueryOf(news.offerQuery);
    }
    return { outs: { ...news, workerGroupId: olds.workerGroupId, searchQuery } };
  },

  async delete(run, _id, props) {
    const client = run.client;
    const id = props.workerGroupId;
    // A group already gone (deleted with its endpoint, or outside Pulumi) has no workers left.
    const answer = await deleteNamingWorkers(run, {
      what: `worker group ${id}`,
      send: () => client.workerGroups.delete(id),
      isGone: (error) => error instanceof GpuCloudError && error.isNotFound,
      exists: async () =>
        (await client.workerGroups.list(new AbortController().signal)).some(
          (group) => group.id === id,
        ),
      // Worker rows carry their group's template hash (and nothing of the group itself).
      suspects: async () => {
        const hash = props.templateHashId;
        if (hash === undefined) return undefined;
        const instances = await client.instances.list();
        return instances
          .filter((instance) => instance.template_hash_id === hash)
          .map((instance) => instance.id);
      },
    });
    if (answer === undefined) return;
    await releaseWorkers(run, `worker group ${id}`, answer, {
      intervalMs: releaseIntervalMs,
      timeoutMs: (props.deleteTimeoutSeconds ?? 600) * 1000,
    });
  },
};
