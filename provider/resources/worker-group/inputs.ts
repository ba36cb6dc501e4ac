import { z } from "zod";
// The one typed offer query form (and field table) of Instance.offerQuery.
import { offerQueryInputSchema } from "../../shared/input-fields";
import {
  coldMultSchema,
  deleteTimeoutSchema,
  minLoadSchema,
  targetUtilSchema,
  workerCountSchema,
} from "../../serverless/scaling";
import { declared, ref, withExample } from "../../shared/reference-examples";

// ---- Inputs -------------------------------------------------------------------------------

/** A template's `hash_id`: 32 lowercase hexadecimal characters. */
const templateHashPattern = /^[0-9a-f]{32}$/;

export const workerGroupInputsSchema = z.object({
  endpointId: z
    .number({ error: "the id of the endpoint (Endpoint.endpointId)" })
    .int("endpointId is a whole number")
    .positive("endpointId is positive")
    .describe(
      "The endpoint the group's workers serve: an Endpoint's `endpointId`. Changes in place.",
    ),
  templateHashId: z
    .string({ error: "a template's hash id (Template.hashId)" })
    .regex(templateHashPattern, "templateHashId is a template's hash: 32 lowercase hex characters")
    .describe(
      "The workers' template by its hash (a Template's `hashId`); give this or `templateId`. " +
        "Changes in place.",
    )
    .optional(),
  templateId: z
    .number({ error: "a template's numeric id (Template.templateId)" })
    .int("templateId is a whole number")
    .positive("templateId is positive")
    .describe(
      "The workers' template by its numeric id (a Template's `templateId`); give this or " +
        "`templateHashId`. Changes in place.",
    )
    .optional(),
  offerQuery: offerQueryInputSchema
    .describe(
      "The offers workers are rented from, in an instance's offerQuery form: an OfferQuery " +
        "(e.g. an RTX 4090 with at least 24 GB of GPU RAM) or the official client's string " +
        '(`"gpu_name=RTX_4090 num_gpus=1"`). Sent as the service\'s `search_params`; the ' +
        "default market filters (verified, rentable, not rented) apply unless the query says " +
        "otherwise. Changes in place.",
    )
    .optional(),
  launchArgs: z
    .string({ error: "command-line style arguments, e.g. --env VAR=value" })
    .meta({ secret: true })
    .describe(
      "Extra instance-creation arguments applied to every worker, command-line style " +
        "(`--env VAR=value`); recorded as a Pulumi secret. Changes in place.",
    )
    .optional(),
  minLoad: minLoadSchema(1, "group"),
  targetUtil: targetUtilSchema("group"),
  coldMult: coldMultSchema(3),
  coldWorkers: workerCountSchema("coldWorkers")
    .describe(
      "Workers (GPU instances, billed) kept cold; a whole number, 0 or more, at most " +
        "maxWorkers. The service's default when absent. Changing it replaces the group.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  maxWorkers: workerCountSchema("maxWorkers")
    .describe(
      "The most workers of the group; a whole number. The service's default when absent. " +
        "Changing it replaces the group.",
    )
    .meta({ willReplaceOnChanges: true })
    .optional(),
  testWorkers: workerCountSchema("testWorkers")
    .describe(
      "Workers the service rents to measure performance; a whole number, default 3. Changes " +
        "in place.",
    )
    .default(3),
  gpuRamGb: z
    .number({ error: "GPU memory in GB, a whole number, e.g. 24" })
    .int("gpuRamGb is a whole number of GB")
    .positive("gpuRamGb must be positive (GB)")
    .describe(
      "The GPU memory the workload needs, in gigabytes (an estimate for the service's engine; " +
        "offerQuery picks the machines); default 24. Changes in place.",
    )
    .default(24),
  deleteTimeoutSeconds: deleteTimeoutSchema("group"),
});
export type WorkerGroupInputs = z.infer<typeof workerGroupInputsSchema>;

// WorkerGroup's example on its reference page (docs/reference/WorkerGroup.md): a group needs an
// endpoint and a template, declared beside it and named by their outputs.
withExample(workerGroupInputsSchema, {
  needs: [
    declared("Endpoint", "endpoint", { endpointName: "llm" }),
    declared("Template", "template", {
      name: "vllm-server",
      image: "vllm/vllm-openai",
    }),
  ],
  inputs: {
    endpointId: ref("endpoint", "endpointId"),
    templateHashId: ref("template", "hashId"),
    offerQuery: { gpuName: "RTX 4090" },
  },
});

export const workerGroupOutputsSchema = workerGroupInputsSchema.extend({
  workerGroupId: z.number().int().describe("The service's id of the worker group."),
  searchQuery: z
    .record(z.string(), z.unknown())
    .describe(
      "The query object sent as the service's `search_params` (the API's field names and " +
        "units); after a refresh, the one the service holds. A difference from the program's " +
        "query is updated in place.",
    ),
});
export type WorkerGroupOutputs = z.infer<typeof workerGroupOutputsSchema>;
