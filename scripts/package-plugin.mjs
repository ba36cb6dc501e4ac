// `npm run package-plugin`: the native plugin and the emulator as standalone executables, each ONE
// file with its own Node.js runtime (Node's single executable applications), packed as
//
//   dist/packages/pulumi-resource-gpucloud-v<version>-linux-amd64.tar.gz   (for `pulumi plugin
//       install resource gpucloud <version> --file <tarball>`; a binary plugin needs no
//       PulumiPlugin.yaml: the executable alone at the archive's root)
//   dist/packages/gpucloud-emulator-v<version>-linux-amd64.tar.gz
//
// so that Python, Go and YAML users (and their CI) need neither Node.js nor npm.
//
// Each program goes through four steps:
//   1. bundle: its compiled code (dist/, what the npm package ships) and every dependency into
//      one CommonJS file (esbuild). Inside a single executable `require` loads only Node's
//      built-in modules: whatever is not in the bundle cannot be loaded
//      (provider/client/transport.ts requires undici's files by literal names for that reason).
//      The version is written into the bundle: there is no package.json.
//   2. blob: the bundle and V8's code cache for it as a preparation blob (`node
//      --experimental-sea-config`).
//   3. executable: a copy of the Node binary running this script, the blob injected (postject).
//   4. tarball: the executable alone at the archive's root.
//
// Incremental: the bundle, this Node binary, the version and this script are hashed; when a
// tarball's stamp holds the same hash, the tarball is reused and steps 2-4 are skipped (the
// bundle is always made: it takes about a second and is what decides).
//
// Usage: node scripts/package-plugin.mjs, with Node 22+, after `tsc -p tsconfig.build.json`
// (`npm run package-plugin` builds first, with the project's toolchain). Prints each tarball's
// path on stdout, the plugin's on the last line; progress goes to stderr.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { bundle, programs, root } from "./bundle-program.mjs";

const outDir = path.join(root, "dist", "packages");
// Node's documented sentinel: postject flips it so that the binary runs the injected blob.
const seaFuse = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
const postjectCli = createRequire(import.meta.url).resolve("postject/dist/cli.js");

const log = (message) => process.stderr.write(`[package-plugin] ${message}\n`);
const megabytes = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const sha256 = (...parts) => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
};

/**
 * Runs a tool, its output shown only when it fails: stdout is reserved for the tarballs' paths,
 * and postject warns about ELF note sections its ELF library cannot name (nodejs/postject#83),
 * a dozen lines for an executable that works.
 */
function run(command, args) {
  try {
    execFileSync(command, args, { stdio: "pipe", encoding: "utf8" });
  } catch (error) {
    throw new Error(
      `${path.basename(command)} ${args.join(" ")} failed:\n${error.stdout}${error.stderr}`,
    );
  }
}

/** Steps 2-4: blob, executable, tarball; the tarball replaces any older one at once. */
function packageExecutable(name, code, tarball, buildDir) {
  const bundleFile = path.join(buildDir, `${name}.js`);
  const blobFile = path.join(buildDir, `${name}.blob`);
  const configFile = path.join(buildDir, `${name}.sea-config.json`);
  const stageDir = path.join(buildDir, name);
  const executable = path.join(stageDir, name);
  writeFileSync(bundleFile, code);
  const config = {
    main: bundleFile,
    output: blobFile,
    disableExperimentalSEAWarning: true,
    // V8's compiled code for the bundle, made now: the plugin starts in about 400 ms instead of
    // 560 on a 2-core machine, for 1 MB more.
    useCodeCache: true,
  };
  writeFileSync(configFile, JSON.stringify(config));
  run(process.execPath, ["--experimental-sea-config", configFile]);
  mkdirSync(stageDir, { recursive: true });
  copyFileSync(process.execPath, executable);
  chmodSync(executable, 0o755);
  run(process.execPath, [
    postjectCli,
    executable,
    "NODE_SEA_BLOB",
    blobFile,
    "--sentinel-fuse",
    seaFuse,
  ]);
  const partial = `${tarball}.${process.pid}.partial`;
  // gzip's fastest level: these tarballs are the tests' and the demo's, made on every fresh clone
  // (about 12 s of CPU less for the two at level 6, for 11% more bytes); the release's are
  // scripts/release.mjs's.
  run("tar", [
    "--create",
    "--use-compress-program=gzip -1",
    "--file",
    partial,
    "--owner=0",
    "--group=0",
    "--numeric-owner",
    "--directory",
    stageDir,
    name,
  ]);
  renameSync(partial, tarball);
  return statSync(executable).size;
}

async function main() {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `only linux-amd64 executables are made; this is ${process.platform}-${process.arch}`,
    );
  }
  for (const { entry } of programs) {
    if (!existsSync(path.join(root, entry))) {
      throw new Error(`${entry} is missing: run tsc -p tsconfig.build.json first`);
    }
  }
  const { version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  if (typeof version !== "string") throw new Error("package.json has no version");
  mkdirSync(outDir, { recursive: true });
  const fixedInputs = sha256(
    version,
    readFileSync(process.execPath),
    readFileSync(import.meta.filename),
  );
  const buildDir = path.join(outDir, `.build-${process.pid}`);
  const paths = [];
  try {
    for (const { name, entry } of programs) {
      const started = Date.now();
      const tarball = path.join(outDir, `${name}-v${version}-linux-amd64.tar.gz`);
      const stamp = `${tarball}.inputs-sha256`;
      const code = await bundle(entry, version);
      const inputs = sha256(fixedInputs, code);
      const unchanged =
        existsSync(tarball) && existsSync(stamp) && readFileSync(stamp, "utf8").trim() === inputs;
      if (unchanged) {
        log(`${name}: inputs unchanged, reusing ${path.relative(root, tarball)}`);
      } else {
        mkdirSync(buildDir, { recursive: true });
        const size = packageExecutable(name, code, tarball, buildDir);
        writeFileSync(stamp, `${inputs}\n`);
        log(
          `${name}: bundle ${megabytes(code.length)}, executable ${megabytes(size)}, ` +
            `tarball ${megabytes(statSync(tarball).size)} in ${Date.now() - started} ms`,
        );
      }
      paths.push(tarball);
    }
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
  process.stdout.write(`${paths.join("\n")}\n`);
}

await main();
