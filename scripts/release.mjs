// `npm run release -- --out DIR [--targets linux-amd64,...]`: every artifact of the version in
// package.json, in DIR (RELEASING.md):
//
//   pulumi-resource-gpucloud-v<version>-<os>-<arch>.tar.gz   the plugin, alone at the root
//   gpucloud-emulator-v<version>-<os>-<arch>.tar.gz          the emulator likewise
//   pulumi-gpucloud-<version>.tgz                            the npm package (npm pack)
//   pulumi-gpucloud-gpucloud-<version>.tgz                   the plugin's Node.js SDK, npm's
//                                                            @pulumi-gpucloud/gpucloud (built by
//                                                            scripts/build-nodejs-sdk.mjs)
//   pulumi_gpucloud-<version>-py3-none-<platform>.whl        per target, with both executables
//   pulumi_gpucloud-<version>-py3-none-any.whl               the pure wheel
//   schema.json                                              what the plugin serves
//   goproxy/<module>/@v/v<version>.{info,mod,zip}            the Go SDK as a module proxy has it
//   checksums.txt                                            SHA-256 of every other file
//
// The executables are Bun single-file executables for every target (RELEASING.md says why):
// the bundle scripts/package-plugin.mjs makes, compiled with `bun build --compile --bytecode`
// against each target's Bun binary from the npm registry (scripts/ensure-bun.sh), so nothing is
// downloaded during the build. The macOS ones are signed ad hoc (scripts/ensure-rcodesign.sh):
// Apple silicon runs no unsigned code, and appending the program breaks Bun's own signature.
//
// Run with the project's toolchain after `tsc -p tsconfig.build.json` (`npm run release` does
// both). DIR must be empty or absent. Progress goes to stderr, DIR's files to stdout.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { bundle, programs, root } from "./bundle-program.mjs";
import { buildNodejsSdk } from "./build-nodejs-sdk.mjs";

const goModule = "github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go";

/**
 * The release targets: Pulumi's <os>-<arch>, Bun's target and platform package, and the
 * wheel's platform tag (Bun's floor: glibc 2.28 on Linux, macOS 13).
 */
export const targets = [
  {
    name: "linux-amd64",
    bun: "bun-linux-x64",
    bunPackage: "bun-linux-x64",
    wheel: "manylinux_2_28_x86_64",
  },
  {
    name: "linux-arm64",
    bun: "bun-linux-arm64",
    bunPackage: "bun-linux-aarch64",
    wheel: "manylinux_2_28_aarch64",
  },
  {
    // Baseline (no AVX2): it also runs under Rosetta on Apple silicon.
    name: "darwin-amd64",
    bun: "bun-darwin-x64-baseline",
    bunPackage: "bun-darwin-x64-baseline",
    wheel: "macosx_13_0_x86_64",
  },
  {
    name: "darwin-arm64",
    bun: "bun-darwin-arm64",
    bunPackage: "bun-darwin-aarch64",
    wheel: "macosx_13_0_arm64",
  },
  {
    name: "windows-amd64",
    bun: "bun-windows-x64",
    bunPackage: "bun-windows-x64",
    wheel: "win_amd64",
  },
];

const log = (message) => process.stderr.write(`[release] ${message}\n`);
const megabytes = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Runs a tool; its output is shown only when it fails (stdout lists DIR's files). */
function run(command, args, options = {}) {
  try {
    return execFileSync(command, args, { stdio: "pipe", encoding: "utf8", ...options });
  } catch (error) {
    throw new Error(
      `${path.basename(command)} ${args.join(" ")} failed:\n${error.stdout}${error.stderr}`,
    );
  }
}

const lastLine = (output) => output.trim().split("\n").at(-1);

function readJson(file) {
  return JSON.parse(readFileSync(path.join(root, file), "utf8"));
}

/** One version for everything: the SDKs were generated from this version's schema. */
function checkVersions(version) {
  const found = {
    "sdk/go/gpucloud/pulumi-plugin.json": readJson("sdk/go/gpucloud/pulumi-plugin.json").version,
    "sdk/python/pulumi_gpucloud/pulumi-plugin.json": readJson(
      "sdk/python/pulumi_gpucloud/pulumi-plugin.json",
    ).version,
    "sdk/nodejs/package.json": readJson("sdk/nodejs/package.json").version,
    "sdk/python/pyproject.toml": /^\s*version = "([^"]+)"/m.exec(
      readFileSync(path.join(root, "sdk/python/pyproject.toml"), "utf8"),
    )?.[1],
  };
  for (const [file, found_] of Object.entries(found)) {
    if (found_ !== version) {
      throw new Error(`${file} says ${found_}, package.json ${version}: run npm run gen-sdks`);
    }
  }
}

/** The plugin or emulator for one target: a signed executable packed alone in its tarball. */
function executableTarball({ name, code, target, version, bunDir, rcodesign, out, work }) {
  const exe = target.name.startsWith("windows") ? `${name}.exe` : name;
  const stage = path.join(work, `${name}-${target.name}`);
  mkdirSync(stage, { recursive: true });
  const source = path.join(work, `${name}.js`);
  writeFileSync(source, code);
  const bunBinary = target.name.startsWith("windows") ? "bun.exe" : "bun";
  run(path.join(bunDir, "bun-linux-x64", "bin", "bun"), [
    "build",
    "--compile",
    // JavaScriptCore's bytecode for the bundle, made now: the plugin serves in about half the
    // time (0.6 s instead of 1.2 s on a 2-core machine).
    "--bytecode",
    `--target=${target.bun}`,
    `--compile-executable-path=${path.join(bunDir, target.bunPackage, "bin", bunBinary)}`,
    // The Pulumi SDK's closure serializer (never run by the plugin) resolves npm's node-gyp.
    "--external",
    "node-gyp/*",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    source,
    "--outfile",
    path.join(stage, exe),
  ]);
  chmodSync(path.join(stage, exe), 0o755);
  if (target.name.startsWith("darwin")) {
    run(rcodesign, ["sign", "--binary-identifier", name, path.join(stage, exe)]);
  }
  const tarball = path.join(out, `${name}-v${version}-${target.name}.tar.gz`);
  run("tar", [
    "--create",
    "--gzip",
    "--file",
    tarball,
    "--owner=0",
    "--group=0",
    "--numeric-owner",
    "--directory",
    stage,
    exe,
  ]);
  rmSync(stage, { recursive: true });
  return tarball;
}

