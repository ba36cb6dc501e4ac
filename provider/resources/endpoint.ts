import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { type Endpoint as EndpointWire, type EndpointFields, isEndpointGone } from "../client";
import { dynamicProvider } from "../provider-runtime";
import { describeResource, hasRecord } from "../shared/resource-descriptor";
import type { ResourceImplementation } from "../shared/resource-implementation";
import { readResult } from "../shared/read-result";
import { DynamicResource, providerEntry } from "../shim";
import { checkInputs, fieldFailure } from "../shared/validation";
import { deleteNamingWorkers, releaseWorkers } from "../serverless/release";
import {
  coldMultSchema,
  coldWithinMax,
  deleteTimeoutSchema,
  minLoadSchema,
  targetUtilSchema,
  workerCountSchema,
} from "../serverless/scaling";
import { withExample } from "../shared/reference-examples";
import { callingOutputs, callingOutputsSchema, keyAfterCreate } from "../serverless/calling";

// ---- Inputs -------------------------------------------------------------------------------

export const endpointInputsSchema = z.object({
  endpointName: z
    .string({ error: "the endpoint's name, e.g. vllm-qwen3-8b-prod" })
    .min(1, "endpointName must not be empty")
    .max(256, "endpointName must be at most 256 characters")
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f]*$/, "endpointName must not contain control characters")
    .describe(
      "The endpoint's name (1-256 characters): what clients route requests to. Changes in place.",
    ),
  // The service's create defaults.
  minLoad: minLoadSchema(10, "endpoint"),
  targetUtil: targetUtilSchema("endpoint"),
  coldMult: coldMultSchema(2.5),
  coldWorkers: workerCountSchema("coldWorkers")
    .describe(
      "Workers (GPU instances, billed) kept loaded but inactive when there is no load; a whole " +
        "number, 0 or more, at most maxWorkers; default 5. Changes in place.",
    )
    .default(5),
  maxWorkers: workerCountSchema("maxWorkers")
    .describe(
      "The most workers the endpoint may have, active and inactive; a whole number, default " +
        "20. Changes in place.",
    )
    .default(20),
  deleteTimeoutSeconds: deleteTimeoutSchema("endpoint"),
});
export type EndpointInputs = z.infer<typeof endpointInputsSchema>;

// Endpoint's example on its reference page (docs/reference/Endpoint.md): an endpoint with the
// service's scaling defaults.
withExample(endpointInputsSchema, { inputs: { endpointName: "llm-prod" } });

export const endpointOutputsSchema = endpointInputsSchema.extend({
  endpointId: z
    .number()
    .int()
    .describe("The service's id of the endpoint: what a worker group's `endpointId` names."),
  // How a program calls the endpoint (provider/serverless/calling.ts).
  ...callingOutputsSchema,
});
export type EndpointOutputs = z.infer<typeof endpointOutputsSchema>;

// ---- Diff rules ---------------------------------------------------------------------------

/** The fields the service holds (everything but the provider's own deleteTimeoutSeconds). */
const serviceFields = [
  "endpointName",
  "minLoad",
  "targetUtil",
  "coldMult",
  "coldWorkers",
  "maxWorkers",
] as const;

/** Everything PUT /api/v0/endptjobs/{id}/ takes changes in place: nothing replaces. */
export function diffEndpoint(
  olds: EndpointOutputs,
  news: EndpointInputs,
): pulumi.dynamic.DiffResult {
  const changed = serviceFields.filter((field) => olds[field] !== news[field]);
  const timeoutChanged = olds.deleteTimeoutSeconds !== news.deleteTimeoutSeconds;
  return { changes: changed.length > 0 || timeoutChanged, replaces: [] };
}

// ---- CRUD ---------------------------------------------------------------------------------

function toWire(inputs: EndpointInputs): EndpointFields {
  return {
    endpoint_name: inputs.endpointName,
    min_load: inputs.minLoad,
    target_util: inputs.targetUtil,
    cold_mult: inputs.coldMult,
    cold_workers: inputs.coldWorkers,
    max_workers: inputs.maxWorkers,
  };
}

