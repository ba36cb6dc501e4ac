import type * as pulumi from "@pulumi/pulumi";
import { getProject, getStack } from "@pulumi/pulumi/metadata";
import { output } from "@pulumi/pulumi/output";
import { Resource } from "@pulumi/pulumi/resource";
import { z } from "zod";
import { deleteUnlessGone, type Instance as InstanceWire } from "../client";
import type { Run } from "../run/run";
import { readResult } from "../shared/read-result";
import type { ResourceImplementation } from "../shared/resource-implementation";
import { DynamicResource, providerEntry } from "../shim";
import { checkInputs } from "../shared/validation";
import { lateRentsMs } from "./create";
import { destroyAndConfirm } from "./destroy";
import { partsAround } from "./group-ownership";
import { inDestroyOrder, nodesWitnessedBy, unprovenNodeNote } from "./group-witness";
import {
  isLeftoverOf,
  leftoversQuery,
  newStackToken,
  ownerOfInstance,
  stackPrefixOf,
} from "./identity";

// The InstanceSweeper resource: the stack's identity (its token, which every instance the stack
// rents carries) and its guard against leftovers. It is the renting engine's, and the Instance
// and NodeGroup classes take it as their stack's; the module every sweeper's state names,
// provider/resources/instance-sweeper.ts, serves it, and the plugin serves it to Python and Go
// programs (pluginImplementation).

// ---- Inputs -------------------------------------------------------------------------------

export const sweeperInputsSchema = z.object({
  /** `<project>/<stack>/`: the resource's id, and what its instances' owners start with. */
  ownerPrefix: z.string().min(3),
  /**
   * Through the plugin, the token its provider keeps (native/server.ts, CheckConfig), which
   * every Instance of that provider carries too; the TypeScript class leaves it out, and the
   * sweeper makes one.
   */
  stackToken: z.string().optional(),
});
export type SweeperInputs = z.infer<typeof sweeperInputsSchema>;

/** The sweeper's inputs, all set by its class or the plugin, none by a program. */
export const sweeperResourceInputs = {
  type: "InstanceSweeper",
  hidden: ["ownerPrefix", "stackToken"],
};

/**
 * `stackToken` is the stack's identity, made when the sweeper is created (or first updated, in
 * a stack written before it existed), or the plugin provider's, and kept in its state: every
 * instance the stack rents carries it.
 */
export const sweeperOutputsSchema = sweeperInputsSchema;
export type SweeperOutputs = z.infer<typeof sweeperOutputsSchema>;

// ---- Diff ---------------------------------------------------------------------------------

/** A sweeper from before stack tokens gets one in place; its instances are left as they are. */
function diffSweeper(olds: SweeperOutputs, news: SweeperInputs): pulumi.dynamic.DiffResult {
  const renamed = olds.ownerPrefix !== news.ownerPrefix;
  return {
    changes: renamed || olds.stackToken === undefined,
    replaces: renamed ? ["ownerPrefix"] : [],
  };
}

// ---- CRUD ---------------------------------------------------------------------------------

/**
 * A stack's identity, and its guard against instances that no state records. A `pulumi up`
 * killed while an instance boots leaves a pending create that `pulumi destroy` skips: the
 * instance is in no resource's state. Every Instance depends on the stack's sweeper, so the
 * sweeper is created before any instance is rented and deleted after every instance is. Its
 * delete destroys this stack's leftovers: instances still labelled as being created by this
 * stack's token (identity.ts), and the overlays and network volumes interrupted NodeGroup
 * creates made around them (group-ownership.ts). An instance that was handed
 * over to the engine (then perhaps retained with `retainOnDelete` or removed with `pulumi state
 * delete`), another stack's, one rented by hand, or one marked before stack tokens existed is
 * never touched. Creating it sends nothing.
 */
export const implementation: ResourceImplementation<SweeperInputs, SweeperOutputs> = {
  async check(_run, _olds, news) {
    return checkInputs(sweeperInputsSchema, news, sweeperResourceInputs);
  },

  async diff(_run, _id, olds, news) {
    return diffSweeper(olds, news);
  },

  async create(_run, inputs) {
    return {
      id: inputs.ownerPrefix,
      outs: { ...inputs, stackToken: inputs.stackToken ?? newStackToken() },
    };
  },

  async read(_run, id, props) {
    return props ? readResult(id, props, props, { ownerPrefix: props.ownerPrefix }) : {};
  },

  async update(_run, _id, olds, news) {
    return { outs: { ...news, stackToken: olds.stackToken ?? news.stackToken ?? newStackToken() } };
  },

  async delete(run, _id, props) {
    const { stackToken } = props;
    if (stackToken === undefined) {
      // Written before stack tokens: nothing proves which instances are this stack's own.
      return;
    }
    await sweepLeftovers(run, stackToken);
  },
};

