import { z } from "zod";
// The one typed offer query form (and field table) of Instance.offerQuery.
import { offerQueryInputSchema } from "../instance/inputs";
import {
  coldMultSchema,
  deleteTimeoutSchema,
  minLoadSchema,
  targetUtilSchema,
  workerCountSchema,
} from "../serverless/scaling";

// ---- Inputs -------------------------------------------------------------------------------

/** A template's `hash_id`: 32 lowercase hexadecimal characters. */
const templateHashPattern = /^[0-9a-f]{32}$/;

export const workerGroupInputsSchema = z.object({
  /** The endpoint the group's workers serve (Endpoint.endpointId). */
  endpointId: z
    .number({ error: "the id of the endpoint (Endpoint.endpointId)" })
    .int("endpointId is a whole number")
    .positive("endpointId is positive"),
  /** The workers' template by its hash (Template.hashId); give this or templateId. */
  templateHashId: z
    .string({ error: "a template's hash id (Template.hashId)" })
    .regex(templateHashPattern, "templateHashId is a template's hash: 32 lowercase hex characters")
    .optional(),
  /** The workers' template by its numeric id (Template.templateId); give this or templateHashId. */
  templateId: z
    .number({ error: "a template's numeric id (Template.templateId)" })
    .int("templateId is a whole number")
    .positive("templateId is positive")
    .optional(),
  /**
   * The offers workers are rented from, in Instance.offerQuery's form (an object or the
   * official client's string); the service's default market filters when absent.
   */
  offerQuery: offerQueryInputSchema.optional(),
  /** Extra instance-creation arguments, command-line style (e.g. `--env VAR=value`). */
  launchArgs: z
    .string({ error: "command-line style arguments, e.g. --env VAR=value" })
    .meta({ secret: true })
    .optional(),
  /** Floor load, perf units per second; default 1. */
  minLoad: minLoadSchema(1),
  /** Target capacity utilization, in (0, 1]; default 0.9. */
  targetUtil: targetUtilSchema,
  /** Inactive capacity as a multiple of the active capacity target; default 3. */
  coldMult: coldMultSchema(3),
  /** Workers kept cold; the service's default when absent. Changing it replaces the group. */
  coldWorkers: workerCountSchema("coldWorkers").optional(),
  /** The most workers of the group; the service's default when absent. Replaces the group. */
  maxWorkers: workerCountSchema("maxWorkers").optional(),
  /** Workers the service rents to measure performance; default 3. */
  testWorkers: workerCountSchema("testWorkers").default(3),
  /** The GPU memory the workload needs, GB (an estimate for the engine); default 24. */
  gpuRamGb: z
    .number({ error: "GPU memory in GB, a whole number, e.g. 24" })
    .int("gpuRamGb is a whole number of GB")
    .positive("gpuRamGb must be positive (GB)")
    .default(24),
  /** How long delete waits for the group's workers to be gone; default 600 s. */
  deleteTimeoutSeconds: deleteTimeoutSchema,
});
export type WorkerGroupInputs = z.infer<typeof workerGroupInputsSchema>;

export const workerGroupOutputsSchema = workerGroupInputsSchema.extend({
  /** The service's id of the worker group. */
  workerGroupId: z.number().int(),
  /**
   * The query object sent as `search_params`; after a refresh, the one the service holds. A
   * difference from the program's query is updated in place.
   */
  searchQuery: z.record(z.string(), z.unknown()),
});
export type WorkerGroupOutputs = z.infer<typeof workerGroupOutputsSchema>;
