import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { activated, wheelhouse } from "../support/python-stack";
import { useEmulator } from "../support/use-emulator";
import { cleanPath, type Project, project, pythonTokenProgram, stackOn } from "./mirror";
import { releaseDir, releaseVersion } from "./release-dir";

const execFileAsync = promisify(execFile);

// The wheel route (docs/guides/installing.md): a Python project whose virtual environment holds
// the platform wheel, which brings the plugin, and whose `plugins:` block points at it (the CLI
// reads that block before anything else, so the environment is made first, as the guide says).
// A fresh PULUMI_HOME, no plugin on PATH and no download override: a download would fail on
// this machine, so `pulumi install`, `up` and `destroy` passing with an empty plugin cache prove
// the wheel's plugin ran; with the environment activated or not, the CLI warns of nothing.
const { emulator } = useEmulator({ per: "file" });
const version = releaseVersion();

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "gpucloud-wheel-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/**
 * The project a user writes, `plugins:` naming where the wheel put the plugin, and its `venv`
 * made by hand: `python3 -m venv venv && venv/bin/pip install -r requirements.txt`.
 */
async function wheelProject(name: string, activate: boolean): Promise<Project> {
  const pip = {
    PIP_NO_INDEX: "1",
    PIP_FIND_LINKS: `${releaseDir()} ${await wheelhouse()}`,
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
  };
  const dir = path.join(scratch, name);
  const venv = path.join(dir, "venv");
  const proj = await project(
    dir,
    undefined,
    activate ? { ...pip, ...activated(venv, cleanPath) } : pip,
  );
  await writeFile(
    path.join(proj.dir, "Pulumi.yaml"),
    `name: ${name}
runtime:
  name: python
  options:
    virtualenv: venv
plugins:
  providers:
    - name: gpucloud
      path: venv/share/pulumi-gpucloud
`,
  );
  await writeFile(path.join(proj.dir, "__main__.py"), pythonTokenProgram);
  await writeFile(path.join(proj.dir, "requirements.txt"), `pulumi_gpucloud==${version}\n`);
  await execFileAsync("python3", ["-m", "venv", venv]);
  await execFileAsync(path.join(venv, "bin", "pip"), ["install", "-q", "-r", "requirements.txt"], {
    cwd: dir,
    env: proj.env,
  });
  // The platform wheel (pip prefers it to the pure one), its plugin off PATH.
  expect(existsSync(path.join(venv, "share", "pulumi-gpucloud", "pulumi-resource-gpucloud"))).toBe(
    true,
  );
  expect(existsSync(path.join(venv, "bin", "pulumi-resource-gpucloud"))).toBe(false);
  return proj;
}

/** `pulumi install`, up, destroy: no warning, nothing in the plugin cache, the SDK's version. */
async function deploysQuietly(proj: Project): Promise<void> {
  let output = await proj.pulumi("install");
  await stackOn(proj, emulator);
  output += await proj.pulumi("up", "--yes");
  expect(await emulator.secrets()).toHaveProperty("HF_TOKEN");
  const state = JSON.parse(await proj.pulumi("stack", "export")) as {
    deployment: { resources: { type: string; inputs?: { version?: string } }[] };
  };
  const provider = state.deployment.resources.find((r) => r.type === "pulumi:providers:gpucloud");
  expect(provider?.inputs?.version).toBe(version);
  output += await proj.pulumi("destroy", "--yes");
  expect(await emulator.secrets()).toEqual({});
  expect(output).not.toMatch(/warning|download/i);
  const cache = path.join(proj.env["PULUMI_HOME"] ?? "", "plugins");
  const cached = existsSync(cache) ? await readdir(cache) : [];
  expect(cached.filter((entry) => entry.includes("gpucloud"))).toEqual([]);
}

test("not activated: pulumi install, up and destroy with the wheel's plugin", async () => {
  await deploysQuietly(await wheelProject("wheel-plain", false));
});

test("activated: the same, with the environment's bin/ first on PATH", async () => {
  await deploysQuietly(await wheelProject("wheel-activated", true));
});
