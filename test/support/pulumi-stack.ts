import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cp, lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  type ConfigMap,
  LocalWorkspace,
  type PreviewResult,
  type Stack,
} from "@pulumi/pulumi/automation";
import { z } from "zod";

const execFileAsync = promisify(execFile);

/**
 * The repository's root: the nearest directory above `start` whose package.json is ours. The
 * support code runs both under Jest and compiled (the benchmark), so it cannot count levels.
 */
export function findRepoRoot(start: string = __dirname): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) {
      const parsed = z
        .object({ name: z.string().optional() })
        .safeParse(JSON.parse(readFileSync(manifest, "utf8")));
      if (parsed.success && parsed.data.name === "pulumi-gpucloud") return dir;
    }
    if (path.dirname(dir) === dir)
      throw new Error(`no pulumi-gpucloud package.json above ${start}`);
  }
}

export const repoRoot = findRepoRoot();

export interface StackOptions {
  /** The program's `index.js` (CommonJS); it may `require("pulumi-gpucloud")`. */
  readonly program: string;
  /** Stack config, e.g. `{ "gpucloud:apiKey": { value: key, secret: true } }`. */
  readonly config?: ConfigMap;
  /** Extra environment for the CLI, the program and the providers. */
  readonly env?: Readonly<Record<string, string>>;
  readonly projectName?: string;
  /**
   * How the program finds its dependencies: a copy of the package installed from its tarball,
   * beside links to its dependencies (the default), or installed from a packed tarball with
   * npm, as a user's project would.
   */
  readonly install?: { readonly tarball: string };
}

/** A stack in its own temporary directory and file backend, driven by the real Pulumi CLI. */
export interface TestStack {
  readonly stack: Stack;
  readonly workDir: string;
  /** Rewrites the program, for the next step. */
  setProgram: (source: string) => Promise<void>;
  /** Runs a preview and returns its result; throws when the preview fails. */
  preview: () => Promise<PreviewResult>;
  /** The state as `pulumi stack export --show-secrets` prints it. */
  exportState: (showSecrets?: boolean) => Promise<string>;
  /** Everything the CLI printed in this stack's steps, for leak checks. */
  readonly output: string[];
  /** The environment the CLI runs with (backend, passphrase), to run it directly. */
  readonly cliEnv: Readonly<Record<string, string>>;
}

/**
 * Runs `body` against a fresh stack and always tears it down afterwards: destroy (when anything
 * is left), stack removal and the temporary directory, also when `body` throws. The body's
 * failure is the one reported; a failing clean-up then only adds to `output`.
 */
export async function withStack<T>(
  options: StackOptions,
  body: (stack: TestStack) => Promise<T>,
): Promise<T> {
  const workDir = await mkdtemp(path.join(tmpdir(), "gpucloud-e2e-"));
  const backendDir = path.join(workDir, ".state");
  await mkdir(backendDir);
  if (options.install) await installTarball(workDir, options.install.tarball);
  else await linkDependencies(workDir);
  const projectName = options.projectName ?? "gpucloud-e2e";
  await writeFile(path.join(workDir, "Pulumi.yaml"), `name: ${projectName}\nruntime: nodejs\n`);
  if (!options.install) {
    await writeFile(
      path.join(workDir, "package.json"),
      JSON.stringify({ name: projectName, main: "index.js", private: true }),
    );
  }
  await writeFile(path.join(workDir, "index.js"), options.program);

  const output: string[] = [];
  const cliEnv = {
    PULUMI_BACKEND_URL: `file://${backendDir}`,
    PULUMI_CONFIG_PASSPHRASE: "gpucloud-e2e-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    ...options.env,
  };
  const stack = await LocalWorkspace.createStack(
    { stackName: "test", workDir },
    { envVars: cliEnv },
  );
  if (options.config) await stack.setAllConfig(options.config);

  const testStack: TestStack = {
    stack,
    workDir,
    output,
    cliEnv,
    setProgram: (source) => writeFile(path.join(workDir, "index.js"), source),
    preview: () => stack.preview({ onOutput: (text) => output.push(text) }),
    exportState: async (showSecrets = true) => {
      const args = ["stack", "export", "--stack", "test"];
      if (showSecrets) args.push("--show-secrets");
      const { stdout } = await execFileAsync("pulumi", args, {
        cwd: workDir,
        env: { ...process.env, ...cliEnv },
        maxBuffer: 256 * 1024 * 1024,
      });
      return stdout;
    },
  };

  const cleanUp = async () => {
    const exported = await stack.exportStack();
    const deployment = exported.deployment as { resources?: unknown[] };
    if ((deployment.resources ?? []).length > 0) {
      await stack.destroy({ onOutput: (text) => output.push(text) });
    }
    await stack.workspace.removeStack("test");
  };
  try {
    const result = await body(testStack);
    await cleanUp();
    return result;
  } catch (error) {
    await cleanUp().catch((cleanUpError: unknown) => {
      // Said with the body's failure, so that what was left behind is not lost from view.
      if (error instanceof Error)
        error.message += `\n(clean-up failed too: ${String(cleanUpError)})`;
      output.push(`clean-up failed too: ${String(cleanUpError)}`);
    });
    throw error;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

// The program resolves @pulumi/pulumi and this package as a user's project would, from its own
// node_modules: a copy of the package as installed from its tarball (a real directory, so that
// Pulumi serializes each provider as a `require` of the package, as it does for users), and
// links to the repository's copies of the package's dependencies and of @pulumi/pulumi.
async function linkDependencies(workDir: string): Promise<void> {
  const modules = path.join(workDir, "node_modules");
  const installed = path.join(repoRoot, "node_modules", "pulumi-gpucloud");
  const stat = await lstat(installed).catch(() => undefined);
  if (!stat?.isDirectory()) {
    throw new Error(
      `${installed} is not an installed copy of the package: run node scripts/install-package.mjs ` +
        "after building (the end-to-end tests' global setup does)",
    );
  }
  await mkdir(modules);
  await cp(installed, path.join(modules, "pulumi-gpucloud"), { recursive: true });
  const manifest = z
    .object({ dependencies: z.record(z.string(), z.string()).optional() })
    .parse(JSON.parse(await readFile(path.join(installed, "package.json"), "utf8")));
  for (const name of ["@pulumi", ...Object.keys(manifest.dependencies ?? {})]) {
    await mkdir(path.dirname(path.join(modules, name)), { recursive: true });
    await symlink(path.join(repoRoot, "node_modules", name), path.join(modules, name));
  }
}

async function installTarball(workDir: string, tarball: string): Promise<void> {
  await writeFile(
    path.join(workDir, "package.json"),
    JSON.stringify({ name: "gpucloud-user-project", main: "index.js", private: true }),
  );
  const pulumiVersion = (
    JSON.parse(
      await readFile(path.join(repoRoot, "node_modules/@pulumi/pulumi/package.json"), "utf8"),
    ) as { version: string }
  ).version;
  await execFileAsync(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      tarball,
      `@pulumi/pulumi@${pulumiVersion}`,
    ],
    { cwd: workDir, maxBuffer: 64 * 1024 * 1024 },
  );
}
