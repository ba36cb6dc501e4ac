import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { cachedDataVersionTag } from "node:v8";
import { Script } from "node:vm";
import type * as pulumi from "@pulumi/pulumi";

/**
 * The package's code, as it ships it: one file, `dynamic-runtime.bundle.js` beside this module
 * (the dynamic door's anchor, every resource module and the package's API, with zod;
 * scripts/bundle-dynamic-runtime.mjs), compiled with V8's code cache of it.
 *
 * Every `pulumi` command starts a new provider process, and `preview` and `up` a new program,
 * each of which compiled our 250 modules and zod before its first answer or resource: about
 * 0.1 s of a 1 s `refresh`. With the code cache a process deserializes what an earlier one
 * compiled instead. The bundle runs a resource's module when the resource is first called, and
 * V8 compiles a function when it first runs: a cache holds what its process had run, so it is
 * written after the process ran something (a resource's method, the API), and again by a later
 * process that runs something the cache was not made after (a `refresh` after an `up`: the
 * resources' reads). Only this file's code is cached, through its own `vm.Script`: the process's
 * other modules (the SDK's, the user's own) load as they would without us, and no flag, hook or
 * global changes (Node.js's compile cache would apply to the whole process). The cache lives
 * beside the bundle, in a folder of the package, so it is as trusted as the code itself: where
 * the package's folder is read-only, nothing is written and the bundle compiles as modules do.
 */
export interface DynamicRuntime {
  readonly runtime: { readonly configure: (request: pulumi.dynamic.ConfigureRequest) => void };
  readonly resources: Readonly<Record<string, { readonly provider: ResourceProviderLike }>>;
  /**
   * The package's API (provider/index.ts), as the package's entry exports it to programs; its
   * modules run when it is first read.
   */
  readonly api: object;
}

/**
 * A resource module's `provider`, as the entries call it: every method they forward (a resource
 * without `update` is never asked to update: its diff replaces).
 */
export type ResourceProviderLike = Required<
  Pick<pulumi.dynamic.ResourceProvider, "check" | "diff" | "create" | "read" | "update" | "delete">
>;

/** What loading the bundle found, for the tests: the code cache's part in it. */
export type CodeCacheUse = "none" | "used" | "rejected";

export interface LoadedRuntime {
  readonly runtime: DynamicRuntime;
  readonly cache: CodeCacheUse;
  readonly cacheFile: string;
  /**
   * What the process that wrote the used cache had run of the bundle (`secret.read`, `api`):
   * what that cache holds compiled. Empty where no cache was used.
   */
  readonly cachedAfter: ReadonlySet<string>;
  /**
   * Writes the code cache of what the process has compiled so far, recording that it was made
   * after running `ran` (which a later process reads as `cachedAfter`); returns whether it
   * wrote. Never a cache smaller than the one used or last written: V8 drops the compiled code
   * of functions a process has not run for a while, so a busy process's later cache may hold
   * less than the one it loaded, and the parts it records would then be claimed for nothing.
   */
  readonly writeCache: (ran: Iterable<string>) => boolean;
}

/**
 * The bundle in `dir` with its code cache, or undefined where there is none (the modules, as
 * the tests run them from the sources). A cache of other code (another version's, an edited
 * bundle, another Node.js's) is never used: its name holds the digest of the bundle's text as
 * read (V8 itself checks only the text's length), Node.js's version, the architecture and V8's
 * tag of what a cache must match (its version, flags and CPU features). The tag keeps one cache
 * for each kind of process: the SDK turns on a V8 flag in a program (for its closure
 * serializer) but not in a provider process, and each rejects a cache the other made, so one
 * shared file would be rewritten by every process in turn.
 */