function fromWire(endpoint: EndpointWire): Omit<EndpointInputs, "deleteTimeoutSeconds"> {
  return {
    endpointName: endpoint.endpoint_name,
    minLoad: endpoint.min_load,
    targetUtil: endpoint.target_util,
    coldMult: endpoint.cold_mult,
    coldWorkers: endpoint.cold_workers,
    maxWorkers: endpoint.max_workers,
  };
}

/** Status reads while the endpoint's workers are released, ms. */
const releaseIntervalMs = 2_000;

export const implementation: ResourceImplementation<EndpointInputs, EndpointOutputs> = {
  async check(run, _olds, news) {
    const setup = await run.configurationFailures();
    const checked = checkInputs(endpointInputsSchema, news, { type: "Endpoint" });
    const failures = [...setup, ...checked.failures];
    const { coldWorkers, maxWorkers } = checked.inputs;
    const tooMany =
      typeof coldWorkers === "number" && typeof maxWorkers === "number"
        ? coldWithinMax(coldWorkers, maxWorkers, news["coldWorkers"] === undefined)
        : undefined;
    if (tooMany !== undefined) failures.push(fieldFailure("coldWorkers", tooMany));
    return { inputs: checked.inputs, failures };
  },

  async diff(_run, _id, olds, news) {
    return diffEndpoint(olds, news);
  },

  async create(run, inputs) {
    const endpointId = await run.client.endpoints.create(toWire(inputs));
    const calling = callingOutputs(run, await keyAfterCreate(run, endpointId));
    return { id: String(endpointId), outs: { ...inputs, endpointId, ...calling } };
  },

  async read(run, id, props) {
    if (!props) {
      // `pulumi import` by id: every field the service holds; delete's own wait at its default.
      const imported = await run.client.endpoints.find(Number(id));
      if (!imported) return {};
      const inputs: EndpointInputs = {
        ...fromWire(imported),
        deleteTimeoutSeconds: endpointInputsSchema.shape.deleteTimeoutSeconds.parse(undefined),
      };
      const calling = callingOutputs(run, await run.client.endpoints.keyOf(imported.id));
      const outs = { ...inputs, endpointId: imported.id, ...calling };
      return { id: String(imported.id), props: outs, inputs };
    }
    const found = await run.client.endpoints.find(props.endpointId);
    if (!found) return {};
    // The key from the same list (shared reads): what the service shows now.
    const { apiKey: _old, ...recorded } = props;
    const calling = callingOutputs(run, await run.client.endpoints.keyOf(props.endpointId));
    const outs: EndpointOutputs = { ...recorded, ...fromWire(found), ...calling };
    const { endpointId: _id, routeUrl: _url, apiKey: _key, ...inputs } = outs;
    return readResult(id, props, outs, inputs);
  },

  async update(run, _id, olds, news) {
    const changed = serviceFields.some((field) => olds[field] !== news[field]);
    if (changed) await run.client.endpoints.update(olds.endpointId, toWire(news));
    // A state from before these outputs (or a create whose list failed) gets its key here.
    const key = olds.apiKey ?? (await keyAfterCreate(run, olds.endpointId));
    return { outs: { ...news, endpointId: olds.endpointId, ...callingOutputs(run, key) } };
  },

  async delete(run, _id, props) {
    const client = run.client;
    const id = props.endpointId;
    // Already gone before this delete: its workers went with it.
    const answer = await deleteNamingWorkers(run, {
      what: `endpoint ${id}`,
      send: () => client.endpoints.delete(id),
      isGone: isEndpointGone,
      exists: async () =>
        (await client.endpoints.list(new AbortController().signal)).some(
          (endpoint) => endpoint.id === id,
        ),
      suspects: async () => undefined,
    });
    if (answer === undefined) return;
    await releaseWorkers(run, `endpoint ${id}`, answer, {
      intervalMs: releaseIntervalMs,
      timeoutMs: (props.deleteTimeoutSeconds ?? 600) * 1000,
    });
  },
};

/** The dynamic door's provider, which every state of this resource names (provider/shim.ts). */
export const provider = dynamicProvider(implementation, "endpoint");

