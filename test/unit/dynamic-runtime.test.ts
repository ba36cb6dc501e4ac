import { execFile } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import {
  type DynamicRuntime,
  loadDynamicRuntime,
  runsInMainContext,
  useRuntimeInThisProcess,
} from "../../provider/dynamic-runtime";
import { configure } from "../../provider/provider-runtime";
import { providerShim } from "../../provider/shim";
import { repoRoot } from "../support/repo-root";

const execFileAsync = promisify(execFile);

// A bundle as scripts/bundle-dynamic-runtime.mjs writes one: CommonJS.
const bundleText = (answer: string) => `"use strict";
const path = require("node:path");
exports.runtime = { configure() {} };
exports.resources = {
  secret: { provider: { read: async (id) => ({ id, props: { answer: ${JSON.stringify(answer)}, dir: path.basename(__dirname) } }) } },
};
exports.api = { answer: ${JSON.stringify(answer)} };
`;

function writeBundle(dir: string, answer: string): void {
  writeFileSync(path.join(dir, "dynamic-runtime.bundle.js"), bundleText(answer));
}

const loaded = z.object({
  cache: z.enum(["none", "used", "rejected"]),
  cachedAfter: z.array(z.string()),
  props: z.unknown(),
  cacheFiles: z.array(z.string()),
});

/** What a load of the bundle in `dir` answering `answer` reports, its cache's part `cache`. */
const loadedAs = (cache: string, answer: string, dir: string): unknown =>
  expect.objectContaining({ cache, props: { answer, dir: path.basename(dir) } });

/** Loads the bundle in `dir` in a new Node.js process, as a provider process does (dist/). */
async function loadInProcess(
  dir: string,
  options: { writeCache?: boolean; nodeFlags?: readonly string[] } = {},
): Promise<z.infer<typeof loaded>> {
  const script = `
const fs = require("node:fs");
const { loadDynamicRuntime } = require("./dist/provider/dynamic-runtime.js");
const [dir, write] = process.argv.slice(1);
const runtime = loadDynamicRuntime(dir);
runtime.runtime.resources.secret.provider.read("s1", {}).then(({ props }) => {
  if (write === "write") runtime.writeCache(["secret.read"]);
  let cacheFiles = [];
  try { cacheFiles = fs.readdirSync(dir + "/dynamic-runtime.cache"); } catch {}
  console.log(JSON.stringify({ cache: runtime.cache, cachedAfter: [...runtime.cachedAfter], props, cacheFiles }));
});
`;
  const { stdout } = await execFileAsync(
    process.execPath,
    [...(options.nodeFlags ?? []), "-e", script, dir, options.writeCache ? "write" : ""],
    { cwd: repoRoot },
  );
  return loaded.parse(JSON.parse(stdout));
}

