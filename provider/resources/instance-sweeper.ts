import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { skipSdkPromiseTraces } from "../promise-traces";
import { providerClient, reportProgress } from "../provider-runtime";
import { readResult } from "../read-result";
import { type DynamicProvider, providerShim } from "../shim";
import { isRecorded, ownerOfInstance, stackPrefixOf } from "./instance/identity";
import { destroyAndConfirm } from "./instance/lifecycle";
import { checkInputs } from "../validation";

// ---- Inputs -------------------------------------------------------------------------------

export const sweeperInputsSchema = z.object({
  /** `<project>/<stack>/`: the owners of this stack's instances start with it. */
  ownerPrefix: z.string().min(3),
});
export type SweeperInputs = z.infer<typeof sweeperInputsSchema>;

// ---- CRUD ---------------------------------------------------------------------------------

/**
 * A stack's guard against instances that no state records. A `pulumi up` killed while an
 * instance boots leaves a pending create that `pulumi destroy` skips: the instance is in no
 * resource's state. Every Instance depends on the stack's sweeper, so the sweeper is created
 * before any instance is rented and deleted after every instance is: its delete destroys the
 * instances still carrying this stack's owner prefix. Creating it sends nothing.
 */
export const provider: DynamicProvider<SweeperInputs, SweeperInputs> = {
  async check(_olds, news) {
    return checkInputs(sweeperInputsSchema, news);
  },

  async diff(_id, olds, news) {
    const changed = olds.ownerPrefix !== news.ownerPrefix;
    return { changes: changed, replaces: changed ? ["ownerPrefix"] : [] };
  },

  async create(inputs) {
    return { id: inputs.ownerPrefix, outs: inputs };
  },

  async read(id, props) {
    return props ? readResult(id, props, props, props) : {};
  },

  async delete(_id, props) {
    const client = providerClient();
    const left = (await client.instances.list()).filter((instance) => {
      const owner = ownerOfInstance(instance);
      return owner?.startsWith(props.ownerPrefix) === true && !isRecorded(owner, instance.id);
    });
    const kept: number[] = [];
    for (const instance of left) {
      reportProgress(
        `destroying instance ${instance.id} (${ownerOfInstance(instance) ?? ""}), ` +
          `rented by an interrupted run and recorded by no resource`,
      );
      if (!(await destroyAndConfirm(client, instance.id, 3))) kept.push(instance.id);
    }
    if (kept.length > 0) {
      throw new Error(
        `instances ${kept.join(", ")} of this stack could not be confirmed destroyed; ` +
          `run the destroy again`,
      );
    }
  },
};

// ---- The resource -------------------------------------------------------------------------

const sweepers = new Map<string, InstanceSweeper>();

/** The stack's one sweeper, created with the first Instance of the program. */
export function stackSweeper(): InstanceSweeper {
  const ownerPrefix = stackPrefixOf(pulumi.getProject(), pulumi.getStack());
  let sweeper = sweepers.get(ownerPrefix);
  if (!sweeper) {
    sweeper = new InstanceSweeper("gpucloud-instance-sweeper", { ownerPrefix });
    sweepers.set(ownerPrefix, sweeper);
  }
  return sweeper;
}

/**
 * Destroys, when it is deleted (by `pulumi destroy`, or when the program no longer declares any
 * Instance), the stack's instances that an interrupted run rented and no state records.
 */
export class InstanceSweeper extends pulumi.dynamic.Resource {
  declare readonly ownerPrefix: pulumi.Output<string>;

  constructor(name: string, args: SweeperInputs, opts?: pulumi.CustomResourceOptions) {
    using _registration = skipSdkPromiseTraces();
    super(
      providerShim("pulumi-gpucloud/provider/resources/instance-sweeper"),
      name,
      { ownerPrefix: args.ownerPrefix },
      opts,
      "gpucloud",
      "InstanceSweeper",
    );
  }
}