export function loadDynamicRuntime(dir: string): LoadedRuntime | undefined {
  const bundleFile = path.join(dir, bundleName);
  const source = readOrUndefined(bundleFile);
  if (source === undefined) return undefined;
  const digest = createHash("sha256").update(source).digest("hex");
  const cacheFile = path.join(
    dir,
    "dynamic-runtime.cache",
    `${digest.slice(0, 16)}-${process.version}-${process.arch}-${cachedDataVersionTag().toString(16)}.bin`,
  );
  const kept = readOrUndefined(cacheFile);
  const cached = kept === undefined ? undefined : unsealed(kept);
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source.toString("utf8")}\n})`,
    { filename: bundleFile, ...(cached === undefined ? {} : { cachedData: cached.data }) },
  );
  const module: { exports: unknown } = { exports: {} };
  const wrapper: unknown = script.runInThisContext();
  if (typeof wrapper !== "function") throw new Error(`${bundleFile} is not a module`);
  wrapper.call(module.exports, module.exports, createRequire(bundleFile), module, bundleFile, dir);
  // A kept cache that is damaged (cached undefined) or that V8 refuses is rejected alike.
  const cache =
    kept === undefined ? "none" : cached && !script.cachedDataRejected ? "used" : "rejected";
  let largestBytes = cache === "used" ? (cached?.data.length ?? 0) : 0;
  return {
    runtime: asDynamicRuntime(module.exports, bundleFile),
    cache,
    cacheFile,
    cachedAfter: new Set(cache === "used" ? cached?.ranBefore : []),
    writeCache: (ran) =>
      writeAtomically(cacheFile, () => {
        const data = script.createCachedData();
        // By size, a heuristic: a larger cache may still lack some code of the parts it
        // inherits, which later processes then compile (slower, never wrong: V8 compiles what
        // a cache lacks).
        if (data.length < largestBytes) return undefined;
        largestBytes = data.length;
        return sealed([...ran].sort(), data);
      }),
  };
}

/** The bundle's file, beside this module (scripts/bundle-dynamic-runtime.mjs). */
const bundleName = "dynamic-runtime.bundle.js";

// Defined (true) in the bundle: it is the runtime, and loads none.
declare const GPUCLOUD_DYNAMIC_RUNTIME_BUNDLE: boolean | undefined;

/** Whether this is the bundle's copy of the module (scripts/bundle-dynamic-runtime.mjs). */
export const insideTheBundle = typeof GPUCLOUD_DYNAMIC_RUNTIME_BUNDLE === "boolean";

/** The process's bundle, and what its code cache holds of it (the parts run before it). */
interface ProcessRuntime {
  readonly runtime: DynamicRuntime;
  readonly loaded: LoadedRuntime | undefined;
  /** Parts the used cache was made after, then those of the caches this process wrote. */
  readonly cached: Set<string>;
  /** Parts run since, which the write now due adds (it is due while any are here). */
  readonly uncached: Set<string>;
  /** `first`: none tried yet; `over`: one was not written (smaller, or no folder to write). */
  writes: "first" | "later" | "over";
}

let processRuntime: ProcessRuntime | null | undefined;

const runtimeOfProcess = (runtime: DynamicRuntime, loaded?: LoadedRuntime): ProcessRuntime => ({
  runtime,
  loaded,
  cached: new Set(loaded?.cachedAfter),
  uncached: new Set(),
  writes: "first",
});

/**
 * This process's bundled runtime (loaded by the package's entry in a program, at the first call
 * of an entry in a provider process), or undefined where the package has none or this module
 * runs in a context of its own. Kept for the process, as `require` keeps a module.
 */
export function bundledRuntime(): DynamicRuntime | undefined {
  if (insideTheBundle) return undefined;
  if (processRuntime === undefined) {
    const loaded = runsInMainContext() ? loadDynamicRuntime(__dirname) : undefined;
    processRuntime = loaded === undefined ? null : runtimeOfProcess(loaded.runtime, loaded);
  }
  return processRuntime?.runtime;
}

/**
 * Notes that the process ran `part` of its bundle (`<resource>.<method>`, a call it answered;
 * `api`, the package's API made). A part its cache was not made after has compiled code the
 * cache lacks: the cache is written anew, with what every part run so far compiled. The
 * process's first such write comes at once, before its answer; later ones shortly after
 * (parts run within `cacheWriteDelayMs` share one write). Once the cache was made after every
 * part a process runs, nothing is written.
 */
export function ranInBundle(part: string): void {
  const current = processRuntime;
  const loaded = current?.loaded;
  if (!current || !loaded || current.writes === "over") return;
  if (current.cached.has(part) || current.uncached.has(part)) return;
  current.uncached.add(part);
  const write = () => {
    if (current.writes === "over") return;
    const parts = new Set([...current.cached, ...current.uncached]);
    current.uncached.clear();
    if (!loaded.writeCache(parts)) {
      current.writes = "over";
      return;
    }
    current.writes = "later";
    for (const written of parts) current.cached.add(written);
  };
  // At once the first time: a process may be stopped as soon as its only answer arrives (a
  // `refresh` of one resource), and each like it would compile the same code again.
  if (current.writes === "first") {
    write();
    return;
  }
  if (current.uncached.size > 1) return;
  // Later parts come in bursts (a refresh's reads of each kind): one write each, early, as a
  // provider process is stopped soon after its last answer (a `refresh`, 20 ms after).
  setTimeout(write, cacheWriteDelayMs).unref();
}

/** How long after a part the process had not cached its cache is written (for the tests too). */
export const cacheWriteDelayMs = 20;

/**
 * Whether this module runs in the process's main context, where the bundle's script runs. A
 * Jest test's modules run in a context of their own, with their own registry of modules: the
 * bundle there would extend another copy of the SDK than the one the test mocks
 * (`pulumi.runtime.setMocks`), with another realm's objects, so the modules serve instead.
 */
export function runsInMainContext(): boolean {
  return new Script("Object").runInThisContext() === Object;
}

/**
 * A resource in the bundle. A bundle without it is not this package's (built before the
 * resource was added, or an entry misnamed): the modules' copy would hold a second run, so
 * the call fails, saying what to rebuild.
 */
export function resourceIn(
  runtime: DynamicRuntime,
  name: string,
): { readonly provider: ResourceProviderLike } {
  const resource = runtime.resources[name];
  if (resource === undefined) {
    throw new Error(
      `the package's bundled runtime has no resource "${name}": rebuild it ` +
        "(node scripts/bundle-dynamic-runtime.mjs, or reinstall the package)",
    );
  }
  return resource;
}

