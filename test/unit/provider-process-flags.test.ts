import { execFile } from "node:child_process";
import v8 from "node:v8";
import { promisify } from "node:util";
import vm from "node:vm";
import { z } from "zod";
import { providerProcessV8Flags, releaseSdkLoadMemory } from "../../provider/provider-runtime";
import { repoRoot } from "../support/pulumi-stack";

const execFileAsync = promisify(execFile);

// A process that, like a provider process, sets the flags it is given and then parses HTTP
// replies with undici; V8 traces each WebAssembly function it compiles, and with which compiler.
const parseRepliesWithUndici = `
const v8 = require("node:v8");
for (const flag of JSON.parse(process.env.V8_FLAGS)) v8.setFlagsFromString(flag);
const http = require("node:http");
const { Pool } = require("undici");
const body = JSON.stringify({ user: { id: 1, balance: 12.5, email: "dev@example.com" } });
const server = http.createServer((_, res) => res.setHeader("content-type", "application/json").end(body));
server.listen(0, "127.0.0.1", async () => {
  const pool = new Pool("http://127.0.0.1:" + server.address().port);
  for (let i = 0; i < 200; i++) await (await pool.request({ path: "/", method: "GET" })).body.json();
  await pool.close();
  server.close();
});
`;

// A process that allocates, as a run does, objects that survive a young-generation collection.
const allocateSurvivors = `
const v8 = require("node:v8");
for (const flag of JSON.parse(process.env.V8_FLAGS)) v8.setFlagsFromString(flag);
let kept = [];
for (let i = 0; i < 2e6; i++) {
  kept.push({ i });
  if (kept.length > 2e5) kept = [];
}
const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
console.log(newSpace.space_size);
`;

// A process that, as a provider process does, configures the package (from dist/) through a
// secret's provider and makes a first call (FIRST=check or read). It lists the modules loaded
// when the collection begins (it sets --expose-gc just before) and the V8 flags set from then
// on: the shrinking collection sets --no-compact for its duration, the young generation's
// does not. ENTRY=dynamic takes the provider from its entry module, ENTRY=0.1.0 from the
// forwarder that 0.1.0 wrote into states by value (as the SDK does).
const modulesAtCollection = `
const v8 = require("node:v8");
const setFlags = v8.setFlagsFromString;
let atCollection;
const flagsFromCollection = [];
v8.setFlagsFromString = (flag) => {
  if (flag === "--expose-gc") atCollection ??= Object.keys(require.cache);
  if (atCollection) flagsFromCollection.push(flag);
  return setFlags.call(v8, flag);
};
function provider() {
  if (process.env.ENTRY === "dynamic") return require("./dist/provider/dynamic/secret.js");
  const shims = JSON.parse(require("node:fs").readFileSync("test/fixtures/provider-shims-0.1.0.json", "utf8"));
  const serialized = { exports: {} };
  new Function("exports", "require", "module", shims.Secret)(serialized.exports, require, serialized);
  return serialized.exports.handler();
}
const secret = provider();
const config = { get: () => undefined, require: () => "" };
const firstCall = () =>
  process.env.FIRST === "read"
    ? secret.read("A", { key: "A", value: "v" }).then(
        () => [],
        (error) => [{ property: "", reason: error.message }],
      )
    : secret.check({}, { key: "A", value: "v" }).then(({ failures }) => failures);
secret.configure({ config })
  .then(firstCall)
  .then((failures) => {
    const atEnd = Object.keys(require.cache);
    console.log(JSON.stringify({ atCollection, flagsFromCollection, failures, atEnd }));
  });
`;

// Without the GPUCLOUD_* settings of the shell that runs the tests: a child reads none.
async function runNode(
  flags: readonly string[],
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<string> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("GPUCLOUD_")),
  );
  const { stdout } = await execFileAsync(process.execPath, args, {
    cwd: repoRoot,
    env: { ...env, ...extraEnv, V8_FLAGS: JSON.stringify(flags) },
  });
  return stdout;
}

// Tier-up compiles run on the main thread, so none is still pending when the process ends. Only
// from V8 13 (Node.js 24): V8 12 (Node.js 22) then tiers up every function, one after another,
// for seconds; there its single background compile has finished well within the 200 replies.
const syncTierUp = Number(process.versions.v8.split(".")[0]) >= 13 ? ["--wasm-sync-tier-up"] : [];

