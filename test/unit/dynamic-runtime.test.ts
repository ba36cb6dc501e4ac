import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import {
  type DynamicRuntime,
  loadDynamicRuntime,
  useRuntimeInThisProcess,
} from "../../provider/dynamic-runtime";
import { configure } from "../../provider/provider-runtime";
import { providerShim } from "../../provider/shim";
import { repoRoot } from "../support/repo-root";

const execFileAsync = promisify(execFile);

// A bundle as scripts/bundle-dynamic-runtime.mjs writes one: CommonJS, with its digest beside.
const bundleText = (answer: string) => `"use strict";
const path = require("node:path");
exports.runtime = { configure() {} };
exports.resources = {
  secret: { provider: { read: async (id) => ({ id, props: { answer: ${JSON.stringify(answer)}, dir: path.basename(__dirname) } }) } },
};
`;

function writeBundle(dir: string, answer: string): void {
  writeFileSync(path.join(dir, "dynamic-runtime.bundle.js"), bundleText(answer));
}

const loaded = z.object({
  cache: z.enum(["none", "used", "rejected"]),
  props: z.unknown(),
  cacheFiles: z.array(z.string()),
});

/** What a load of the bundle in `dir` answering `answer` reports, its cache's part `cache`. */
const loadedAs = (cache: string, answer: string, dir: string): unknown =>
  expect.objectContaining({ cache, props: { answer, dir: path.basename(dir) } });

/** Loads the bundle in `dir` in a new Node.js process, as a provider process does (dist/). */
async function loadInProcess(
  dir: string,
  options: { writeCache?: boolean } = {},
): Promise<z.infer<typeof loaded>> {
  const script = `
const fs = require("node:fs");
const { loadDynamicRuntime } = require("./dist/provider/dynamic-runtime.js");
const [dir, write] = process.argv.slice(1);
const runtime = loadDynamicRuntime(dir);
runtime.runtime.resources.secret.provider.read("s1", {}).then(({ props }) => {
  if (write === "write") runtime.writeCache();
  let cacheFiles = [];
  try { cacheFiles = fs.readdirSync(dir + "/dynamic-runtime.cache"); } catch {}
  console.log(JSON.stringify({ cache: runtime.cache, props, cacheFiles }));
});
`;
  const { stdout } = await execFileAsync(
    process.execPath,
    ["-e", script, dir, options.writeCache ? "write" : ""],
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
      props: { answer: "first", dir: path.basename(dir) },
      cacheFiles: [expect.stringMatching(/^[0-9a-f]{16}-v[0-9.]+-[a-z0-9]+\.bin$/)],
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

  it("takes a damaged cache for none, and writes it anew", async () => {
    writeBundle(dir, "first");
    const { cacheFiles } = await loadInProcess(dir, { writeCache: true });
    writeFileSync(
      path.join(dir, "dynamic-runtime.cache", cacheFiles[0] ?? ""),
      Buffer.alloc(64, 7),
    );
    expect(await loadInProcess(dir, { writeCache: true })).toEqual(
      loadedAs("rejected", "first", dir),
    );
    expect((await loadInProcess(dir)).cache).toBe("used");
  });

  it("writes nothing, and fails nothing, where it may not write", () => {
    writeBundle(dir, "first");
    // A file where the cache's folder would be: no folder can be made there.
    writeFileSync(path.join(dir, "dynamic-runtime.cache"), "");
    const loaded = loadDynamicRuntime(dir);
    expect(loaded?.cache).toBe("none");
    expect(() => {
      loaded?.writeCache();
    }).not.toThrow();
    expect(readdirSync(dir).sort()).toEqual(["dynamic-runtime.bundle.js", "dynamic-runtime.cache"]);
  });

  it("says which file is not a runtime", () => {
    writeFileSync(path.join(dir, "dynamic-runtime.bundle.js"), "exports.other = 1;");
    expect(() => loadDynamicRuntime(dir)).toThrow(
      `${path.join(dir, "dynamic-runtime.bundle.js")} does not export the runtime and the resources' providers`,
    );
  });
});

describe("the module copies, where the package ships the bundle", () => {
  const names = readdirSync(path.join(repoRoot, "provider", "resources"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => file.slice(0, -".ts".length));
  const configured: unknown[] = [];
  const bundle: DynamicRuntime = {
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
    useRuntimeInThisProcess({ runtime: bundle.runtime, resources: {} });
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