/**
 * Sets the runtime this process's entries and module copies hand their calls to (undefined:
 * none, the modules serve). For the tests, which run from the sources, where there is no bundle.
 */
export function useRuntimeInThisProcess(runtime: DynamicRuntime | undefined): void {
  processRuntime = runtime === undefined ? null : runtimeOfProcess(runtime);
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Written beside and renamed over, so a process reading it meets a whole cache or none; a
 * folder it may not write (a read-only install) leaves the bundle uncached, silently. `data`
 * is made only once the file could be opened (V8's serializing is about 10 ms), and may
 * decline (undefined). Returns whether the file was written.
 */
function writeAtomically(file: string, data: () => Buffer | undefined): boolean {
  // A name of its own: two threads of one process (a test runner's workers) may write at once.
  const partial = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.partial`;
  let descriptor: number;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    descriptor = openSync(partial, "wx");
  } catch {
    return false;
  }
  let written = false;
  try {
    const bytes = data();
    if (bytes !== undefined) {
      writeFileSync(descriptor, bytes);
      // Closed once, even should closing fail: the number may be another file's by then.
      const closing = descriptor;
      descriptor = -1;
      closeSync(closing);
      renameSync(partial, file);
      written = true;
    }
  } catch {
    // Nothing written: no cache, as where the folder is read-only.
  } finally {
    if (descriptor !== -1) {
      ignoringFailure(() => {
        closeSync(descriptor);
      });
    }
    // What cannot be removed, a later write removes once it is old.
    if (!written) {
      ignoringFailure(() => {
        rmSync(partial, { force: true });
      });
    }
  }
  if (written) removeLeftPartials(path.dirname(file));
  return written;
}

function ignoringFailure(step: () => void): void {
  try {
    step();
  } catch {
    // Best effort: the cache is an optimization.
  }
}

/**
 * What processes stopped in the middle of a write left (the engine stops a provider process
 * soon after its last answer): a write takes milliseconds, so a partial file a minute old is no
 * process's any more. Each is the size of a cache (about 1.4 MB).
 */
function removeLeftPartials(folder: string): void {
  const now = Date.now();
  let names: string[] = [];
  ignoringFailure(() => {
    names = readdirSync(folder);
  });
  for (const name of names.filter((each) => each.endsWith(".partial"))) {
    const file = path.join(folder, name);
    // Another process may remove it first: each is left to the next write on its own.
    ignoringFailure(() => {
      if (now - statSync(file).mtimeMs > leftPartialAgeMs) rmSync(file, { force: true });
    });
  }
}

const leftPartialAgeMs = 60_000;

/**
 * The cache as kept: its SHA-256, then the length of the list of parts run before it was made
 * (4 bytes), that list (JSON), then V8's data. V8 checks the data's length, version and flags,
 * not its bytes: a damaged cache of the right length would run (and fail) as code.
 */
function sealed(ranBefore: readonly string[], data: Buffer): Buffer {
  const list = Buffer.from(JSON.stringify(ranBefore));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(list.length);
  const content = Buffer.concat([length, list, data]);
  return Buffer.concat([createHash("sha256").update(content).digest(), content]);
}

/** A kept cache's parts and V8's data, or undefined where it is damaged. */
function unsealed(kept: Buffer): { ranBefore: string[]; data: Buffer } | undefined {
  const content = kept.subarray(digestBytes);
  const digest = createHash("sha256").update(content).digest();
  if (content.length < 4 || !digest.equals(kept.subarray(0, digestBytes))) return undefined;
  const listEnd = 4 + content.readUInt32LE(0);
  const ranBefore = partsIn(content.subarray(4, listEnd));
  const data = content.subarray(listEnd);
  return ranBefore !== undefined && data.length > 0 ? { ranBefore, data } : undefined;
}

// By hand, not with zod: this module loads in every program, which compiles nothing else of ours.
function partsIn(list: Buffer): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(list.toString("utf8"));
    if (!Array.isArray(parsed)) return undefined;
    const parts: unknown[] = parsed;
    return parts.every((part): part is string => typeof part === "string") ? parts : undefined;
  } catch {
    return undefined;
  }
}

const digestBytes = 32;

function asDynamicRuntime(exports: unknown, file: string): DynamicRuntime {
  const fail = (): never => {
    throw new Error(`${file} does not export the runtime, the resources' providers and the API`);
  };
  if (typeof exports !== "object" || exports === null) return fail();
  if (!("runtime" in exports) || !("resources" in exports)) return fail();
  const { runtime, resources } = exports;
  if (typeof runtime !== "object" || runtime === null || !("configure" in runtime)) return fail();
  if (typeof runtime.configure !== "function") return fail();
  if (typeof resources !== "object" || resources === null) return fail();
  // The API is made when first read (a provider process never reads it).
  if (!("api" in exports)) return fail();
  return exports as DynamicRuntime;
}