async function compilersUsed(flags: readonly string[]): Promise<string[]> {
  const trace = await runNode(flags, [
    "--trace-wasm-compilation-times",
    ...syncTierUp,
    "-e",
    parseRepliesWithUndici,
  ]);
  return [...trace.matchAll(/^Compiled function \S+ using (\w+)/gm)].map((match) => match[1] ?? "");
}

async function youngGenerationBytes(flags: readonly string[]): Promise<number> {
  return Number(await runNode(flags, ["-e", allocateSurvivors]));
}

const config = { get: () => undefined, require: () => "" };

// A runtime module of its own: its state (configured or not, collection pending) is per process.
function freshRuntime(): typeof import("../../provider/provider-runtime") {
  let runtime: typeof import("../../provider/provider-runtime") | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    runtime = require("../../provider/provider-runtime") as typeof runtime;
  });
  if (runtime === undefined) throw new Error("provider-runtime did not load");
  return runtime;
}

// Recorded, not applied: this worker goes on to run other test files.
function recordFlags(): jest.SpyInstance {
  return jest.spyOn(v8, "setFlagsFromString").mockImplementation(() => undefined);
}

describe("the provider process's V8 flags", () => {
  it("keep undici's HTTP parser on V8's baseline compiler", async () => {
    const [without, withFlags] = await Promise.all([
      compilersUsed([]),
      compilersUsed(providerProcessV8Flags),
    ]);
    // Without them, V8 recompiles the parser with its optimizing compiler (TurboFan).
    expect(without).toContain("TurboFan");
    expect(withFlags).toContain("Liftoff");
    expect(withFlags).not.toContain("TurboFan");
  });

  it("keep V8's young generation from growing", async () => {
    const [without, withFlags] = await Promise.all([
      youngGenerationBytes([]),
      youngGenerationBytes(providerProcessV8Flags),
    ]);
    // Without them it doubles up to its maximum (32 MB on Node.js 22, 64 MB on 24). With them
    // it starts at 1 MB and stays near that (V8 still adjusts it a little: up to 10 MB measured
    // on a loaded machine).
    expect(without).toBeGreaterThan(16 * 2 ** 20);
    expect(withFlags).toBeLessThanOrEqual(16 * 2 ** 20);
  });

  it("are set once, at the process's first configure; the collection waits for the first call", () => {
    const runtime = freshRuntime();
    const setFlags = recordFlags();
    try {
      runtime.configure({ config }, "at-first-call");
      runtime.configure({ config }, "at-first-call");
      expect(setFlags.mock.calls).toEqual(providerProcessV8Flags.map((flag) => [flag]));
      runtime.beforeCall("read");
      runtime.beforeCall("check");
      expect(setFlags.mock.calls.slice(providerProcessV8Flags.length)).toEqual(
        ["--expose-gc", "--no-expose-gc"].map((flag) => [flag]),
      );
    } finally {
      setFlags.mockRestore();
    }
  });

  it("are followed by the shrinking collection at once when a 0.1.0 forwarder configures", () => {
    const runtime = freshRuntime();
    const setFlags = recordFlags();
    const collect = jest.fn();
    // Found on the global object, as when the process was started with --expose-gc.
    Reflect.set(globalThis, "gc", collect);
    try {
      runtime.configure({ config });
      expect(collect.mock.calls).toEqual([[{ type: "major", flavor: "last-resort" }]]);
      runtime.beforeCall("read");
      runtime.configure({ config });
      expect(collect).toHaveBeenCalledTimes(1);
      expect(setFlags.mock.calls.slice(0, providerProcessV8Flags.length)).toEqual(
        providerProcessV8Flags.map((flag) => [flag]),
      );
    } finally {
      Reflect.deleteProperty(globalThis, "gc");
      setFlags.mockRestore();
    }
  });
});

describe("the collection's kind", () => {
  it.each([
    ["read", { type: "minor" }],
    ["check", { type: "major", flavor: "last-resort" }],
    ["delete", { type: "major", flavor: "last-resort" }],
    ["create", { type: "major", flavor: "last-resort" }],
  ] as const)("is chosen by the first call: %s → %j", (call, collection) => {
    const runtime = freshRuntime();
    const setFlags = recordFlags();
    const collect = jest.fn();
    // Found on the global object, as when the process was started with --expose-gc.
    Reflect.set(globalThis, "gc", collect);
    try {
      runtime.configure({ config }, "at-first-call");
      expect(collect).not.toHaveBeenCalled();
      runtime.beforeCall(call);
      runtime.beforeCall(call === "read" ? "check" : "read");
      expect(collect.mock.calls).toEqual([[collection]]);
    } finally {
      Reflect.deleteProperty(globalThis, "gc");
      setFlags.mockRestore();
    }
  });
});

