import { execFile, spawn, type ChildProcess } from "node:child_process";
import { copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "../support/repo-root";

const execFileAsync = promisify(execFile);

// Local stand-ins of the package registries (RELEASING.md): verdaccio as the npm registry and
// pypiserver as PyPI, installed pinned by scripts/ensure-registries.sh. The release's goproxy/
// folder is the Go module proxy already.

/** A registry server this test started; `stop` ends it. */
export interface Registry {
  readonly url: string;
  stop(): Promise<void>;
}

let tools: Promise<string> | undefined;
function registryTools(): Promise<string> {
  tools ??= execFileAsync("bash", [path.join(repoRoot, "scripts", "ensure-registries.sh")], {
    maxBuffer: 1 << 24,
  }).then(({ stdout }) => stdout.trim().split("\n").at(-1) ?? "");
  return tools;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/**
 * Starts `command`, serving at `url`, and waits until `url + ready` answers (its output shown
 * if it never does).
 */
async function serve(
  command: string,
  args: string[],
  url: string,
  ready: string,
): Promise<Registry> {
  const child: ChildProcess = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      resolve();
    });
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited:\n${output}`);
    const answered = await fetch(url + ready).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) break;
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`${command} did not answer at ${url + ready} in 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

/**
 * verdaccio in `dir`: it serves pulumi-gpucloud only from what is published to it, and every
 * other package from the npm registry this machine's npm uses (`uplink`), as a company's does.
 */
export async function startNpmRegistry(dir: string, uplink: string): Promise<Registry> {
  await mkdir(dir, { recursive: true });
  const config = path.join(dir, "config.yaml");
  await writeFile(
    config,
    `storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: -1
uplinks:
  upstream:
    url: ${uplink}
packages:
  "pulumi-gpucloud":
    access: $all
    publish: $all
  "**":
    access: $all
    proxy: upstream
log: { type: stdout, format: pretty, level: warn }
`,
  );
  const port = await freePort();
  const verdaccio = path.join(
    await registryTools(),
    "verdaccio",
    "node_modules",
    ".bin",
    "verdaccio",
  );
  const url = `http://127.0.0.1:${port}/`;
  return serve(verdaccio, ["--config", config, "--listen", `127.0.0.1:${port}`], url, "-/ping");
}

/** `npm publish` of a tarball into `registry`, with a token it accepts (publish: $all). */
export async function publishNpm(registry: Registry, tarball: string, dir: string): Promise<void> {
  const userconfig = path.join(dir, "publish.npmrc");
  const host = registry.url.replace(/^http:/, "");
  await writeFile(userconfig, `${host}:_authToken=release-rehearsal\n`);
  await execFileAsync(
    "npm",
    ["publish", tarball, "--registry", registry.url, "--userconfig", userconfig],
    { maxBuffer: 1 << 24 },
  );
}

/**
 * pypiserver serving `dir`, into which the wheels are published (pypiserver's folder is its
 * store); pip asks it alone (`--index-url`).
 */
export async function startPyPi(dir: string, wheels: string[]): Promise<Registry> {
  await mkdir(dir, { recursive: true });
  for (const wheel of wheels) await copyFile(wheel, path.join(dir, path.basename(wheel)));
  const port = await freePort();
  const server = path.join(await registryTools(), "pypiserver", "bin", "pypi-server");
  const url = `http://127.0.0.1:${port}/simple/`;
  return serve(
    server,
    ["run", "--host", "127.0.0.1", "--port", String(port), "--disable-fallback", dir],
    url,
    "",
  );
}

/** The wheels of a folder. */
export async function wheelsIn(dir: string): Promise<string[]> {
  return (await readdir(dir))
    .filter((file) => file.endsWith(".whl"))
    .map((file) => path.join(dir, file));
}
