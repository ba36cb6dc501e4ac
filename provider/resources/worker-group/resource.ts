import type * as pulumi from "@pulumi/pulumi";
import { secret as secretOutput } from "@pulumi/pulumi/output";
import type { InstanceOfferQuery } from "../../client";
import { DynamicResource, providerEntry } from "../../shim";

export interface WorkerGroupArgs {
  /** The endpoint the workers serve: an Endpoint's `endpointId`. Changes in place. */
  endpointId: pulumi.Input<number>;
  /** The workers' template by hash (a Template's `hashId`); give this or `templateId`. */
  templateHashId?: pulumi.Input<string>;
  /** The workers' template by numeric id (a Template's `templateId`); or `templateHashId`. */
  templateId?: pulumi.Input<number>;
  /**
   * The offers workers are rented from, in Instance.offerQuery's form: an object
   * (`{ gpuName: "RTX 4090", gpuRamGb: { gte: 24 } }`) or the official client's string
   * (`"gpu_name=RTX_4090 num_gpus=1"`). Sent as the service's `search_params` (a JSON query);
   * the default market filters (verified, rentable, not rented) apply unless overridden.
   */
  offerQuery?: pulumi.Input<InstanceOfferQuery | string>;
  /**
   * Extra instance-creation arguments applied to every worker, command-line style
   * (`--env VAR=value`). Recorded as a Pulumi secret output; pass a secret if it holds one.
   */
  launchArgs?: pulumi.Input<string>;
  /** Floor load in perf units per second; 0 or more, default 1. */
  minLoad?: pulumi.Input<number>;
  /** Target capacity utilization, more than 0 and at most 1; default 0.9. */
  targetUtil?: pulumi.Input<number>;
  /** Inactive capacity as a multiple of the active capacity target; 0 or more, default 3. */
  coldMult?: pulumi.Input<number>;
  /**
   * Workers (GPU instances, billed) kept cold; a whole number, 0 or more, at most maxWorkers.
   * The service's default when absent. Changing it replaces the group.
   */
  coldWorkers?: pulumi.Input<number>;
  /** The most workers of the group; a whole number. Changing it replaces the group. */
  maxWorkers?: pulumi.Input<number>;
  /** Workers rented to measure performance; a whole number, default 3. */
  testWorkers?: pulumi.Input<number>;
  /** GPU memory the workload needs, GB (an estimate; offerQuery picks the machines); default 24. */
  gpuRamGb?: pulumi.Input<number>;
  /**
   * How long delete waits until every worker instance of the group is gone from the account
   * (seconds, at most 3600; default 600).
   */
  deleteTimeoutSeconds?: pulumi.Input<number>;
}

/**
 * A serverless worker group: workers rented from offers matching `offerQuery`, launched from a
 * template, serving an endpoint. Changes in place, except `coldWorkers` and `maxWorkers`,
 * which replace it. Deleting it waits until none of its worker instances is left on the account.
 */
export class WorkerGroup extends DynamicResource {
  declare readonly endpointId: pulumi.Output<number>;
  declare readonly templateHashId: pulumi.Output<string | undefined>;
  declare readonly templateId: pulumi.Output<number | undefined>;
  declare readonly offerQuery: pulumi.Output<InstanceOfferQuery | string | undefined>;
  declare readonly launchArgs: pulumi.Output<string | undefined>;
  declare readonly minLoad: pulumi.Output<number>;
  declare readonly targetUtil: pulumi.Output<number>;
  declare readonly coldMult: pulumi.Output<number>;
  declare readonly coldWorkers: pulumi.Output<number | undefined>;
  declare readonly maxWorkers: pulumi.Output<number | undefined>;
  declare readonly testWorkers: pulumi.Output<number>;
  declare readonly gpuRamGb: pulumi.Output<number>;
  declare readonly deleteTimeoutSeconds: pulumi.Output<number>;
  /** The service's id of the worker group. */
  declare readonly workerGroupId: pulumi.Output<number>;
  /** The query the service holds (its `search_params`, parsed). */
  declare readonly searchQuery: pulumi.Output<Record<string, unknown>>;

  constructor(name: string, args: WorkerGroupArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/worker-group"),
      name,
      // Every output is named here, or the resource would not expose it.
      {
        // Keys the resource does not have too: check names them (shared/unknown-inputs.ts).
        ...args,
        endpointId: args.endpointId,
        templateHashId: args.templateHashId,
        templateId: args.templateId,
        offerQuery: args.offerQuery,
        // A secret input too: the state's copy of the inputs is then encrypted as well.
        launchArgs: args.launchArgs === undefined ? undefined : secretOutput(args.launchArgs),
        minLoad: args.minLoad,
        targetUtil: args.targetUtil,
        coldMult: args.coldMult,
        coldWorkers: args.coldWorkers,
        maxWorkers: args.maxWorkers,
        testWorkers: args.testWorkers,
        gpuRamGb: args.gpuRamGb,
        deleteTimeoutSeconds: args.deleteTimeoutSeconds,
        workerGroupId: undefined,
        searchQuery: undefined,
      },
      { ...opts, additionalSecretOutputs: ["launchArgs"] },
      "WorkerGroup",
    );
  }
}