// What loading the SDK does to the provider process's young generation: objects that survive
// collections make V8 grow it (to 32 MB for the SDK). With V8's own growth factor: tests that
// ran `configure` in this worker before may have set it to 1.
function growYoungGeneration(): void {
  v8.setFlagsFromString("--semi-space-growth-factor=2");
  let kept: { i: number }[] = [];
  for (let i = 0; i < 2e6; i++) {
    kept.push({ i });
    if (kept.length > 2e5) kept = [];
  }
  expect(youngGenerationCapacity()).toBeGreaterThan(8 * 2 ** 20);
}

function youngGenerationUsed(): number {
  const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
  return newSpace?.space_used_size ?? 0;
}

function youngGenerationCapacity(): number {
  const newSpace = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
  return newSpace?.space_size ?? 0;
}

describe("the collection after the SDK's load", () => {
  it.each([
    ["dynamic", "check", "the shrinking one"],
    ["dynamic", "read", "the young generation's"],
    ["0.1.0", "check", "the shrinking one"],
    ["0.1.0", "read", "the shrinking one"],
  ])(
    "comes before the provider loads zod and the client (%s forwarders, first call %s): %s",
    async (entry, first, kind) => {
      const stdout = await runNode([], ["-e", modulesAtCollection], {
        ENTRY: entry,
        FIRST: first,
      });
      const { atCollection, flagsFromCollection, failures, atEnd } = z
        .object({
          atCollection: z.array(z.string()),
          flagsFromCollection: z.array(z.string()),
          failures: z.array(z.object({ property: z.string(), reason: z.string() })),
          atEnd: z.array(z.string()),
        })
        .parse(JSON.parse(stdout));
      const zodOrClient = (file: string) =>
        /[\\/]node_modules[\\/]zod[\\/]/.test(file) ||
        /[\\/]dist[\\/]provider[\\/](config\.js|client[\\/]|resources[\\/])/.test(file);
      expect(atCollection.filter(zodOrClient)).toEqual([]);
      expect(flagsFromCollection.includes("--no-compact")).toBe(kind === "the shrinking one");
      // Loaded at their first use, after it: the configuration is still read and checked.
      expect(atEnd.filter(zodOrClient).length).toBeGreaterThan(0);
      expect(failures.map((failure) => failure.property)).toEqual([""]);
      expect(failures[0]?.reason).toContain("gpucloud:apiKey is not set");
    },
  );

  it("shrinks a grown young generation to its starting size and leaves no gc behind", () => {
    expect(vm.runInNewContext("typeof gc")).toBe("undefined");
    growYoungGeneration();

    const setFlags = jest.spyOn(v8, "setFlagsFromString");
    try {
      releaseSdkLoadMemory("last-resort");
      // The heap growth it sets for its collection is V8's own again afterwards.
      expect(setFlags.mock.calls.at(-1)).toEqual(["--heap-growing-percent=0"]);
    } finally {
      setFlags.mockRestore();
    }

    expect(youngGenerationCapacity()).toBeLessThanOrEqual(2 ** 20);
    // Exposed for one context only: the process's global object and later contexts have none.
    expect(Reflect.get(globalThis, "gc")).toBeUndefined();
    expect(vm.runInNewContext("typeof gc")).toBe("undefined");
  });

  it("keeps a grown young generation when it is a minor one (before a refresh's reads)", () => {
    growYoungGeneration();
    // Garbage the collection must free: allocated, then dropped.
    let garbage: { i: number }[] = [];
    for (let i = 0; i < 1e5; i++) garbage.push({ i });
    garbage = [];
    const usedBefore = youngGenerationUsed() + garbage.length;
    releaseSdkLoadMemory("minor");
    expect(youngGenerationUsed()).toBeLessThan(usedBefore);
    expect(youngGenerationCapacity()).toBeGreaterThan(8 * 2 ** 20);
    expect(Reflect.get(globalThis, "gc")).toBeUndefined();
  });
});
