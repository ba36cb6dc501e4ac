import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { appendFile, chmod, cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { request } from "undici";
import { z } from "zod";
import { repoRoot } from "../support/repo-root";
import { tarballFromSetup } from "../support/packages";
import { expectNoLeak } from "../support/programs";
import { withStack, type TestStack } from "../support/pulumi-stack";
import { lockFile, wheelhouse } from "../support/python-stack";
import { nativePluginDir, withoutPlugins } from "../support/yaml-stack";

const execFileAsync = promisify(execFile);

// The release artefacts for users without Node.js: the plugin and the emulator as standalone
// executables (scripts/package-plugin.mjs, made once per run by the e2e global setup), run with
// a PATH whose `node`, `npm` and `npx` fail: nothing may fall back to a Node.js of the machine.
const marker = "node must not be called";
const version = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8"))).version;

/**
 * A directory holding a failing `node`, `npm` and `npx`, first on the returned PATH; the rest of
 * PATH keeps the Pulumi CLI and its language hosts (withYamlStack leaves out the folders holding
 * a `pulumi-resource-gpucloud`, such as the repository's node_modules/.bin, when it installs the
 * plugin from its file).
 */
async function pathWithoutNode(root: string): Promise<string> {
  const fakeDir = path.join(root, "no-node");
  await mkdir(fakeDir);
  for (const name of ["node", "npm", "npx"]) {
    const file = path.join(fakeDir, name);
    await writeFile(file, `#!/bin/sh\necho "${marker}" >&2\nexit 1\n`);
    await chmod(file, 0o755);
  }
  return [fakeDir, process.env["PATH"] ?? ""].join(path.delimiter);
}

interface StandaloneEmulator {
  readonly url: string;
  readonly apiKey: string;
  /** Everything it printed, stdout and stderr. */
  output(): string;
  /** The listening line is the first thing it printed. */
  readonly firstLine: string;
  /** Stops it (SIGTERM) and resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Extracts the emulator's tarball into `dir`; returns its executable. */
async function extractEmulator(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await execFileAsync("tar", ["-xzf", tarballFromSetup("GPUCLOUD_EMULATOR_TARBALL"), "-C", dir]);
  return path.join(dir, "gpucloud-emulator");
}

/** Starts the standalone emulator on a free port; resolves once it printed its address. */
async function startStandaloneEmulator(
  executable: string,
  env: NodeJS.ProcessEnv,
  args: readonly string[] = [],
): Promise<StandaloneEmulator> {
  const apiKey = `standalone-key-${Math.random().toString(36).slice(2)}`;
  const child = spawn(executable, ["--port", "0", "--api-key", apiKey, ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", resolve);
    // Not started at all: nothing to stop.
    child.once("error", (error) => {
      output += String(error);
      resolve(null);
    });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    return exited;
  };
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    void exited.then((code) => {
      reject(new Error(`gpucloud-emulator exited (${String(code)}) before listening: ${output}`));
    });
  });
  const url = /^gpucloud-emulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(firstLine)?.[1];
  if (url === undefined) {
    await stop();
    throw new Error(`gpucloud-emulator printed ${JSON.stringify(firstLine)}, not its address`);
  }
  return { url, apiKey, output: () => output, firstLine, stop };
}

/** A GET of the emulator's API, as the service's users send it. */
async function apiGet<T>(
  emulator: StandaloneEmulator,
  pathAndQuery: string,
  schema: z.ZodType<T>,
  apiKey = emulator.apiKey,
): Promise<{ status: number; body: T | undefined }> {
  const response = await request(`${emulator.url}${pathAndQuery}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  const text = await response.body.text();
  const body = response.statusCode === 200 ? schema.parse(JSON.parse(text)) : undefined;
  return { status: response.statusCode, body };
}

const currentUser = z.looseObject({ id: z.number(), email: z.string(), api_key: z.string() });
const secretList = z.object({ secrets: z.record(z.string(), z.string().nullable()) });
const volumeList = z.object({ volumes: z.array(z.looseObject({ id: z.number() })) });
const instanceList = z.object({
  instances: z.array(
    z.looseObject({
      id: z.number(),
      label: z.string().nullable(),
      ssh_host: z.string().nullable(),
      ssh_port: z.number().nullable(),
      gpu_ram: z.number(),
    }),
  ),
});

describe("the standalone gpucloud-emulator executable", () => {
  let root: string;
  let executable: string;
  let emulator: StandaloneEmulator | undefined;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "gpucloud-standalone-emulator-"));
    executable = await extractEmulator(path.join(root, "emulator"));
  });
  afterAll(async () => {
    await emulator?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it("prints the listening line, answers the right key only, and stops on SIGTERM", async () => {
    const env = { ...process.env, PATH: await pathWithoutNode(root) };
    emulator = await startStandaloneEmulator(executable, env);
    expect(emulator.firstLine).toBe(`gpucloud-emulator listening on ${emulator.url}`);
    const user = await apiGet(emulator, "/api/v0/users/current/", currentUser);
    expect(user.status).toBe(200);
    // The service's users/current names the key it was asked with.
    expect(user.body?.api_key).toBe(emulator.apiKey);
    const stranger = await apiGet(emulator, "/api/v0/users/current/", currentUser, "wrong-key");
    expect([401, 403]).toContain(stranger.status);
    expect(await emulator.stop()).toBe(0);
    expect(emulator.output()).not.toContain(marker);
  });

  it("takes the same flags as the npm package's command: the same usage text", async () => {
    const standalone = await execFileAsync(executable, ["--help"]);
    const packaged = await execFileAsync(process.execPath, [
      path.join(repoRoot, "dist", "emulator", "cli.js"),
      "--help",
    ]);
    expect(standalone.stdout).toBe(packaged.stdout);
    expect(standalone.stdout).toContain("--small-market");
  });
});

describe("the standalone pulumi-resource-gpucloud executable", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "gpucloud-standalone-plugin-"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("is alone in its tarball and gives the npm package's plugin's schema", async () => {
    const tarball = tarballFromSetup("GPUCLOUD_PLUGIN_TARBALL");
    const { stdout: listing } = await execFileAsync("tar", ["-tzf", tarball]);
    expect(listing).toBe("pulumi-resource-gpucloud\n");
    await execFileAsync("tar", ["-xzf", tarball, "-C", root]);
    const schemaOf = async (plugin: string) =>
      (
        await execFileAsync("pulumi", ["package", "get-schema", plugin], {
          maxBuffer: 16 * 1024 * 1024,
        })
      ).stdout;
    const standalone = await schemaOf(path.join(root, "pulumi-resource-gpucloud"));
    expect(standalone).toBe(await schemaOf(path.join(nativePluginDir, "pulumi-resource-gpucloud")));
    // The version written into the bundle, where the npm package's plugin reads package.json.
    expect(z.object({ version: z.string() }).parse(JSON.parse(standalone)).version).toBe(version);
  });
});

/**
 * Deploys one of the workspace examples (a secret, a volume by query, an instance by query),
 * refreshes it with no changes (when `refresh`) and destroys it, against the standalone
 * emulator; checks what the service holds at each step, and that neither a Node.js nor a secret
 * shows in any output.
 */
async function deploysAndDestroys(
  { stack, setupOutput }: TestStack,
  running: StandaloneEmulator,
  expected: {
    label: string;
    hfToken: string;
    outputs?: Record<string, unknown>;
    /**
     * A refresh reads each resource through the plugin alone (the program does not run): the
     * YAML test's proves the standalone executable's reads; the wheel holds the same executable.
     */
    refresh: boolean;
  },
): Promise<void> {
  // The stack, the example's three resources, and the stack's sweeper (which the Python SDK
  // declares, and the YAML program itself).
  const resources = 5;
  const output: string[] = [setupOutput];
  const onOutput = (line: string) => output.push(line);

  const up = await stack.up({ onOutput });
  expect(up.summary.resourceChanges).toEqual({ create: resources });
  const { body: instances } = await apiGet(running, "/api/v1/instances/", instanceList);
  const { body: volumes } = await apiGet(running, "/api/v0/volumes/", volumeList);
  const { body: secrets } = await apiGet(running, "/api/v0/secrets/", secretList);
  expect(Object.keys(secrets?.secrets ?? {})).toEqual(["HF_TOKEN"]);
  expect(instances?.instances).toHaveLength(1);
  expect(volumes?.volumes).toHaveLength(1);
  const instance = instances?.instances[0];
  expect(instance?.label).toBe(expected.label);
  expect(
    Object.fromEntries(Object.entries(up.outputs).map(([key, { value }]) => [key, value])),
  ).toEqual({
    secretKey: "HF_TOKEN",
    volumeName: `V.${String(volumes?.volumes[0]?.id)}`,
    instanceId: instance?.id,
    sshHost: instance?.ssh_host,
    sshPort: instance?.ssh_port,
    gpuRamMb: instance?.gpu_ram,
    ...expected.outputs,
  });

  if (expected.refresh) {
    const refresh = await stack.refresh({ onOutput });
    expect(refresh.summary.resourceChanges).toEqual({ same: resources });
  }

  const destroy = await stack.destroy({ onOutput });
  expect(destroy.summary.resourceChanges).toEqual({ delete: resources });
  expect({
    secrets: (await apiGet(running, "/api/v0/secrets/", secretList)).body?.secrets,
    volumes: (await apiGet(running, "/api/v0/volumes/", volumeList)).body?.volumes,
    instances: (await apiGet(running, "/api/v1/instances/", instanceList)).body?.instances,
  }).toEqual({ secrets: {}, volumes: [], instances: [] });

  const everything = [...output, running.output()];
  expect(everything.filter((text) => text.includes(marker))).toEqual([]);
  expectNoLeak(everything, [expected.hfToken, running.apiKey]);
}

describe("the workspace examples with the standalone plugin and emulator, no Node.js", () => {
  let root: string;
  let testPath: string;
  let emulator: StandaloneEmulator | undefined;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "gpucloud-standalone-"));
    testPath = await pathWithoutNode(root);
    // Instances run at the first status read; the seeded asks only.
    const executable = await extractEmulator(path.join(root, "emulator"));
    emulator = await startStandaloneEmulator(executable, { ...process.env, PATH: testPath }, [
      "--strict",
      "--small-market",
      "--boot-polls",
      "0",
    ]);
  });
  afterAll(async () => {
    await emulator?.stop();
    await rm(root, { recursive: true, force: true });
  });

  const started = (): StandaloneEmulator => {
    if (emulator === undefined) throw new Error("the emulator did not start");
    return emulator;
  };
  const configFor = (running: StandaloneEmulator, project: string, hfToken: string) => ({
    "gpucloud:apiKey": { value: running.apiKey, secret: true },
    "gpucloud:baseUrl": { value: running.url },
    [`${project}:hfToken`]: { value: hfToken, secret: true },
    [`${project}:pollIntervalSeconds`]: { value: "1" },
  });
  const pluginFiles = () => [
    { name: "gpucloud", version, file: tarballFromSetup("GPUCLOUD_PLUGIN_TARBALL") },
  ];

  it("YAML: deploys, refreshes with no changes and destroys, with the plugin from its tarball", async () => {
    const running = started();
    const example = readFileSync(
      path.join(repoRoot, "examples", "yaml-workspace", "Pulumi.yaml"),
      "utf8",
    );
    // The program as a user of the standalone plugin writes it: no `plugins:` block.
    const text = example.replace(/^plugins:\n(?: {2}.*\n)+/m, "");
    expect(example).toMatch(/^plugins:$/m);
    expect(text).not.toMatch(/^plugins:$/m);
    const hfToken = "hf_standalone.Token-123";
    await withStack(
      {
        language: "yaml",
        program: { text },
        config: configFor(running, "yaml-workspace", hfToken),
        stackName: "standalone",
        env: { PATH: testPath },
        pluginFiles: pluginFiles(),
      },
      (stack) =>
        deploysAndDestroys(stack, running, { label: "yaml-workspace", hfToken, refresh: true }),
    );
  });

  it("Python: examples/python-workspace deploys and destroys with the platform wheel only, its plugin named in plugins:", async () => {
    const running = started();
    const hfToken = "hf_standalone.Python-456";
    // The wheel `npm run package-python` makes, from this run's standalone executables, which
    // it stores rather than deflates (PLATFORM_WHEEL_STORED: the same files and modes, about 10 s
    // of CPU less to write and install; the release's deflated wheel is test/release's).
    const wheels = await wheelhouse();
    const pipEnv = { ...process.env, PIP_NO_INDEX: "1", PIP_FIND_LINKS: wheels };
    const { stdout } = await execFileAsync(
      "python3",
      [
        path.join(repoRoot, "scripts", "python", "platform-wheel.py"),
        path.join(repoRoot, "sdk", "python"),
        tarballFromSetup("GPUCLOUD_PLUGIN_TARBALL"),
        tarballFromSetup("GPUCLOUD_EMULATOR_TARBALL"),
        path.join(root, "wheel"),
      ],
      { env: { ...pipEnv, PLATFORM_WHEEL_STORED: "1" } },
    );
    const wheel = stdout.trim();
    expect(path.basename(wheel)).toBe(
      `pulumi_gpucloud-${version}-py3-none-manylinux_2_28_x86_64.whl`,
    );
    // A fresh virtual environment: the wheel and what it depends on, nothing else.
    const venv = path.join(root, "venv");
    await execFileAsync("python3", ["-m", "venv", venv]);
    await execFileAsync(
      path.join(venv, "bin", "pip"),
      ["install", "--quiet", "--disable-pip-version-check", "--constraint", lockFile, wheel],
      { env: pipEnv, maxBuffer: 16 * 1024 * 1024 },
    );
    // Its emulator is the standalone one.
    const emulatorHelp = await execFileAsync(path.join(venv, "bin", "gpucloud-emulator"), [
      "--help",
    ]);
    expect(emulatorHelp.stdout).toContain("--small-market");
    // The wheel put the plugin off PATH, where the program's `plugins:` block points the CLI.
    const plugin = path.join(venv, "share", "pulumi-gpucloud");
    expect(existsSync(path.join(plugin, "pulumi-resource-gpucloud"))).toBe(true);
    const program = path.join(root, "python-workspace");
    await cp(path.join(repoRoot, "examples", "python-workspace"), program, { recursive: true });
    await appendFile(
      path.join(program, "Pulumi.yaml"),
      `plugins:\n  providers:\n    - name: gpucloud\n      path: ${plugin}\n`,
    );
    await withStack(
      {
        language: "python",
        program: { dir: program },
        virtualEnv: venv,
        config: configFor(running, "python-workspace", hfToken),
        stackName: "standalone",
        // No plugin on PATH, none installed, no Node.js: the wheel's plugin or nothing.
        env: { PATH: withoutPlugins(testPath, ["gpucloud"]), PULUMI_HOME: path.join(root, "home") },
      },
      (stack) =>
        deploysAndDestroys(stack, running, {
          label: "python-workspace",
          hfToken,
          outputs: { userId: expect.any(Number) },
          refresh: false,
        }),
    );
  });
});
