import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { buildSync } from "esbuild";
import { configurePlugin, plain, startPlugin, struct, urnOf } from "../support/native-plugin";

// The proof that a new resource is its own files (docs/maintainers/adding-a-resource.md): a
// throwaway resource (test/fixtures/new-resource/: its module, and an emulator area of its own
// with its records and routes) is added to a copy of the tree, `gen-registry` is run there as
// a maintainer runs it, and nothing else is edited; the copy, built aside (esbuild, no type
// check: typecheck is the real tree's), then serves the resource by both doors (the dynamic
// entry states name, through the package's name, and the plugin over gRPC), its bad input
// taken from the copy's registry as the tests' table takes it, and the area's routes and records.

const execFileAsync = promisify(execFile);
const root = path.resolve(__dirname, "..", "..");
const fixtures = path.join(root, "test", "fixtures", "new-resource");

/** Every `.ts` file under `dir`, recursively. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(
      (entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"),
    )
    .map((entry) => path.join(entry.parentPath, entry.name));

/** The tree's JavaScript, as tsc would lay it out: dist/ and dist/tools/ for the scripts. */
function build(tree: string): void {
  const common = { format: "cjs", platform: "node", target: "node22", logLevel: "error" } as const;
  buildSync({
    ...common,
    entryPoints: ["provider", "emulator"].flatMap((dir) => sources(path.join(tree, dir))),
    outbase: tree,
    outdir: path.join(tree, "dist"),
  });
  buildSync({
    ...common,
    entryPoints: sources(path.join(tree, "scripts")),
    outbase: tree,
    outdir: path.join(tree, "dist", "tools"),
  });
}

/** Each test starts Node.js processes that load the whole provider or emulator. */
const processTimeoutMs = 30_000;

describe("a new resource, added as its own files", () => {
  let tree: string;

  beforeAll(async () => {
    // Under dist/: inside the repository, so that the copy finds its dependencies where the
    // tree does, and out of every tool's way.
    mkdirSync(path.join(root, "dist"), { recursive: true });
    tree = mkdtempSync(path.join(root, "dist", "new-resource-"));
    for (const dir of ["provider", "emulator", "scripts/gen-registry"]) {
      cpSync(path.join(root, dir), path.join(tree, dir), { recursive: true });
    }
    cpSync(
      path.join(root, "scripts", "gen-registry.ts"),
      path.join(tree, "scripts", "gen-registry.ts"),
    );
    cpSync(path.join(root, "package.json"), path.join(tree, "package.json"));
    for (const file of readdirSync(fixtures, { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".template")) continue;
      const target = path.join(tree, file.slice(0, -".template".length));
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(path.join(fixtures, file), target);
    }
    // The package by its name, as the states' entries require it: this copy.
    mkdirSync(path.join(tree, "node_modules"));
    symlinkSync(tree, path.join(tree, "node_modules", "pulumi-gpucloud"), "dir");
    build(tree);
    await execFileAsync(process.execPath, [path.join(tree, "dist/tools/scripts/gen-registry.js")]);
    build(tree);
  }, 60_000);

  afterAll(() => {
    rmSync(tree, { recursive: true, force: true });
  });

  it(
    "is served by the dynamic door, its class exported by the package, its bad input tried",
    async () => {
      const script = `
      const { providerShim } = require(${JSON.stringify(path.join(tree, "dist/provider/shim.js"))});
      (async () => {
        const entry = providerShim("pulumi-gpucloud/provider/resources/note");
        const checked = await entry.check({}, { text: "hello" });
        const bad = await entry.check({}, { text: 5 });
        const created = await entry.create(checked.inputs);
        const gpucloud = require("pulumi-gpucloud");
        // The tests' tables are made from the registry: its bad input, as they check it.
        const { resourceModules } = require(${JSON.stringify(path.join(tree, "dist/provider/registry.js"))});
        const { descriptor } = resourceModules.find((module) => module.name === "note");
        const tried = [];
        for (const group of descriptor.badInputs()) {
          const reasons = (await entry.check({}, group.args)).failures.map((f) => f.reason);
          tried.push(group.cases.every(({ says }) => reasons.some((reason) => says.test(reason))));
        }
        console.log(JSON.stringify({
          created,
          bad: bad.failures.map((failure) => failure.reason),
          exported: typeof gpucloud.Note,
          tried,
          recorded: descriptor.recorded().length,
        }));
      })();`;
      const { stdout } = await execFileAsync(process.execPath, ["-e", script], { cwd: tree });
      expect(JSON.parse(stdout)).toEqual({
        created: {
          id: expect.stringMatching(/^[0-9a-f]{12}$/) as string,
          outs: { text: "hello", noteId: expect.stringMatching(/^[0-9a-f]{12}$/) as string },
        },
        bad: [expect.stringMatching(/^text: /) as string],
        exported: "function",
        tried: [true],
        recorded: 1,
      });
    },
    processTimeoutMs,
  );

  it(
    "is served by the plugin: in its schema, checked and created",
    async () => {
      const plugin = await startPlugin(path.join(tree, "dist/provider/native/main.js"));
      try {
        await configurePlugin(plugin, { apiKey: "key-of-no-service", url: "http://127.0.0.1:9" });
        const schemaRequest = new provproto.GetSchemaRequest();
        const schema = JSON.parse(
          (await plugin.call<provproto.GetSchemaResponse>("getSchema", schemaRequest)).getSchema(),
        ) as { resources: Record<string, { description?: string }> };
        expect(schema.resources["gpucloud:index:Note"]?.description).toMatch(/^A note/);

        const check = new provproto.CheckRequest();
        check.setUrn(urnOf("Note", "n"));
        check.setType("gpucloud:index:Note");
        check.setName("n");
        check.setOlds(struct({}));
        check.setNews(struct({ text: "hello" }));
        const checked = await plugin.call<provproto.CheckResponse>("check", check);
        expect(checked.getFailuresList()).toEqual([]);
        const create = new provproto.CreateRequest();
        create.setUrn(urnOf("Note", "n"));
        create.setType("gpucloud:index:Note");
        create.setName("n");
        create.setProperties(checked.getInputs());
        const created = await plugin.call<provproto.CreateResponse>("create", create);
        expect(plain(created.getProperties())).toEqual({ text: "hello", noteId: created.getId() });
      } finally {
        await plugin.stop();
      }
    },
    processTimeoutMs,
  );

  it(
    "has its emulator area's routes served and its records in the state",
    async () => {
      const script = `
      const { buildEmulator } = require(${JSON.stringify(path.join(tree, "dist/emulator/index.js"))});
      (async () => {
        const app = buildEmulator({ apiKey: "k", strict: true, market: false });
        const headers = { authorization: "Bearer k" };
        const made = await app.inject({ method: "POST", url: "/api/v0/notes/", headers, payload: { text: "hi" } });
        const listed = await app.inject({ method: "GET", url: "/api/v0/notes/", headers });
        const state = await app.inject({ method: "GET", url: "/_emulator/state", headers });
        console.log(JSON.stringify({ made: made.json(), listed: listed.json(), notes: state.json().notes }));
        await app.close();
      })();`;
      const { stdout } = await execFileAsync(process.execPath, ["-e", script], { cwd: tree });
      const note = { id: 1, text: "hi" };
      expect(JSON.parse(stdout)).toEqual({ made: note, listed: { notes: [note] }, notes: [note] });
    },
    processTimeoutMs,
  );
});