/**
 * The sweeper the plugin serves (native/resources.ts) to Python and Go programs, whose SDKs declare it
 * with the stack's first Instance or NodeGroup (scripts/gen-sdks/sweeper): the engine starts no
 * plugin for a stack whose state holds only a pending create, so the stack needs a resource of
 * its own to be told of its destroy (docs/maintainers/ownership.md). Its token is its
 * provider's, so it never changes. Its refresh, which a preview makes too (the engine's Read
 * says not which), only reads and names the leftovers that its delete would destroy.
 */
export const pluginImplementation: ResourceImplementation<SweeperInputs, SweeperOutputs> = {
  ...implementation,

  async diff() {
    // Never replaced: a replacement's delete would sweep while this run's creates rent.
    return { changes: false };
  },

  async read(run, id, props) {
    if (props?.stackToken !== undefined) {
      const { leftovers, unproven } = await leftoversOf(run, props.stackToken);
      for (const instance of unproven) run.notice(unprovenNodeNote(instance));
      for (const instance of leftovers) {
        // A notice, not a status: a status is replaced by the next, and the display may show
        // only the last of several leftovers named at once.
        run.notice(
          `instance ${instance.id} (${ownerOfInstance(instance) ?? ""}) was left by an ` +
            `interrupted create of this stack and no resource records it: the next up adopts ` +
            `or destroys it, and pulumi destroy destroys it`,
        );
      }
    }
    return implementation.read(run, id, props);
  },
};

/**
 * What the plugin tells of a resource it checks, about the stack's sweeper. The SDKs declare the
 * sweeper before a program's first Instance or NodeGroup, and the engine checks a resource only
 * after those it depends on: one checked before any sweeper is a YAML program's that declares
 * none (or does not depend on it). Said once a run, since `pulumi destroy` of that stack would
 * not destroy what a killed `up` leaves.
 */
export function sweeperWarning(
  run: Run,
  type: string,
  rentsInstances: boolean,
): string | undefined {
  if (type === "InstanceSweeper") run.renting.rememberSweeperDeclared();
  if (!rentsInstances || !run.renting.shouldTellOfNoSweeper()) return undefined;
  return (
    `this stack's ${type} depends on no gpucloud:index:InstanceSweeper: what an \`up\` killed ` +
    "while it boots leaves would keep billing after `pulumi destroy`. Declare one and add it to " +
    "each Instance's and NodeGroup's `options: dependsOn` (docs/guides/never-lost.md)"
  );
}

/**
 * This stack's leftovers: instances still labelled as being created by its token, and the
 * nodes of unfinished group creates that the witnesses among them prove (group-witness.ts),
 * that this run neither recorded nor rented; and the nodes no witness proves any more, to
 * report. A rent in flight lands first: its instance is this run's.
 */
async function leftoversOf(
  run: Run,
  stackToken: string,
): Promise<{ leftovers: InstanceWire[]; unproven: InstanceWire[] }> {
  await run.renting.rentsSettled(lateRentsMs);
  const notThisRuns = (instance: InstanceWire) =>
    !run.renting.isRentedThisRun(instance.id) &&
    !run.renting.isRecorded(ownerOfInstance(instance) ?? "", instance.id);
  const labelled = (await run.client.instances.list(leftoversQuery(stackToken))).filter(
    (instance) => isLeftoverOf(instance, stackToken) && notThisRuns(instance),
  );
  const { siblings, unproven } = await nodesWitnessedBy(
    run.client,
    labelled,
    stackToken,
    notThisRuns,
  );
  return { leftovers: [...labelled, ...siblings], unproven };
}

/**
 * Destroys each leftover at once (their confirmations share the status rounds); returns one
 * line for each that could not be confirmed gone.
 */
