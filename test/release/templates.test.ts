import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { wheelhouse } from "../support/python-stack";
import { repoRoot } from "../support/repo-root";
import { useEmulator } from "../support/use-emulator";
import { type Mirror, type Project, project, serveRelease } from "./mirror";
import { releaseDir, releaseVersion } from "./release-dir";

const execFileAsync = promisify(execFile);

// `pulumi new <template folder> --yes`, then up and destroy against the emulator, as a user
// starts: the SDKs come from the release (the wheel, the Go module proxy tree, the npm
// tarball), the plugin from a mirror of it. The key is set as a secret afterwards, as the
// interactive prompt would (--config would store it in plain text).
const { emulator } = useEmulator({ per: "file" });
const version = releaseVersion();
const templates = path.join(repoRoot, "templates");

let mirror: Mirror;
let scratch: string;
beforeAll(async () => {
  mirror = await serveRelease(releaseDir());
  scratch = await mkdtemp(path.join(tmpdir(), "gpucloud-templates-"));
});
afterAll(async () => {
  await mirror.close();
  await rm(scratch, { recursive: true, force: true });
});

async function newProject(language: string, extra: Record<string, string> = {}) {
  const proj = await project(path.join(scratch, language), mirror, extra);
  const template = path.join(templates, `gpucloud-${language}`);
  const output = await proj.pulumi(
    "new",
    template,
    "--yes",
    "--stack",
    "dev",
    "--name",
    `new-${language}`,
    "--config",
    `gpucloud:baseUrl=${emulator.url}`,
    ...(language === "typescript" ? ["--generate-only"] : []),
  );
  return { proj, output };
}

/** The user's next steps: the key as a secret, up, the outputs, destroy leaving nothing. */
async function deployAndDestroy(proj: Project): Promise<void> {
  await proj.pulumi("config", "set", "--secret", "gpucloud:apiKey", emulator.apiKey);
  const stackConfig = await readFile(path.join(proj.dir, "Pulumi.dev.yaml"), "utf8");
  expect(stackConfig).not.toContain(emulator.apiKey);
  await proj.pulumi("up", "--yes");
  const outputs = JSON.parse(await proj.pulumi("stack", "output", "--json")) as Record<
    string,
    unknown
  >;
  expect([typeof outputs["sshHost"], typeof outputs["expiresAt"]]).toEqual(["string", "string"]);
  const state = await emulator.state();
  expect(state.instances).toHaveLength(1);
  expect(state.volumes).toHaveLength(1);
  await proj.pulumi("destroy", "--yes");
  const after = await emulator.state();
  expect([after.instances.length, after.volumes.length]).toEqual([0, 0]);
}

test("YAML: pulumi new downloads the plugin; up and destroy", async () => {
  const { proj, output } = await newProject("yaml");
  expect(output).toContain("Downloading provider gpucloud");
  await deployAndDestroy(proj);
});

test("Python: pulumi new installs the wheel into the project's venv; up and destroy", async () => {
  const { proj } = await newProject("python", {
    PIP_NO_INDEX: "1",
    PIP_FIND_LINKS: `${releaseDir()} ${await wheelhouse()}`,
  });
  await deployAndDestroy(proj);
});

test("Go: pulumi new fetches the SDK by version from the module proxy; up and destroy", async () => {
  const { proj } = await newProject("go", {
    GOPROXY: `file://${path.join(releaseDir(), "goproxy")},${process.env["GOPROXY"] ?? "https://proxy.golang.org"}`,
    // The checksum database is out of this machine's reach; the SDK's own sum is the zip's.
    GONOSUMDB: "*",
    GOFLAGS: "-mod=mod",
  });
  await deployAndDestroy(proj);
});

test("TypeScript: the template with the release's npm tarball; up and destroy", async () => {
  const { proj } = await newProject("typescript");
  // Until the package is on a registry (issue 52, item 4): the tarball in its place.
  const tarball = path.join(releaseDir(), `pulumi-gpucloud-${version}.tgz`);
  await execFileAsync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], {
    cwd: proj.dir,
    env: proj.env,
  });
  // --generate-only made no stack: the rest of what `pulumi new` does, the defaults included.
  await proj.pulumi("stack", "init", "dev");
  await proj.pulumi("config", "set", "gpucloud:baseUrl", emulator.url);
  await proj.pulumi("config", "set", "maxDollarsPerHour", "1");
  await proj.pulumi("config", "set", "maxLifetime", "8h");
  await deployAndDestroy(proj);
});
