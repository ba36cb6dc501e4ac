import type * as pulumi from "@pulumi/pulumi";
import type { ResourceImplementation } from "./shared/resource-implementation";
import { bundledRuntime, resourceIn } from "./dynamic-runtime";
import { isDynamicProviderHost, onEngineCancel } from "./run/engine-cancel";
import { Run } from "./run/run";
import type { DynamicProvider } from "./shim";

/**
 * The dynamic door's one anchor: the run of this dynamic-provider process (run/run.ts). The
 * engine calls a dynamic provider's methods with nothing but their arguments (`provider.create
 * (inputs)`), so the process's run must be found here; everything below receives it as a
 * parameter. It lives in the package, so that nothing of it (least of all the key) is ever
 * serialized into a resource's state, and it changes nothing of the process it runs in (no V8
 * flag, no collection, no global, no signal handler): the process is shared with the user's own
 * dynamic resources. It only listens, in the engine's dynamic provider process, for the
 * engine's Cancel (run/engine-cancel.ts). Made at the first call, with the engine's address the
 * process was started with.
 */
let thisProcessRun: DynamicProcess | undefined;

interface DynamicProcess {
  readonly run: Run;
  /**
   * Creates and updates in flight. The engine also sends Cancel when it closes a finished
   * operation's providers: a Cancel with none in flight has nothing to say.
   */
  writes: number;
  /** A Ctrl-C this process cannot hear, not said yet: said at the first write. */
  ctrlCUnheard: boolean;
}

function dynamicProcess(): DynamicProcess {
  if (thisProcessRun === undefined) {
    const dynamic: DynamicProcess = {
      run: new Run({ engineAddress: process.argv[2] }),
      writes: 0,
      ctrlCUnheard: false,
    };
    // Only in the engine's dynamic provider process: a test or a program calling a provider
    // directly hears nothing.
    dynamic.ctrlCUnheard = isDynamicProviderHost() && !hearCtrlC(dynamic);
    thisProcessRun = dynamic;
  }
  return thisProcessRun;
}

const dynamicRun = (): Run => dynamicProcess().run;

/**
 * The first Ctrl-C stops the run as the plugin's Cancel does (run/cancellation.ts): no new
 * search or rent, waits end, a booting instance is destroyed and a group taken apart; said on
 * the screen at that moment. False where this Node.js cannot hear it.
 */
function hearCtrlC(dynamic: DynamicProcess): boolean {
  const { run } = dynamic;
  return onEngineCancel(() => {
    if (run.cancellation.isCancelled) return;
    run.cancellation.cancel();
    if (dynamic.writes === 0) return;
    run.notice(
      "Ctrl-C: nothing more is rented; creates in flight destroy what they rented and fail, " +
        "and a running instance is recorded",
    );
  });
}

/**
 * A create or update, counted while in flight; when a Ctrl-C cannot reach this process, the
 * first says so, before anything is rented.
 */
async function writing<T>(work: (run: Run) => Promise<T>): Promise<T> {
  const dynamic = dynamicProcess();
  if (dynamic.ctrlCUnheard) {
    dynamic.ctrlCUnheard = false;
    dynamic.run.notice(
      `Node.js ${process.versions.node} does not tell this provider of a Ctrl-C: a create in ` +
        "flight runs to its end (a group rents every node); Node.js 22.17+ or 24.2+, or the " +
        "plugin (docs/guides/never-lost.md#ctrl-c), stop at once",
    );
  }
  dynamic.writes += 1;
  try {
    return await work(dynamic.run);
  } finally {
    dynamic.writes -= 1;
  }
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
  // Where the package ships the bundled runtime (provider/dynamic-runtime.ts), this module copy
  // hands its calls to it: entries earlier releases copied into states require the modules by
  // path, and one process keeps one run (one budget, ledger, pacing and pool), the bundle's.
  const bundle = bundledRuntime();
  if (bundle !== undefined) bundle.runtime.configure(request);
  else dynamicRun().configure(request.config);
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
  entry: string,
): DynamicProvider<Inputs, Outputs> {
  const update = implementation.update?.bind(implementation);
  const own: DynamicProvider<Inputs, Outputs> = {
    check: (olds, news) => answer(oneLine(implementation.check(dynamicRun(), olds, news))),
    diff: (id, olds, news) => answer(oneLine(implementation.diff(dynamicRun(), id, olds, news))),
    create: (inputs) => answer(writing((run) => implementation.create(run, inputs))),
    read: (id, props) => answer(implementation.read(dynamicRun(), id, props)),
    ...(update === undefined
      ? {}
      : {
          update: (id: string, olds: Outputs, news: Inputs) =>
            answer(oneLine(writing((run) => update(run, id, olds, news)))),
        }),
    delete: (id, props) => answer(oneLine(implementation.delete(dynamicRun(), id, props))),
  };
  // The same resource's provider in the bundle, when there is one (`entry`: its name there).
  const served = (): object => {
    const bundle = bundledRuntime();
    return bundle === undefined ? own : resourceIn(bundle, entry).provider;
  };
  return new Proxy(own, { get: (_, method): unknown => Reflect.get(served(), method) });
}

/**
 * A method's answer, given once the lines it logged reached the engine (as the plugin's,
 * provider/native/server.ts): a line still on its way when the step ends is lost.
 */
async function answer<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } finally {
    await dynamicRun().linesAnswered();
  }
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