async function destroyLeftovers(run: Run, leftovers: readonly InstanceWire[]): Promise<string[]> {
  const outcomes = await Promise.all(
    leftovers.map(async (instance) => {
      run.progress(
        `destroying instance ${instance.id} (${ownerOfInstance(instance) ?? ""}), ` +
          `left by an interrupted create of this stack and recorded by no resource`,
      );
      try {
        return (await destroyAndConfirm(run, instance.id, 3))
          ? undefined
          : `${instance.id} (still shown)`;
      } catch (error) {
        return `${instance.id} (${error instanceof Error ? error.message : String(error)})`;
      }
    }),
  );
  return outcomes.filter((why) => why !== undefined);
}

/**
 * Destroys this stack's leftovers, the witnesses of unfinished group creates only once every
 * other leftover is gone (group-witness.ts), and then the overlays and network volumes that
 * interrupted NodeGroup creates made around them (group-ownership.ts).
 */
async function sweepLeftovers(run: Run, stackToken: string): Promise<void> {
  const client = run.client;
  const { leftovers, unproven } = await leftoversOf(run, stackToken);
  for (const instance of unproven) run.progress(unprovenNodeNote(instance));
  const around = await partsAround(client, leftovers, stackToken);
  const { first, witnesses } = inDestroyOrder(leftovers, stackToken);
  const kept = await destroyLeftovers(run, first);
  if (kept.length > 0) {
    kept.push(
      ...witnesses.map(
        (witness) => `${witness.id} (kept as the proof of the others, until they are gone)`,
      ),
    );
  } else {
    kept.push(...(await destroyLeftovers(run, witnesses)));
  }
  if (kept.length === 0) {
    for (const overlay of around.overlays) {
      run.progress(`deleting overlay ${overlay.name}, made by an interrupted create`);
      await deleteUnlessGone(client.overlays.delete(overlay.overlay_id));
    }
    for (const volume of around.volumes) {
      run.progress(`deleting network volume V.${volume.id}, made by an interrupted create`);
      await deleteUnlessGone(client.volumes.delete(volume.id));
    }
  }
  if (kept.length > 0) {
    throw new Error(
      `instances ${kept.join(", ")} of this stack could not be confirmed destroyed; ` +
        `run the destroy again`,
    );
  }
}

// ---- The resource -------------------------------------------------------------------------

const sweepers = new Map<string, InstanceSweeper>();

/** The stack's one sweeper, created with the first Instance of the program. */
export function stackSweeper(): InstanceSweeper {
  const ownerPrefix = stackPrefixOf(getProject(), getStack());
  let sweeper = sweepers.get(ownerPrefix);
  if (!sweeper) {
    sweeper = new InstanceSweeper("gpucloud-instance-sweeper", { ownerPrefix });
    sweepers.set(ownerPrefix, sweeper);
  }
  return sweeper;
}

/**
 * The stack's identity (`stackToken`) for its instances. Destroys, when it is deleted (by
 * `pulumi destroy`, or when the program no longer declares any Instance), the instances that
 * this stack's interrupted creates left and no state records.
 */
export class InstanceSweeper extends DynamicResource {
  declare readonly ownerPrefix: pulumi.Output<string>;
  declare readonly stackToken: pulumi.Output<string>;

  constructor(name: string, args: SweeperInputs, opts?: pulumi.CustomResourceOptions) {
    super(
      providerEntry("pulumi-gpucloud/provider/resources/instance-sweeper"),
      name,
      { ownerPrefix: args.ownerPrefix, stackToken: undefined },
      opts,
      "InstanceSweeper",
    );
  }
}

type DependsOn = pulumi.CustomResourceOptions["dependsOn"];

/** The resource options' dependsOn, with the stack's sweeper added: it outlives every instance. */
export function withSweeper(dependsOn: DependsOn, sweeper: InstanceSweeper): DependsOn {
  if (dependsOn === undefined) return [sweeper];
  if (Array.isArray(dependsOn)) return [...dependsOn, sweeper];
  if (Resource.isInstance(dependsOn)) return [dependsOn, sweeper];
  // An Output or a promise of a resource or a list of them.
  return output(dependsOn as pulumi.Input<pulumi.Resource | pulumi.Input<pulumi.Resource>[]>).apply(
    (resolved) => [...(Array.isArray(resolved) ? resolved : [resolved]), sweeper],
  );
}