/** Endpoint, as the registry lists it (provider/registry.ts). */
export const descriptor = describeResource({
  type: "Endpoint",
  implementation,
  inputs: endpointInputsSchema,
  outputs: endpointOutputsSchema,
  description:
    "A serverless endpoint: the scaling rules its worker groups share, and what a client " +
    "calls it with: `routeUrl`, `endpointName` and `apiKey` (a secret).",
  packageTypes: ["EndpointArgs"],
  tests: { records: "endpoints", isOnAccount: hasRecord("endpoints", "endpointId") },
  badInputs: () => [
    {
      what: "out-of-bounds parameters",
      args: { endpointName: "e2e-llm", targetUtil: 1.5, coldWorkers: 6, maxWorkers: 4 },
      cases: [
        {
          field: "targetUtil",
          says: /targetUtil: is a fraction of capacity, more than 0 and at most 1/,
        },
        { field: "coldWorkers", says: /coldWorkers: \(6\) must be at most maxWorkers \(4\)/ },
      ],
    },
  ],
  // At the service's defaults (the zod definition's).
  recorded: () => [
    { olds: { ...endpointInputsSchema.parse({ endpointName: "e" }), endpointId: 4 } },
  ],
});

// ---- The resource -------------------------------------------------------------------------

export interface EndpointArgs {
  /** The endpoint's name (1-256 characters): what clients route requests to. */
  endpointName: pulumi.Input<string>;
  /**
   * The floor load the endpoint keeps capacity for, in perf units per second (tokens/s for
   * LLMs); 0 or more, default 10.
   */
  minLoad?: pulumi.Input<number>;
  /**
   * Target capacity utilization: the anticipated load over the active capacity, more than 0
   * and at most 1 (0.9 keeps 11% headroom); default 0.9.
   */
  targetUtil?: pulumi.Input<number>;
  /** Inactive (cold) capacity as a multiple of the active capacity target; 0 or more, default 2.5. */
  coldMult?: pulumi.Input<number>;
  /**
   * Workers (GPU instances, billed) kept loaded but inactive when there is no load; a whole
   * number, 0 or more, at most maxWorkers; default 5.
   */
  coldWorkers?: pulumi.Input<number>;
  /** The most workers the endpoint may have, active and inactive; a whole number, default 20. */
  maxWorkers?: pulumi.Input<number>;
  /**
   * How long delete waits until every worker instance of the endpoint is gone from the account
   * (seconds, at most 3600; default 600).
   */
  deleteTimeoutSeconds?: pulumi.Input<number>;
}

/**
 * A serverless endpoint: the router its worker groups' workers serve, with its scaling
 * parameters. `routeUrl`, `endpointName` and `apiKey` (a secret) are what a client calls it
 * with. Every change is made in place. Deleting it deletes its worker groups, and waits until
 * none of their worker instances is left on the account.
 */
export class Endpoint extends DynamicResource {
  declare readonly endpointName: pulumi.Output<string>;
  declare readonly minLoad: pulumi.Output<number>;
  declare readonly targetUtil: pulumi.Output<number>;
  declare readonly coldMult: pulumi.Output<number>;
  declare readonly coldWorkers: pulumi.Output<number>;
  declare readonly maxWorkers: pulumi.Output<number>;
  declare readonly deleteTimeoutSeconds: pulumi.Output<number>;
  /** The service's id of the endpoint (a WorkerGroup's `endpointId`). */
  declare readonly endpointId: pulumi.Output<number>;
  /**
   * Where a client sends the route call: POST `{"endpoint": endpointName, "cost": <estimate>}`
   * with `Authorization: Bearer <apiKey>`; the answer names a worker's `url`.
   */
  declare readonly routeUrl: pulumi.Output<string>;
  /** The endpoint's own API key, which a client routes requests with: a Pulumi secret. */
  declare readonly apiKey: pulumi.Output<string | undefined>;

  constructor(name: string, args: EndpointArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/endpoint"),
      name,
      // Every output is named here, or the resource would not expose it.
      {
        // Keys the resource does not have too: check names them (shared/unknown-inputs.ts).
        ...args,
        endpointName: args.endpointName,
        minLoad: args.minLoad,
        targetUtil: args.targetUtil,
        coldMult: args.coldMult,
        coldWorkers: args.coldWorkers,
        maxWorkers: args.maxWorkers,
        deleteTimeoutSeconds: args.deleteTimeoutSeconds,
        endpointId: undefined,
        routeUrl: undefined,
        apiKey: undefined,
      },
      { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), "apiKey"] },
      "Endpoint",
    );
  }
}
