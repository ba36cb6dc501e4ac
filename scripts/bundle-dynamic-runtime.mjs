// The package's code as one file: dist/provider/dynamic-runtime.bundle.js (the dynamic door's
// anchor, every resource module and the package's API, with zod and the part of undici the
// client uses). provider/dynamic-runtime.ts loads it with V8's code cache, so that a provider
// process or a program compiles our code in the first commands after an install rather than in
// every `pulumi` command (provider/package-entry.ts for programs). A resource's module runs when
// the resource is first called: a process runs only what it serves.
//
// Built from dist/ (run after `tsc -p tsconfig.build.json`): by scripts/install-package.mjs
// before it packs, and by `npm pack` (prepack). @pulumi/pulumi stays outside: the process's
// SDK is the host's. undici's files are bundled as the version package.json pins; where the
// user's tree resolves another undici (an override), that one is loaded instead
// (`undiciAsResolved`).
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import esbuild from "esbuild";

const root = path.resolve(import.meta.dirname, "..");
const providerDir = path.join(root, "dist", "provider");

/** The resource modules, by their sources' names (dist/ may hold a removed one's output). */
function resourceNames() {
  return readdirSync(path.join(root, "provider", "resources"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => file.slice(0, -".ts".length))
    .sort();
}

/**
 * undici's files the client requires (provider/client/transport.ts): each is bundled, and
 * chosen at run time where the user's tree resolves the same version of undici, or none. The
 * tree's are required where it resolves another version (an override with a fix), or an undici
 * that does not say its version (a later layout). A patch to undici's files at the pinned
 * version (patch-package) does not apply, as to the package's own. undici's index, the client's
 * fallback for another layout, is always the tree's.
 */
export function undiciAsResolved() {
  const requireHere = createRequire(path.join(root, "package.json"));
  const bundledVersion = JSON.parse(
    readFileSync(requireHere.resolve("undici/package.json"), "utf8"),
  ).version;
  return {
    name: "undici-as-resolved",
    setup(build) {
      // The choice, made once for the three files: whether the bundled ones serve.
      build.onResolve({ filter: /^undici-as-resolved:bundled$/ }, (args) => ({
        path: args.path,
        namespace: "undici-as-resolved",
      }));
      build.onResolve({ filter: /^undici(\/|$)/ }, (args) =>
        args.path === "undici" || args.namespace === "undici-as-resolved"
          ? { path: args.path, external: true }
          : { path: args.path, namespace: "undici-as-resolved" },
      );
      build.onLoad({ filter: /.*/, namespace: "undici-as-resolved" }, (args) => ({
        resolveDir: root,
        contents:
          args.path === "undici-as-resolved:bundled"
            ? [
                `let resolved;`,
                `try { resolved = require("undici/package.json").version; }`,
                `catch (error) { resolved = error && error.code === "MODULE_NOT_FOUND" ? null : "unknown"; }`,
                `module.exports = resolved === null || resolved === ${JSON.stringify(bundledVersion)};`,
              ].join("\n")
            : [
                `module.exports = require("undici-as-resolved:bundled")`,
                `  ? require(${JSON.stringify(requireHere.resolve(args.path))})`,
                `  : require(${JSON.stringify(args.path)});`,
              ].join("\n"),
      }));
    },
  };
}

/** Writes the bundle; returns its path. */
export async function bundleDynamicRuntime() {
  const entry = [
    `exports.runtime = require("./provider-runtime.js");`,
    // Each resource's module when first called (the entries, provider/shim.ts).
    `exports.resources = {`,
    ...resourceNames().map(
      (name) => `  get ${JSON.stringify(name)}() { return require("./resources/${name}.js"); },`,
    ),
    `};`,
    // What the package's entry exports to a program (provider/package-entry.ts), made when
    // first read: a provider process never runs the index or the functions.
    `Object.defineProperty(exports, "api", { enumerable: true, get: () => require("./index.js") });`,
  ].join("\n");
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: providerDir, sourcefile: "dynamic-runtime-entry.js" },
    bundle: true,
    write: false,
    platform: "node",
    format: "cjs",
    // The package's oldest Node.js (package.json's engines).
    target: "node22",
    external: ["@pulumi/pulumi", "@pulumi/pulumi/*"],
    plugins: [undiciAsResolved()],
    // A script compiled by vm.Script has no loader for `import()`: the SDK's dynamic imports
    // (provider/run/progress.ts) become requires of the same module.
    supported: { "dynamic-import": false },
    // The bundle is the runtime: its provider-runtime hands nothing on to a bundle.
    define: { GPUCLOUD_DYNAMIC_RUNTIME_BUNDLE: "true" },
    logLevel: "warning",
  });
  const [output] = result.outputFiles;
  // A code cache a process made of an earlier bundle here is never packed with this one.
  rmSync(path.join(providerDir, "dynamic-runtime.cache"), { recursive: true, force: true });
  const file = path.join(providerDir, "dynamic-runtime.bundle.js");
  writeFileSync(file, output.contents);
  return file;
}

if (process.argv[1] === import.meta.filename) {
  const file = await bundleDynamicRuntime();
  process.stdout.write(`[bundle-dynamic-runtime] ${path.relative(root, file)}\n`);
}
