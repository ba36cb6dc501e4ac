import v8 from "node:v8";
import vm from "node:vm";
import type * as pulumi from "@pulumi/pulumi";
import type { GpuCloudClient } from "./client";
import type { ConfigSource, ProviderConfig } from "./config";

/**
 * The state of the dynamic-provider process: the configuration the engine handed to
 * `configure`, and one client built from it. It lives here, in the package, so that nothing
 * of it (least of all the key) is ever serialized into a resource's state.
 */
let configSource: ConfigSource | undefined;
let client: GpuCloudClient | undefined;

/** A resource provider's methods, as the engine calls them: the process's first names its kind. */
export type ProviderCall = "check" | "diff" | "create" | "read" | "update" | "delete";

/** Whether the collection of {@link releaseSdkLoadMemory} waits for the process's first call. */
let collectionAwaitsFirstCall = false;

/**
 * Called once per resource type with the same stack configuration: the first call's is kept,
 * so that every resource type shares one client (and its shared list reads). The first call
 * also sets {@link providerProcessV8Flags}, which hold for the whole process.
 *
 * The entry modules (provider/shim.ts) pass `"at-first-call"` and call {@link beforeCall}
 * before each method, so that the collection after the SDK's load can suit the operation. The
 * forwarders that 0.1.0 wrote into states by value pass nothing: the collection then comes
 * at once, as it did in 0.1.0.
 */
export function configure(
  request: pulumi.dynamic.ConfigureRequest,
  collection: "now" | "at-first-call" = "now",
): void {
  if (configSource === undefined) {
    for (const flag of providerProcessV8Flags) v8.setFlagsFromString(flag);
    collectionAwaitsFirstCall = true;
  }
  configSource ??= request.config;
  if (collection === "now") beforeCall("check");
}

/**
 * Called by the entry modules before each method, before they load the resource's module: the
 * process's first call runs {@link releaseSdkLoadMemory}, of the kind that call's operation
 * needs. A process whose first call is a `read` serves a `pulumi refresh`, which creates
 * nothing. A collection of the young generation alone (about 3 ms, against 36) frees the SDK's
 * short-lived garbage and keeps the young generation's size, which the reads then fill less
 * often. Refresh of 200 takes 1.12–1.14 × the floor instead of 1.17, for a peak of 152–153 MB
 * instead of 134 at N = 10 (the floor's: 135) and 169–171 instead of 143 at N = 200 (the
 * floor's: 156). Every other first call (a check for `up` and `preview`, a delete for
 * `destroy`) gets the collection that shrinks the young generation: for `up`, keeping it left
 * the peak at 153–154 MB (the floor's: 134). An operation run with `--refresh` reads first and
 * then writes in the same process, with the larger young generation (not benchmarked).
 */
export function beforeCall(call: ProviderCall): void {
  if (!collectionAwaitsFirstCall) return;
  collectionAwaitsFirstCall = false;
  releaseSdkLoadMemory(call === "read" ? "minor" : "last-resort");
}

/**
 * Hands back to the system what loading the SDK left behind, once, before the provider's first
 * request. The SDK's load grows the young generation (`new_space`) to 32 MB, and V8 shrinks it
 * only in a collection of the whole heap that is asked to reduce memory (`"last-resort"`). The
 * young generation then starts again at 1 MB, and the growth factor of 1 in
 * {@link providerProcessV8Flags} keeps it small. It must come before the provider's own modules
 * load (see {@link configModule}): the provider's peak then falls from about 164 to 134–138 MB
 * at N = 10 (the floor's: 132–135) and from 179 to 144–151 MB at N = 200 (`npm run bench`).
 * The price is time: the collection takes about 36 ms (see below), and V8 collects more often
 * afterwards (the README's performance notes weigh both). A `"minor"` collection frees the
 * young generation's garbage and keeps its size: {@link beforeCall} chooses.
 *
 * V8 offers such a collection only through its `gc` extension, which exists in contexts created
 * while `--expose-gc` is set: unless the process was started with it, it is set for one new
 * context and unset again, so the process's global object (and any context created later) has
 * no `gc`. A V8 without the extension or the option skips the collection: memory, never
 * correctness, depends on it.
 */
export function releaseSdkLoadMemory(collection: "minor" | "last-resort"): void {
  const collect = gcExtension();
  if (collect === undefined) return;
  if (collection === "minor") {
    collect({ type: "minor" });
    return;
  }
  // A collection that reduces memory also sets the old generation's next limit tight (1.1 × what
  // survives), and the provider's own load, just after, would cross it at once: one or two
  // more full collections per run. Twice what survives (for this collection only) avoids them:
  // 40–120 ms less CPU per run, the same peak. Without compaction (moving the old generation's
  // objects together, which frees no memory the peak depends on) it takes 36 instead of 45 ms.
  v8.setFlagsFromString("--heap-growing-percent=100");
  v8.setFlagsFromString("--no-compact");
  try {
    collect({ type: "major", flavor: "last-resort" });
  } finally {
    v8.setFlagsFromString("--compact");
    v8.setFlagsFromString("--heap-growing-percent=0");
  }
}

