import { execFile } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
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
    // As the package's entries load it: the bundle beside the module.
    const runParts = (...parts: string[]) =>
      execFileAsync(
        process.execPath,
        [
          "-e",
          `const runtime = require(process.argv[1]);
runtime.bundledRuntime();
for (const part of process.argv.slice(2)) runtime.ranInBundle(part);
// After the write that is due: timers of one delay run in the order they were set.
setTimeout(() => {}, runtime.cacheWriteDelayMs);`,
          path.join(dir, "dynamic-runtime.js"),
          ...parts,
        ],
        { cwd: repoRoot },
      );

    // Loaded, nothing run: nothing worth a cache.
    await runParts();
    expect(await cacheFile()).toBeUndefined();
    await runParts("secret.create");
    expect(await loadInProcess(dir)).toMatchObject({
      cache: "used",
      cachedAfter: ["secret.create"],
    });
    const afterCreate = await cacheFile();
    // Only parts the cache was made after: the same cache.
    await runParts("secret.create");
    expect(await cacheFile()).toEqual(afterCreate);
    // A part it was not: written anew, after both.
    await runParts("secret.read", "secret.create");
    expect(await loadInProcess(dir)).toMatchObject({
      cache: "used",
      cachedAfter: ["secret.create", "secret.read"],
    });
    expect(await cacheFile()).not.toEqual(afterCreate);
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

  /** What the bundled client's `require` of undici's pool gives where the tree has `version`. */
  async function poolWhereTreeHas(version: string): Promise<string> {
    const tree = path.join(dir, version, "node_modules", "undici");
    mkdirSync(path.join(tree, "lib", "dispatcher"), { recursive: true });
    writeFileSync(path.join(tree, "package.json"), JSON.stringify({ name: "undici", version }));
    writeFileSync(
      path.join(tree, "lib", "dispatcher", "pool.js"),
      `module.exports = "the tree's";`,
    );
    const bundle = path.join(dir, version, "bundle.js");
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
    expect(await poolWhereTreeHas(pinned)).toBe("bundled Pool");
  });

  it("is the tree's where the tree resolves another version (an override)", async () => {
    expect(await poolWhereTreeHas("99.0.0")).toBe("the tree's");
  });
});
