import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { pluginDownloadUrl } from "../../provider/native/package-metadata";
import { activated, wheelhouse } from "../support/python-stack";
import { repoRoot } from "../support/repo-root";
import { useEmulator } from "../support/use-emulator";
import {
  cleanPath,
  type Mirror,
  type Project,
  goTokenProgram,
  project as projectIn,
  pythonTokenProgram,
  serveRelease,
  stackOn,
  yamlTokenProgram,
} from "./mirror";
import { releaseDir, releaseVersion } from "./release-dir";

const execFileAsync = promisify(execFile);

// The plugin found by itself (RELEASING.md): fresh projects with no plugin installed and none
// on PATH, the CLI pointed at a mirror of the release (an HTTP server of DIR) by
// PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES as an air-gapped company would, download the plugin for
// this machine and run it.
const { emulator } = useEmulator({ per: "file" });
const version = releaseVersion();
const plugin = `pulumi-resource-gpucloud-v${version}-linux-amd64.tar.gz`;

let mirror: Mirror;
let scratch: string;

beforeAll(async () => {
  mirror = await serveRelease(releaseDir());
  scratch = await mkdtemp(path.join(tmpdir(), "gpucloud-download-"));
});

afterAll(async () => {
  await mirror.close();
  await rm(scratch, { recursive: true, force: true });
});

const project = (name: string, extra: Record<string, string> = {}) =>
  projectIn(path.join(scratch, name), mirror, extra);

/** `pulumi install`, then a stack against the emulator: up, its outputs, destroy. */
async function installAndDeploy(proj: Project): Promise<string> {
  let output = await proj.pulumi("install");
  await stackOn(proj, emulator);
  output += await proj.pulumi("up", "--yes");
  expect(await emulator.secrets()).toHaveProperty("HF_TOKEN");
  output += await proj.pulumi("destroy", "--yes");
  expect(output).not.toContain("from $PATH");
  expect(await emulator.secrets()).toEqual({});
  const plugins = await proj.pulumi("plugin", "ls");
  expect(plugins).toMatch(new RegExp(`gpucloud\\s+resource\\s+${version.replace(/\./g, "\\.")}`));
  return output;
}

async function pythonProject(name: string, wheel: string) {
  const venv = path.join(scratch, `${name}-venv`);
  await execFileAsync("python3", ["-m", "venv", venv]);
  const pipEnv = { ...process.env, PIP_NO_INDEX: "1", PIP_FIND_LINKS: await wheelhouse() };
  await execFileAsync(path.join(venv, "bin", "pip"), ["install", "--quiet", wheel], {
    env: pipEnv,
  });
  const proj = await project(name, {
    ...activated(venv, cleanPath),
    PIP_NO_INDEX: "1",
    PIP_FIND_LINKS: pipEnv.PIP_FIND_LINKS,
  });
  await writeFile(path.join(proj.dir, "Pulumi.yaml"), `name: ${name}\nruntime: python\n`);
  await writeFile(path.join(proj.dir, "__main__.py"), pythonTokenProgram);
  await writeFile(path.join(proj.dir, "requirements.txt"), `pulumi_gpucloud==${version}\n`);
  return proj;
}

test("Python with the pure wheel: pulumi install downloads the plugin, up and destroy run it", async () => {
  const wheel = path.join(releaseDir(), `pulumi_gpucloud-${version}-py3-none-any.whl`);
  const proj = await pythonProject("python-download", wheel);
  const before = mirror.fetched.length;
  await installAndDeploy(proj);
  expect(mirror.fetched.slice(before)).toEqual([`/${plugin}`]);
});

test("Go by version from the module proxy: up downloads the plugin and runs it", async () => {
  const proj = await project("go-download", {
    GOPROXY: `file://${path.join(releaseDir(), "goproxy")},${process.env["GOPROXY"] ?? "https://proxy.golang.org"}`,
    GONOSUMDB: "github.com/pulumi-gpucloud",
    GOFLAGS: "-mod=mod",
  });
  const example = path.join(repoRoot, "examples", "go-workspace");
  const goMod = (await readFile(path.join(example, "go.mod"), "utf8"))
    .replace("module example.com/go-workspace", "module example.com/go-download")
    .replace("sdk/go v0.0.0", `sdk/go v${version}`)
    .replace(/^replace .*$/m, "");
  await writeFile(path.join(proj.dir, "go.mod"), goMod);
  await cp(path.join(example, "go.sum"), path.join(proj.dir, "go.sum"));
  await writeFile(path.join(proj.dir, "Pulumi.yaml"), "name: go-download\nruntime: go\n");
  await writeFile(path.join(proj.dir, "main.go"), goTokenProgram("HF_TOKEN"));
  const before = mirror.fetched.length;
  await installAndDeploy(proj);
  expect(mirror.fetched.slice(before)).toEqual([`/${plugin}`]);
});

test("YAML naming the version and download URL: pulumi install downloads the plugin", async () => {
  const proj = await project("yaml-download");
  await writeFile(
    path.join(proj.dir, "Pulumi.yaml"),
    yamlTokenProgram("yaml-download", {
      options: `    options:\n      version: ${version}\n      pluginDownloadURL: ${pluginDownloadUrl}\n`,
    }),
  );
  const before = mirror.fetched.length;
  await installAndDeploy(proj);
  expect(mirror.fetched.slice(before)).toEqual([`/${plugin}`]);
});

test("the release's tarballs are what the download names: the executable alone at the root", async () => {
  const dir = releaseDir();
  expect(existsSync(path.join(dir, plugin))).toBe(true);
  const { stdout } = await execFileAsync("tar", ["-tzf", path.join(dir, plugin)]);
  expect(stdout).toBe("pulumi-resource-gpucloud\n");
});
