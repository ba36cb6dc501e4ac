import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { type ConfigMap, LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { repoRoot } from "./pulumi-stack";

const execFileAsync = promisify(execFile);

/**
 * The folder holding the native plugin `pulumi-resource-gpucloud`, as an installed package puts
 * it: node_modules/.bin of the repository, linked by scripts/install-package.mjs (which the
 * e2e run's global setup runs) to the installed copy. A program's `plugins.providers[].path`.
 */
export const nativePluginDir = path.join(repoRoot, "node_modules", ".bin");

export interface YamlStackOptions {
  /** The program: the text of a `Pulumi.yaml` with `runtime: yaml`, or a directory to copy. */
  readonly program: { readonly text: string } | { readonly dir: string };
  /** Stack config, e.g. `{ "gpucloud:apiKey": { value: key, secret: true } }`. */
  readonly config?: ConfigMap;
  /** Extra environment for the CLI, the language host and the providers. */
  readonly env?: Readonly<Record<string, string>>;
  readonly stackName?: string;
  /**
   * Plugins installed from files, as a user without npm installs the standalone plugin
   * (`pulumi plugin install resource <name> <version> --file <tarball>`), into a PULUMI_HOME of
   * the stack's own, in its temporary directory: the plugins this machine has installed are
   * not seen, nor those on PATH. Without it, the CLI uses the PULUMI_HOME it is given.
   */
  readonly pluginFiles?: readonly PluginFile[];
}

export interface PluginFile {
  readonly name: string;
  readonly version: string;
  /** The plugin's tarball. */
  readonly file: string;
}

export interface YamlTestStack {
  readonly stack: Stack;
  /** The copy of the program the stack runs from. */
  readonly workDir: string;
  /** The environment the CLI runs with (backend, passphrase), to run it directly. */
  readonly cliEnv: Readonly<Record<string, string>>;
  /** `pulumi stack export` of the stack, secrets decrypted unless `showSecrets` is false. */
  exportState: (showSecrets?: boolean) => Promise<string>;
  /** What installing `pluginFiles` printed (stdout and stderr); empty without them. */
  readonly setupOutput: string;
}

/**
 * PATH without the folders holding one of the plugins (`pulumi-resource-<name>`, such as the
 * repository's node_modules/.bin): the CLI prefers a plugin it finds on PATH to an installed one.
 */
export function withoutPlugins(searchPath: string, names: readonly string[]): string {
  return searchPath
    .split(path.delimiter)
    .filter(
      (dir) =>
        dir !== "" && !names.some((name) => existsSync(path.join(dir, `pulumi-resource-${name}`))),
    )
    .join(path.delimiter);
}

/**
 * Runs `body` against a fresh stack of a YAML program, in its own temporary directory and file
 * backend, driven by the real Pulumi CLI and the YAML language host that scripts/setup.sh puts
 * beside it. Always tears down afterwards (destroy when anything is left, stack removal, the
 * directory), also when `body` throws; the body's failure is the one reported.
 */
export async function withYamlStack<T>(
  options: YamlStackOptions,
  body: (stack: YamlTestStack) => Promise<T>,
): Promise<T> {
  const root = await mkdtemp(path.join(tmpdir(), "gpucloud-yaml-e2e-"));
  const workDir = path.join(root, "program");
  const backendDir = path.join(root, "state");
  await mkdir(backendDir);
  if ("dir" in options.program) {
    await cp(options.program.dir, workDir, { recursive: true });
  } else {
    await mkdir(workDir);
    await writeFile(path.join(workDir, "Pulumi.yaml"), options.program.text);
  }
  const stackName = options.stackName ?? "test";
  const pluginFiles = options.pluginFiles ?? [];
  const cliEnv = {
    PULUMI_BACKEND_URL: `file://${backendDir}`,
    PULUMI_CONFIG_PASSPHRASE: "gpucloud-e2e-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    ...options.env,
    ...(pluginFiles.length > 0
      ? {
          PULUMI_HOME: path.join(root, "pulumi-home"),
          PATH: withoutPlugins(
            options.env?.["PATH"] ?? process.env["PATH"] ?? "",
            pluginFiles.map(({ name }) => name),
          ),
        }
      : {}),
  };
  try {
    let setupOutput = "";
    for (const plugin of pluginFiles) {
      const args = ["plugin", "install", "resource", plugin.name, plugin.version];
      const { stdout, stderr } = await execFileAsync("pulumi", [...args, "--file", plugin.file], {
        env: { ...process.env, ...cliEnv },
      });
      setupOutput += stdout + stderr;
    }
    const stack = await LocalWorkspace.createStack({ stackName, workDir }, { envVars: cliEnv });
    if (options.config) await stack.setAllConfig(options.config);
    const cleanUp = async () => {
      const exported = await stack.exportStack();
      const deployment = exported.deployment as { resources?: unknown[] };
      if ((deployment.resources ?? []).length > 0) await stack.destroy();
      await stack.workspace.removeStack(stackName);
    };
    try {
      const exportState = async (showSecrets = true) => {
        const args = ["stack", "export", "--stack", stackName];
        if (showSecrets) args.push("--show-secrets");
        const { stdout } = await execFileAsync("pulumi", args, {
          cwd: workDir,
          env: { ...process.env, ...cliEnv },
          maxBuffer: 64 * 1024 * 1024,
        });
        return stdout;
      };
      const result = await body({ stack, workDir, cliEnv, exportState, setupOutput });
      await cleanUp();
      return result;
    } catch (error) {
      await cleanUp().catch((cleanUpError: unknown) => {
        if (error instanceof Error)
          error.message += `\n(clean-up failed too: ${String(cleanUpError)})`;
      });
      throw error;
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
