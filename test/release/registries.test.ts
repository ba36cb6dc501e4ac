import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { pluginDownloadUrl } from "../../provider/native/package-metadata";
import { wheelhouse } from "../support/python-stack";
import { useEmulator } from "../support/use-emulator";
import {
  goTokenProgram,
  type Mirror,
  type Project,
  project as projectIn,
  serveRelease,
  stackOn,
} from "./mirror";
import { publishNpm, type Registry, startNpmRegistry, startPyPi, wheelsIn } from "./registries";
import { releaseDir, releaseVersion } from "./release-dir";

const execFileAsync = promisify(execFile);

// Installed as users will, from the registries' copies (RELEASING.md): the release published
// into local stand-ins (verdaccio for npm, pypiserver for PyPI, the release's goproxy/ for the
// Go module proxy), then fresh projects with nothing from the clone install the package by
// name with each language's own client and run preview, up and destroy against the emulator.
// The plugin, where one is needed, comes from a mirror of the release (as from GitHub).
const { emulator } = useEmulator({ per: "file" });
const version = releaseVersion();
const sdkModule = "github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go";

let scratch: string;
let mirror: Mirror;
let npmRegistry: Registry;
let pypi: Registry;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "gpucloud-registries-"));
  mirror = await serveRelease(releaseDir());
  const { stdout: uplink } = await execFileAsync("npm", ["config", "get", "registry"]);
  npmRegistry = await startNpmRegistry(path.join(scratch, "npm-registry"), uplink.trim());
  await publishNpm(
    npmRegistry,
    path.join(releaseDir(), `pulumi-gpucloud-${version}.tgz`),
    path.join(scratch, "npm-registry"),
  );
  // The release's wheels, and the Python SDK's dependencies (the pinned wheelhouse) that PyPI
  // also serves: pip asks this index alone.
  pypi = await startPyPi(path.join(scratch, "pypi"), [
    ...(await wheelsIn(releaseDir())),
    ...(await wheelsIn(await wheelhouse())),
  ]);
}, 300_000);

afterAll(async () => {
  await npmRegistry?.stop();
  await pypi?.stop();
  await mirror?.close();
  await rm(scratch, { recursive: true, force: true });
});

/**
 * A stack against the emulator: preview shows the create, up makes the account secret `key`
 * (each language its own), destroy removes it.
 */
async function previewUpDestroy(proj: Project, key: string): Promise<void> {
  await stackOn(proj, emulator);
  const writes = (await emulator.writes()).length;
  const preview = await proj.pulumi("preview");
  // The plugin's type, or the TypeScript package's dynamic one.
  expect(preview).toMatch(
    /\+\s+(gpucloud:index|pulumi-nodejs:dynamic\/gpucloud):Secret\s+token\s+create/,
  );
  expect(await emulator.writes()).toHaveLength(writes);
  await proj.pulumi("up", "--yes");
  expect(await emulator.secrets()).toHaveProperty(key);
  expect(JSON.parse(await proj.pulumi("stack", "output", "--json"))).toEqual({ key });
  await proj.pulumi("destroy", "--yes");
  expect(await emulator.secrets()).not.toHaveProperty(key);
}

/** Runs a command of a language's own client in the project. */
async function run(proj: Project, command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd: proj.dir,
      env: proj.env,
      maxBuffer: 1 << 26,
    });
    return stdout + stderr;
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${stdout}${stderr}`);
  }
}

test("TypeScript: npm install pulumi-gpucloud @pulumi/pulumi from the npm registry", async () => {
  const proj = await projectIn(path.join(scratch, "typescript"), mirror, {
    npm_config_registry: npmRegistry.url,
    npm_config_cache: path.join(scratch, "npm-cache"),
  });
  await writeFile(
    path.join(proj.dir, "package.json"),
    JSON.stringify({ name: "registries-typescript", private: true, main: "index.ts" }),
  );
  await writeFile(path.join(proj.dir, "Pulumi.yaml"), "name: registries-ts\nruntime: nodejs\n");
  await writeFile(
    path.join(proj.dir, "index.ts"),
    `import * as pulumi from "@pulumi/pulumi";
import * as gpucloud from "pulumi-gpucloud";

