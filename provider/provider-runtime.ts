import type * as pulumi from "@pulumi/pulumi";
import type { ResourceImplementation } from "./shared/resource-implementation";
import { Run } from "./run/run";
import type { DynamicProvider } from "./shim";

/**
 * The dynamic door's one anchor: the run of this dynamic-provider process (run/run.ts). The
 * engine calls a dynamic provider's methods with nothing but their arguments (`provider.create
 * (inputs)`), so the process's run must be found here; everything below receives it as a
 * parameter. It lives in the package, so that nothing of it (least of all the key) is ever
 * serialized into a resource's state, and it changes nothing of the process it runs in (no V8
 * flag, no collection, no global): the process is shared with the user's own dynamic resources.
 * Made at the first call, with the engine's address the process was started with.
 */
let thisProcessRun: Run | undefined;

function dynamicRun(): Run {
  thisProcessRun ??= new Run({ engineAddress: process.argv[2] });
  return thisProcessRun;
}

/** A resource provider's methods, as the engine calls them. */
export type ProviderCall = "check" | "diff" | "create" | "read" | "update" | "delete";

/**
 * Called once per resource type with the same stack configuration: the first call's is kept
 * (Run.configure). The second parameter is what entries written into states by earlier
 * releases pass; it means nothing now.
 */
export function configure(
  request: pulumi.dynamic.ConfigureRequest,
  _collection?: "now" | "at-first-call",
): void {
  dynamicRun().configure(request.config);
}

/**
 * Kept for the entries that earlier releases copied by value into states (provider/shim.ts):
 * they call it before each method. It does nothing.
 */
export function beforeCall(_call: ProviderCall): void {}

/**
 * A resource's implementation as the dynamic door serves it: the `provider` each resource
 * module exports, which the states' entries call (provider/shim.ts), every method given this
 * process's run.
 */
export function dynamicProvider<Inputs, Outputs>(
  implementation: ResourceImplementation<Inputs, Outputs>,
): DynamicProvider<Inputs, Outputs> {
  const update = implementation.update?.bind(implementation);
  return {
    check: (olds, news) => oneLine(implementation.check(dynamicRun(), olds, news)),
    diff: (id, olds, news) => oneLine(implementation.diff(dynamicRun(), id, olds, news)),
    create: (inputs) => implementation.create(dynamicRun(), inputs),
    read: (id, props) => implementation.read(dynamicRun(), id, props),
    ...(update === undefined
      ? {}
      : {
          update: (id: string, olds: Outputs, news: Inputs) =>
            oneLine(update(dynamicRun(), id, olds, news)),
        }),
    delete: (id, props) => oneLine(implementation.delete(dynamicRun(), id, props)),
  };
}

/**
 * Pulumi's dynamic provider host prints `${error}: ${error.stack}` for a failed check, diff,
 * update or delete, and the engine shows that twice, below the error's own clear line. Our
 * errors are messages for the user (a missing setting, a refusal of the service): their stack
 * is left out of what the host prints. A programming error (TypeError and kin) keeps its
 * stack, where it helps.
 */
async function oneLine<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const programmingError =
      error instanceof TypeError ||
      error instanceof ReferenceError ||
      error instanceof RangeError ||
      error instanceof SyntaxError;
    if (error instanceof Error && !programmingError) error.stack = "";
    throw error;
  }
}
