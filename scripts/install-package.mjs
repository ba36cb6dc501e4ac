// Installs this package into the repository's own node_modules/pulumi-gpucloud from a packed
// tarball (`npm pack`), as a real directory: the way a user's project holds it.
//
// Why not a link: the examples, the demo, the benchmark and the end-to-end tests (whose temporary
// projects link to this copy) must run as users do, their modules resolved from node_modules as
// in a user's project (each resource's state requires `pulumi-gpucloud/dynamic/<name>`).
//
// Like npm, it links each of the package's `bin` entries into node_modules/.bin (relative links
// into the copy, e.g. .bin/pulumi-resource-gpucloud → ../pulumi-gpucloud/dist/bin/pulumi-
// resource-gpucloud.js), so the native plugin is found where an installed package puts it: the
// YAML example's `plugins.providers[].path` and the YAML end-to-end tests point at
// node_modules/.bin.
//
// Usage: node scripts/install-package.mjs [--tarball-dir DIR]
// Run after `tsc -p tsconfig.build.json`. Prints one JSON line: {"tarball", "dir", "installed"}
// (`installed` is false when the copy already held this build). The tarball is written to
// DIR (default: a new temporary directory) and kept, for tests that install it elsewhere.
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { bundleDynamicRuntime } from "./bundle-dynamic-runtime.mjs";

const root = path.resolve(import.meta.dirname, "..");
const { values } = parseArgs({ options: { "tarball-dir": { type: "string" } }, strict: true });
const tarballDir = values["tarball-dir"] ?? mkdtempSync(path.join(tmpdir(), "gpucloud-pack-"));
mkdirSync(tarballDir, { recursive: true });

if (!existsSync(path.join(root, "dist", "provider", "index.js"))) {
  throw new Error("dist/ is missing: run tsc -p tsconfig.build.json first");
}
// The bundled runtime the package ships beside dist/ (built from it, as prepack does).
await bundleDynamicRuntime();
const [packed] = JSON.parse(
  // --ignore-scripts: the caller has just compiled and bundled; prepack would do both again.
  execFileSync(
    "npm",
    ["pack", "--json", "--loglevel=error", "--ignore-scripts", "--pack-destination", tarballDir],
    { cwd: root, encoding: "utf8" },
  ),
);
const tarball = path.join(tarballDir, packed.filename);

const modules = path.join(root, "node_modules");
const target = path.join(modules, "pulumi-gpucloud");
const stampFile = ".gpucloud-pack-shasum";
const isRealDir = (dir) => {
  try {
    return lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
};
const current =
  isRealDir(target) && existsSync(path.join(target, stampFile))
    ? readFileSync(path.join(target, stampFile), "utf8").trim()
    : undefined;

let installed = false;
if (current !== packed.shasum) {
  // Unpacked beside the target, then swapped in with renames: a concurrent reader sees the old
  // copy or the new one, never half of one.
  const fresh = path.join(modules, `.pulumi-gpucloud-new-${process.pid}`);
  const old = path.join(modules, `.pulumi-gpucloud-old-${process.pid}`);
  rmSync(fresh, { recursive: true, force: true });
  mkdirSync(fresh);
  execFileSync("tar", ["-xzf", tarball, "-C", fresh, "--strip-components=1"]);
  writeFileSync(path.join(fresh, stampFile), `${packed.shasum}\n`);
  let previous;
  try {
    previous = lstatSync(target);
  } catch {
    // Nothing there yet.
  }
  if (previous) renameSync(target, old);
  renameSync(fresh, target);
  // An earlier layout linked node_modules/pulumi-gpucloud to the checkout: remove the link only.
  if (previous?.isSymbolicLink()) unlinkSync(old);
  else if (previous) rmSync(old, { recursive: true, force: true });
  installed = true;
}

// The bin links, as npm makes them; each one replaced by a rename, so a concurrent reader never
// finds it missing. Like npm, the targets are made executable (the tarball keeps the bit only
// where tsc's output had it).
const binDir = path.join(modules, ".bin");
mkdirSync(binDir, { recursive: true });
const { bin = {} } = JSON.parse(readFileSync(path.join(target, "package.json"), "utf8"));
for (const [name, file] of Object.entries(bin)) {
  const link = path.join(binDir, name);
  const linkTarget = path.join("..", "pulumi-gpucloud", path.normalize(file));
  chmodSync(path.join(target, file), 0o755);
  let existing;
  try {
    existing = readlinkSync(link);
  } catch {
    // Missing, or not a link.
  }
  if (existing === linkTarget) continue;
  const temporary = path.join(binDir, `.${name}-${process.pid}`);
  rmSync(temporary, { force: true });
  symlinkSync(linkTarget, temporary);
  renameSync(temporary, link);
}
process.stdout.write(`${JSON.stringify({ tarball, dir: target, installed })}\n`);