describe("the bundled dynamic runtime", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "gpucloud-dynamic-runtime-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("is none where the package has no bundle (the sources)", () => {
    expect(loadDynamicRuntime(dir)).toBeUndefined();
  });

  // Each load in a process of its own: V8 keeps a process's compiled scripts by their source,
  // and a second load in the same process would not read the cache at all.
  it("loads as a module, then from the code cache an earlier process wrote", async () => {
    writeBundle(dir, "first");
    expect(await loadInProcess(dir, { writeCache: true })).toEqual({
      cache: "none",
      cachedAfter: [],
      props: { answer: "first", dir: path.basename(dir) },
      cacheFiles: [expect.stringMatching(/^[0-9a-f]{16}-v[0-9.]+-[a-z0-9]+-[0-9a-f]+\.bin$/)],
    });
    expect(await loadInProcess(dir)).toEqual(loadedAs("used", "first", dir));
  });

  it("never runs a cache of other code: another bundle's is not its own", async () => {
    writeBundle(dir, "first");
    await loadInProcess(dir, { writeCache: true });
    // Same length, other code (an edited bundle): V8 alone would take the cache, as it checks
    // only the source's length.
    writeBundle(dir, "later");
    expect(await loadInProcess(dir)).toEqual(loadedAs("none", "later", dir));
  });

  // A program runs with a V8 flag the SDK turns on (for its closure serializer), a provider
  // process without: each rejects the other's cache, so each keeps its own.
  it("keeps a cache for each kind of process, rather than each rewriting the other's", async () => {
    writeBundle(dir, "first");
    const program = { nodeFlags: ["--allow-natives-syntax"] };
    await loadInProcess(dir, { writeCache: true });
    expect(await loadInProcess(dir, { ...program, writeCache: true })).toEqual(
      loadedAs("none", "first", dir),
    );
    expect(await loadInProcess(dir)).toEqual(loadedAs("used", "first", dir));
    const used = await loadInProcess(dir, program);
    expect(used).toEqual(loadedAs("used", "first", dir));
    expect(used.cacheFiles).toHaveLength(2);
  });

  // V8 checks a cache's length, version and flags, not its bytes: damage of the same length
  // would run as code.
  it.each([
    ["cut short", (kept: Buffer) => kept.subarray(0, 64)],
    [
      "damaged within, of the same length",
      (kept: Buffer) => kept.map((byte, at) => (at > 96 ? byte ^ 0xff : byte)),
    ],
  ])("takes a cache %s for none, and writes it anew", async (_how, damage) => {
    writeBundle(dir, "first");
    const { cacheFiles } = await loadInProcess(dir, { writeCache: true });
    const file = path.join(dir, "dynamic-runtime.cache", cacheFiles[0] ?? "");
    writeFileSync(file, damage(readFileSync(file)));
    expect(await loadInProcess(dir, { writeCache: true })).toEqual(
      loadedAs("rejected", "first", dir),
    );
    expect((await loadInProcess(dir)).cache).toBe("used");
  });

  // What a `refresh` compiles (the reads) after an `up` wrote the cache is cached too.
  it("is cached after the parts a process ran, and again after a part it had not", async () => {
    writeBundle(dir, "first");
    copyFileSync(
      path.join(repoRoot, "dist", "provider", "dynamic-runtime.js"),
      path.join(dir, "dynamic-runtime.js"),
    );
    // The file's inode: a cache written anew is renamed over the old one.
    const cacheFile = async (): Promise<number | undefined> => {
      const [file] = (await loadInProcess(dir)).cacheFiles;
      return file === undefined
        ? undefined
        : statSync(path.join(dir, "dynamic-runtime.cache", file)).ino;
    };
    // As the package's entries load it: the bundle beside the module. `stop`: the process
    // ends at once after its parts (as the engine may stop a provider after its last answer),
    // else after the write that is due (timers of one delay run in the order they were set).
    const runParts = (stop: "at once" | "later", ...parts: string[]) =>
      execFileAsync(
        process.execPath,
        [
          "-e",
          `const runtime = require(process.argv[1]);
runtime.bundledRuntime();
for (const part of process.argv.slice(3)) runtime.ranInBundle(part);
if (process.argv[2] === "at once") process.exit(0);
setTimeout(() => {}, runtime.cacheWriteDelayMs);`,
          path.join(dir, "dynamic-runtime.js"),
          stop,
          ...parts,
        ],
        { cwd: repoRoot },
      );

    // Loaded, nothing run: nothing worth a cache.
    await runParts("later");
    expect(await cacheFile()).toBeUndefined();
    // The first cache is written before the answer: a process stopped right after it leaves one.
    await runParts("at once", "secret.create");
    expect(await loadInProcess(dir)).toMatchObject({
      cache: "used",
      cachedAfter: ["secret.create"],
    });
    const afterCreate = await cacheFile();
    // Only parts the cache was made after: the same cache.
    await runParts("later", "secret.create");
    expect(await cacheFile()).toEqual(afterCreate);
    // A part it was not: written anew, after both.
    await runParts("later", "secret.read", "secret.create");
    expect(await loadInProcess(dir)).toMatchObject({
      cache: "used",
      cachedAfter: ["secret.create", "secret.read"],
    });
    expect(await cacheFile()).not.toEqual(afterCreate);
    // Several it was not: the first written at once, the others together, shortly after.
    const secretParts = ["secret.check", "secret.create", "secret.delete", "secret.diff"];
    await runParts("later", "secret.delete", "secret.check", "secret.diff");
    expect((await loadInProcess(dir)).cachedAfter).toEqual([...secretParts, "secret.read"]);
    // Stopped at once: only the first was written.
    await runParts("at once", "volume.read", "volume.create");
    expect((await loadInProcess(dir)).cachedAfter).toEqual([
      ...secretParts,
      "secret.read",
      "volume.read",
    ]);
  });

  // V8 drops the compiled code of functions a process has not run for a while (made to at once
  // here): a later cache of a busy process may hold less than the one it loaded.
  it("never replaces its cache with a smaller one, nor records parts for it", async () => {
    writeBundle(dir, "first");
    copyFileSync(
      path.join(repoRoot, "dist", "provider", "dynamic-runtime.js"),
      path.join(dir, "dynamic-runtime.js"),
    );
    const read = `const runtime = require(process.argv[1]);
runtime.bundledRuntime().resources.secret.provider.read("s1").then(() => {`;
    const run = (script: string) =>
      execFileAsync(process.execPath, ["-e", script, path.join(dir, "dynamic-runtime.js")], {
        cwd: repoRoot,
      });
    await run(`${read} runtime.ranInBundle("secret.read"); });`);
    await run(`${read}
  const v8 = require("node:v8");
  v8.setFlagsFromString("--stress-flush-code");
  v8.setFlagsFromString("--expose-gc");
  const gc = require("node:vm").runInNewContext("gc");
  for (let i = 0; i < 20; i++) gc();
  runtime.ranInBundle("secret.create");
});`);
    expect(await loadInProcess(dir)).toMatchObject({ cache: "used", cachedAfter: ["secret.read"] });
  });

  // The engine may stop a provider process in the middle of a write.
  it("removes what a process stopped while writing left, once it is a minute old", async () => {
    writeBundle(dir, "first");
    const cacheDir = path.join(dir, "dynamic-runtime.cache");
    mkdirSync(cacheDir);
    const left = path.join(cacheDir, "some-cache.bin.4242.a1b2c3.partial");
    const writing = path.join(cacheDir, "some-cache.bin.4343.d4e5f6.partial");
    writeFileSync(left, "left");
    writeFileSync(writing, "another process's write, under way");
    const minutesAgo = new Date(Date.now() - 5 * 60_000);
    utimesSync(left, minutesAgo, minutesAgo);
    const { cacheFiles } = await loadInProcess(dir, { writeCache: true });
    // Sorted: the cache's name begins with a hex digest.
    expect([...cacheFiles].sort()).toEqual([
      expect.stringMatching(/^[0-9a-f]{16}-.*\.bin$/),
      "some-cache.bin.4343.d4e5f6.partial",
    ]);
  });

  it("writes nothing, and fails nothing, where it may not write", () => {
    writeBundle(dir, "first");
    // A file where the cache's folder would be: no folder can be made there.
    writeFileSync(path.join(dir, "dynamic-runtime.cache"), "");
    const loaded = loadDynamicRuntime(dir);
    expect(loaded?.cache).toBe("none");
    expect(() => {
      loaded?.writeCache([]);
    }).not.toThrow();
    expect(readdirSync(dir).sort()).toEqual(["dynamic-runtime.bundle.js", "dynamic-runtime.cache"]);
  });

  it("says which file is not a runtime", () => {
    writeFileSync(path.join(dir, "dynamic-runtime.bundle.js"), "exports.other = 1;");
    expect(() => loadDynamicRuntime(dir)).toThrow(
      `${path.join(dir, "dynamic-runtime.bundle.js")} does not export the runtime, the resources' providers and the API`,
    );
  });
});