/** V8's `gc` extension, with the options its source (`gc-extension.cc`) reads. */
type GcExtension = (options: { type: "minor" } | { type: "major"; flavor: "last-resort" }) => void;

function gcExtension(): GcExtension | undefined {
  let found: unknown = Reflect.get(globalThis, "gc");
  if (typeof found !== "function") {
    v8.setFlagsFromString("--expose-gc");
    try {
      found = vm.runInNewContext("typeof gc === 'function' ? gc : undefined");
    } finally {
      v8.setFlagsFromString("--no-expose-gc");
    }
  }
  return typeof found === "function" ? (found as GcExtension) : undefined;
}

/**
 * V8 flags the dynamic-provider process sets at its first `configure`, before its first request:
 * they bound its peak memory (the README's performance notes give the figures). They hold for
 * the whole process, which the engine starts for one `pulumi` operation to serve the stack's
 * dynamic resources: the user's own dynamic resources in the same program share them, and run
 * with the same smaller young generation. (Tests that call `configure` set them in their worker.)
 *
 * - undici parses HTTP with WebAssembly (llhttp). After two or three replies V8 recompiles the
 *   parser's main function with its optimizing compiler: 70 ms of CPU and a 23 MB allocation
 *   peak (`--trace-wasm-compilation-times`), for a process that parses a few hundred small
 *   replies. A tiering budget no run reaches (V8 counts about a byte executed per unit) keeps
 *   the parser on the baseline compiler, for WebAssembly compiled after it is set.
 * - V8 doubles its young generation when much of what it allocates survives a collection, as a
 *   run's replies and checks do while resources are in flight. A growth factor of 1 keeps it
 *   near the 1 MB it has after {@link releaseSdkLoadMemory}, so that short-lived garbage is
 *   collected more often instead of held.
 */
export const providerProcessV8Flags: readonly string[] = [
  "--wasm-tiering-budget=2000000000",
  "--semi-space-growth-factor=1",
];

/**
 * The configuration's module, loaded at its first use rather than with this module. Through it
 * come zod and the client, the bulk of the provider's load, and what a module allocates while it
 * loads lands in V8's young generation: loaded before {@link releaseSdkLoadMemory}, they filled
 * the 32 MB the SDK's load left it, and the process's peak was reached there (about 153 MB at
 * N = 10, against 135 for the floor). Loaded after the collection, into the shrunk young
 * generation, they leave the peak near the floor's (`npm run bench`). The entry modules'
 * `configure` (provider/shim.ts) loads the runtime, and nothing else of the package, before
 * calling it; test/unit/provider-process-flags.test.ts checks the order.
 */
function configModule(): typeof import("./config") {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require("./config") as typeof import("./config");
}

/** The configured client; throws, saying how to set it, when configuration is missing. */
export function providerClient(): GpuCloudClient {
  if (client !== undefined) return client;
  const { clientFor, resolveConfig } = configModule();
  client = clientFor(resolveConfig(configSource), {
    onRetry: (event) => {
      // Debug-level: what was retried and why, never a credential or a body.
      void import("@pulumi/pulumi").then((sdk) =>
        sdk.log.debug(
          `gpucloud: retry ${event.retry} of ${event.endpoint} in ${event.delayMs} ms (${event.reason})`,
        ),
      );
    },
  });
  return client;
}

// One verification per provider process (one `pulumi` operation), shared by every check.
let verification: Promise<string | undefined> | undefined;

/**
 * The configuration and credentials, checked once per run on the first check that asks: a
 * missing or malformed setting, an address where nothing answers (within 3 s), an address that
 * is not this API, a refused key. The problem becomes one check failure without a stack trace;
 * every check of the run reports it, so that nothing proceeds to write with a broken setup.
 */
export async function configurationFailures(): Promise<pulumi.dynamic.CheckFailure[]> {
  verification ??= (async () => {
    const { resolveConfig, verifyConfiguration } = configModule();
    let config: ProviderConfig;
    try {
      config = resolveConfig(configSource);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    return verifyConfiguration(config);
  })();
  const problem = await verification;
  return problem === undefined ? [] : [{ property: "", reason: problem }];
}

/**
 * Shows a progress line in `pulumi up`'s display, on the stack's row (a dynamic provider is
 * not told which resource it is working on). The dynamic-provider process is given the
 * engine's address as its first argument but does not hand it to the SDK's logger, so it is
 * handed over here, once. Progress is best effort: a line that cannot be sent is dropped.
 */
export function reportProgress(message: string): void {
  void import("@pulumi/pulumi")
    .then(async (sdk) => {
      const engineAddress = process.argv[2];
      if (!sdk.runtime.hasEngine() && engineAddress && /^[\w.[\]:-]+:\d+$/.test(engineAddress)) {
        // The organization is not known to a provider process; it is not used for logging.
        sdk.runtime.resetOptions(
          sdk.getProject(),
          sdk.getStack(),
          -1,
          engineAddress,
          "",
          false,
          "",
        );
      }
      await sdk.log.info(`gpucloud: ${message}`);
    })
    .catch(() => undefined);
}