/** The schema as the plugin serves it: this machine's release build, else the npm package's. */
function servedSchema(tarballs, work, version) {
  let plugin = path.join(root, "node_modules/.bin/pulumi-resource-gpucloud");
  const host = tarballs.get("pulumi-resource-gpucloud-linux-amd64");
  if (host !== undefined) {
    run("tar", ["--extract", "--gzip", "--file", host, "--directory", work]);
    plugin = path.join(work, "pulumi-resource-gpucloud");
  }
  const schema = run("pulumi", ["package", "get-schema", plugin], { maxBuffer: 1 << 28 });
  const served = JSON.parse(schema).version;
  if (served !== version) throw new Error(`the plugin serves version ${served}, not ${version}`);
  return schema;
}

function wheels({ out, version, tarballs, selected }) {
  const wheelhouse = lastLine(run("bash", ["scripts/ensure-python-tools.sh", "--wheelhouse"]));
  const env = { ...process.env, PIP_NO_INDEX: "1", PIP_FIND_LINKS: wheelhouse };
  const script = "scripts/python/platform-wheel.py";
  run("python3", [script, "--pure", "sdk/python", out], { env, cwd: root });
  for (const target of selected) {
    const [emulator, plugin] = programs.map((p) => tarballs.get(`${p.name}-${target.name}`));
    run("python3", [script, "sdk/python", plugin, emulator, out, target.wheel], { env, cwd: root });
  }
  log(`wheels of ${version}: pure and ${selected.length} platform(s)`);
}

function goProxy({ out, version }) {
  const time = run("git", ["log", "-1", "--format=%cI"], { cwd: root }).trim();
  const utc = new Date(time).toISOString().replace(/\.\d+Z$/, "Z");
  run(
    "python3",
    [
      "scripts/python/go-proxy-module.py",
      "sdk/go",
      goModule,
      `v${version}`,
      utc,
      "LICENSE",
      path.join(out, "goproxy"),
    ],
    { cwd: root },
  );
}

function filesUnder(dir, prefix = "") {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? filesUnder(path.join(dir, entry.name), `${prefix}${entry.name}/`)
        : [`${prefix}${entry.name}`],
    )
    .sort();
}

function checksums(out) {
  const lines = filesUnder(out)
    .filter((file) => file !== "checksums.txt")
    .map((file) => {
      const hash = createHash("sha256").update(readFileSync(path.join(out, file)));
      return `${hash.digest("hex")}  ${file}`;
    });
  writeFileSync(path.join(out, "checksums.txt"), `${lines.join("\n")}\n`);
}

async function main() {
  const { values } = parseArgs({
    options: { out: { type: "string" }, targets: { type: "string" } },
  });
  if (values.out === undefined) throw new Error("usage: npm run release -- --out DIR");
  const out = path.resolve(values.out);
  mkdirSync(out, { recursive: true });
  if (readdirSync(out).length > 0) throw new Error(`${out} is not empty`);
  const names = values.targets?.split(",") ?? targets.map((t) => t.name);
  const selected = names.map((name) => {
    const target = targets.find((t) => t.name === name);
    if (target === undefined) {
      throw new Error(`--targets: no target ${name}; the targets: ${targets.map((t) => t.name)}`);
    }
    return target;
  });
  const started = Date.now();
  const { version } = readJson("package.json");
  checkVersions(version);
  const bunDir = lastLine(run("bash", ["scripts/ensure-bun.sh"], { cwd: root }));
  const rcodesign = selected.some((t) => t.name.startsWith("darwin"))
    ? lastLine(run("bash", ["scripts/ensure-rcodesign.sh"], { cwd: root }))
    : undefined;
  const work = path.join(out, ".build");
  const tarballs = new Map();
  try {
    for (const { name, entry } of programs) {
      const code = await bundle(entry, version);
      for (const target of selected) {
        const begun = Date.now();
        const args = { name, code, target, version, bunDir, rcodesign, out, work };
        const tarball = executableTarball(args);
        tarballs.set(`${name}-${target.name}`, tarball);
        log(
          `${path.basename(tarball)}: ${megabytes(readFileSync(tarball).length)} in ${Date.now() - begun} ms`,
        );
      }
    }
    writeFileSync(path.join(out, "schema.json"), servedSchema(tarballs, work, version));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  run("npm", ["pack", "--silent", "--pack-destination", out], { cwd: root });
  const nodejsSdk = buildNodejsSdk(path.join(work, "nodejs-sdk"));
  run("npm", ["pack", "--silent", "--pack-destination", out], { cwd: nodejsSdk });
  rmSync(work, { recursive: true, force: true });
  wheels({ out, version, tarballs, selected });
  goProxy({ out, version });
  checksums(out);
  log(`v${version} in ${Math.round((Date.now() - started) / 1000)} s`);
  process.stdout.write(
    `${filesUnder(out)
      .map((file) => path.join(out, file))
      .join("\n")}\n`,
  );
}

await main();