const token = new gpucloud.Secret("token", { key: "TS_TOKEN", value: pulumi.secret("abc") });
export const key = token.key;
`,
  );
  await run(proj, "npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "pulumi-gpucloud",
    "@pulumi/pulumi",
  ]);
  // The package is the release's tarball, as the registry served it (npm records its digest).
  const tarball = await readFile(path.join(releaseDir(), `pulumi-gpucloud-${version}.tgz`));
  const lock = JSON.parse(await readFile(path.join(proj.dir, "package-lock.json"), "utf8")) as {
    packages: Record<string, { version: string; integrity: string }>;
  };
  expect(lock.packages["node_modules/pulumi-gpucloud"]).toMatchObject({
    version,
    integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
  });
  await previewUpDestroy(proj, "TS_TOKEN");
});

test("Python: pip install pulumi_gpucloud from PyPI, the platform wheel", async () => {
  // This machine's pip also looks in a folder of wheels (PIP_FIND_LINKS): not here.
  const proj = await projectIn(path.join(scratch, "python"), mirror, {
    PIP_INDEX_URL: pypi.url,
    PIP_FIND_LINKS: "",
    PIP_NO_INDEX: "",
  });
  await writeFile(
    path.join(proj.dir, "Pulumi.yaml"),
    "name: registries-py\nruntime:\n  name: python\n  options:\n    virtualenv: venv\n",
  );
  await writeFile(
    path.join(proj.dir, "__main__.py"),
    `import pulumi
import pulumi_gpucloud as gpucloud

token = gpucloud.Secret("token", key="PY_TOKEN", value=pulumi.Output.secret("abc"))
pulumi.export("key", token.key)
`,
  );
  await writeFile(path.join(proj.dir, "requirements.txt"), "pulumi_gpucloud\n");
  await run(proj, "python3", ["-m", "venv", "venv"]);
  const pip = path.join(proj.dir, "venv", "bin", "pip");
  const installed = await run(proj, pip, ["install", "pulumi_gpucloud"]);
  expect(installed).toContain(`pulumi_gpucloud-${version}-py3-none-manylinux_2_28_x86_64.whl`);
  // `pulumi install` as a user's CI runs it: the wheel brings the plugin, nothing to download.
  const before = mirror.fetched.length;
  await proj.pulumi("install");
  expect(mirror.fetched.slice(before)).toEqual([]);
  // With no `plugins:` block naming the wheel's plugin, the first run downloads it.
  await previewUpDestroy(proj, "PY_TOKEN");
});

test("Go: go get the SDK by version from the module proxy", async () => {
  // The release's proxy first, then the network's for the rest (the Pulumi SDK and what it
  // needs). scripts/release-check.sh has removed from the module cache any other copy of the
  // SDK's version, which would stand in for the release's.
  const { stdout: upstream } = await execFileAsync("go", ["env", "GOPROXY"]);
  const proj = await projectIn(path.join(scratch, "go"), mirror, {
    GOPROXY: `file://${path.join(releaseDir(), "goproxy")},${upstream.trim()}`,
    // The checksum database is out of this machine's reach, and knows no release of ours yet.
    GONOSUMDB: "*",
    GOFLAGS: "-mod=mod",
  });
  await writeFile(path.join(proj.dir, "Pulumi.yaml"), "name: registries-go\nruntime: go\n");
  await writeFile(path.join(proj.dir, "main.go"), goTokenProgram("GO_TOKEN"));
  await run(proj, "go", ["mod", "init", "example.com/registries-go"]);
  await run(proj, "go", ["get", `${sdkModule}@v${version}`]);
  await run(proj, "go", ["mod", "tidy"]);
  const { stdout: listed } = await execFileAsync("go", ["list", "-m", sdkModule], {
    cwd: proj.dir,
    env: proj.env,
  });
  expect(listed.trim()).toBe(`${sdkModule} v${version}`);
  await proj.pulumi("install");
  await previewUpDestroy(proj, "GO_TOKEN");
});

test("YAML: nothing to install but the plugin, by its version and download URL", async () => {
  const proj = await projectIn(path.join(scratch, "yaml"), mirror);
  await writeFile(
    path.join(proj.dir, "Pulumi.yaml"),
    `name: registries-yaml
runtime: yaml
resources:
  token:
    type: gpucloud:index:Secret
    properties:
      key: YAML_TOKEN
      value:
        fn::secret: abc
    options:
      version: ${version}
      pluginDownloadURL: ${pluginDownloadUrl}
outputs:
  key: \${token.key}
`,
  );
  await proj.pulumi("install");
  await previewUpDestroy(proj, "YAML_TOKEN");
});