describe("the package's entry", () => {
  let dir: string;
  beforeEach(() => {
    // The entry and the loader as built, beside a bundle and a modules' index of their own.
    dir = mkdtempSync(path.join(tmpdir(), "gpucloud-package-entry-"));
    for (const file of ["package-entry.js", "dynamic-runtime.js"]) {
      copyFileSync(path.join(repoRoot, "dist", "provider", file), path.join(dir, file));
    }
    writeBundle(dir, "bundle");
    writeFileSync(path.join(dir, "index.js"), `exports.answer = "modules";\n`);
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const inProcess = async (args: readonly string[]): Promise<string> =>
    (await execFileAsync(process.execPath, [...args], { cwd: dir })).stdout.trim();

  it("is the bundle's API in a program, by require and by import", async () => {
    expect(await inProcess(["-p", `require("./package-entry.js").answer`])).toBe("bundle");
    // The program's cache, once the API was made.
    expect(await loadInProcess(dir)).toMatchObject({ cache: "used", cachedAfter: ["api"] });
    // Node.js names an ES module's imports from the entry's text: the modules' index's names.
    const imported = `import { answer } from "./package-entry.js"; console.log(answer);`;
    expect(await inProcess(["--input-type=module", "-e", imported])).toBe("bundle");
  });

  it("is the modules' API in a context of its own (a Jest test, whose SDK it mocks)", () => {
    expect(runsInMainContext()).toBe(false);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect(require(path.join(dir, "package-entry.js"))).toEqual({ answer: "modules" });
  });
});

describe("the entries, where the package ships the bundle", () => {
  let dir: string;
  beforeEach(() => {
    // The entry of secrets, the shim and the loader as built, beside a bundle of their own.
    dir = mkdtempSync(path.join(tmpdir(), "gpucloud-entries-"));
    mkdirSync(path.join(dir, "dynamic"));
    for (const file of ["shim.js", "dynamic-runtime.js", path.join("dynamic", "secret.js")]) {
      copyFileSync(path.join(repoRoot, "dist", "provider", file), path.join(dir, file));
    }
    writeFileSync(
      path.join(dir, "dynamic-runtime.bundle.js"),
      `exports.runtime = { configure() {} };
exports.resources = { secret: { provider: {
  read: async (id) => ({ id, props: {} }),
  create: async () => { throw new Error("refused"); },
} } };
exports.api = {};
`,
    );
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  // What a failed call ran may be none of what succeeding runs.
  it("have the cache made after the calls they answered, not those that failed", async () => {
    const calls = `
const entry = require(process.argv[1]);
entry.create({}).then(() => { throw new Error("created"); }, () => entry.read("s1", {}));`;
    await execFileAsync(process.execPath, ["-e", calls, path.join(dir, "dynamic", "secret.js")], {
      cwd: dir,
      // The shim's SDK, from the repository's modules.
      env: { ...process.env, NODE_PATH: path.join(repoRoot, "node_modules") },
    });
    expect(await loadInProcess(dir)).toMatchObject({
      cache: "used",
      cachedAfter: ["secret.read"],
    });
  });
});

describe("the module copies, where the package ships the bundle", () => {
  const names = readdirSync(path.join(repoRoot, "provider", "resources"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => file.slice(0, -".ts".length));
  const configured: unknown[] = [];
  const bundle: DynamicRuntime = {
    api: {},
    runtime: { configure: (request) => void configured.push(request.config) },
    resources: Object.fromEntries(
      names.map((name) => [
        name,
        {
          provider: {
            check: async () => ({ inputs: { from: name } }),
            diff: async () => ({}),
            create: async () => ({ id: name }),
            read: async (id: string) => ({ id: `${name}:${id}` }),
            update: async () => ({}),
            delete: async () => {},
          },
        },
      ]),
    ),
  };
  beforeAll(() => {
    useRuntimeInThisProcess(bundle);
  });
  afterAll(() => {
    useRuntimeInThisProcess(undefined);
  });

  // Today's states name the entries; those earlier releases copied into states require the
  // modules by path: either way, one process holds one run, the bundle's.
  it.each(names)("%s: its entry and its module copy call it in the bundle", async (name) => {
    const entry = providerShim(`pulumi-gpucloud/provider/resources/${name}`);
    expect(await entry.read?.("7", {})).toEqual({ id: `${name}:7` });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { provider } = require(`../../provider/resources/${name}`) as {
      provider: pulumi.dynamic.ResourceProvider;
    };
    expect(await provider.read?.("7")).toEqual({ id: `${name}:7` });
    expect(await provider.check?.({}, {})).toEqual({ inputs: { from: name } });
  });

  it("a bundle without the resource fails the call rather than make a second run", async () => {
    useRuntimeInThisProcess({ ...bundle, resources: {} });
    try {
      const entry = providerShim("pulumi-gpucloud/provider/resources/secret");
      await expect(entry.read?.("7", {})).rejects.toThrow(
        `the package's bundled runtime has no resource "secret": rebuild it`,
      );
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { provider } = require("../../provider/resources/secret") as {
        provider: pulumi.dynamic.ResourceProvider;
      };
      expect(() => provider.read).toThrow(`has no resource "secret"`);
    } finally {
      useRuntimeInThisProcess(bundle);
    }
  });

  it("configure goes to the bundle's run", () => {
    const request = {
      config: new Map<string, string>(),
    } as unknown as pulumi.dynamic.ConfigureRequest;
    configure(request);
    expect(configured).toEqual([request.config]);
  });
});

// The bundle carries undici's files at the version package.json pins; a user's override of
// undici (a release with a fix) must still be the one that runs.
describe("the bundle's undici", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "gpucloud-bundle-undici-"));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * What the bundled client's `require` of undici's pool gives where the tree's undici has this
   * manifest (none: no undici in the tree).
   */
  async function poolWhereTreeHas(name: string, manifest?: object): Promise<string> {
    const tree = path.join(dir, name, "node_modules", "undici");
    mkdirSync(path.join(tree, "lib", "dispatcher"), { recursive: true });
    if (manifest === undefined) {
      rmSync(tree, { recursive: true });
    } else {
      writeFileSync(path.join(tree, "package.json"), JSON.stringify(manifest));
      writeFileSync(
        path.join(tree, "lib", "dispatcher", "pool.js"),
        `module.exports = "the tree's";`,
      );
    }
    const bundle = path.join(dir, name, "bundle.js");
    const build = `
import esbuild from "esbuild";
import { undiciAsResolved } from "./scripts/bundle-dynamic-runtime.mjs";
await esbuild.build({
  stdin: { contents: 'module.exports = require("undici/lib/dispatcher/pool.js");', resolveDir: process.cwd() },
  bundle: true, platform: "node", format: "cjs", outfile: process.argv[1], logLevel: "error",
  plugins: [undiciAsResolved()],
});`;
    await execFileAsync(process.execPath, ["--input-type=module", "-e", build, bundle], {
      cwd: repoRoot,
    });
    const { stdout } = await execFileAsync(process.execPath, [
      "-p",
      `const pool = require(process.argv[1]); typeof pool === "function" ? "bundled " + pool.name : pool`,
      bundle,
    ]);
    return stdout.trim();
  }

  it("is the bundled one where the tree resolves the version it pins", async () => {
    const pinned = z
      .object({ dependencies: z.object({ undici: z.string() }) })
      .parse(JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")))
      .dependencies.undici;
    expect(await poolWhereTreeHas("pinned", { name: "undici", version: pinned })).toBe(
      "bundled Pool",
    );
    expect(await poolWhereTreeHas("none")).toBe("bundled Pool");
  });

  it("is the tree's where the tree resolves another version (an override)", async () => {
    expect(await poolWhereTreeHas("other", { name: "undici", version: "99.0.0" })).toBe(
      "the tree's",
    );
    // One whose exports do not say its version: not known to be the same.
    const silent = {
      name: "undici",
      version: "99.0.0",
      exports: { "./lib/dispatcher/pool.js": "./lib/dispatcher/pool.js" },
    };
    expect(await poolWhereTreeHas("silent", silent)).toBe("the tree's");
  });
});
