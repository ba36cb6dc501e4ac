import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "./pulumi-stack";
import {
  nativePluginDir,
  withYamlStack,
  type YamlStackOptions,
  type YamlTestStack,
} from "./yaml-stack";

const execFileAsync = promisify(execFile);

/** Pulumi's Python SDK and what it needs, pinned (the wheelhouse's list). */
const lockFile = path.join(repoRoot, "scripts", "python", "requirements.lock");
/** The Python SDK generated from the plugin's schema, committed. */
export const pythonSdkDir = path.join(repoRoot, "sdk", "python");

let wheelhouseFound: Promise<string> | undefined;

/**
 * The wheelhouse scripts/ensure-python-tools.sh fills (setup, or the toolchain on first use),
 * asked once per test process.
 */
export function wheelhouse(): Promise<string> {
  wheelhouseFound ??= execFileAsync("bash", [
    path.join(repoRoot, "scripts", "ensure-python-tools.sh"),
    "--wheelhouse",
  ]).then(({ stdout }) => stdout.trim().split("\n").at(-1) ?? "");
  return wheelhouseFound;
}

/**
 * A new virtual environment in `dir` holding Pulumi's Python SDK (pinned) and pulumi_gpucloud
 * from sdk/python, installed from the wheelhouse without asking the package index, as
 * `pip install -r requirements.txt` does for a user. Returns the environment to run the CLI with:
 * the virtual environment activated (the Python language host runs the `python3` on PATH).
 */
export async function pythonVirtualEnv(
  dir: string,
  basePath = process.env["PATH"] ?? "",
): Promise<Record<string, string>> {
  const wheels = await wheelhouse();
  await execFileAsync("python3", ["-m", "venv", dir]);
  // pip builds a folder in place: a copy keeps the checkout free of build/ and *.egg-info (a
  // stale build/lib would be installed too) and lets test workers install at the same time.
  const sdkCopy = path.join(dir, "pulumi-gpucloud-sdk");
  await cp(pythonSdkDir, sdkCopy, {
    recursive: true,
    filter: (source) => !/(^|[\\/])(build|[^\\/]*\.egg-info|__pycache__)$/.test(source),
  });
  const pip = path.join(dir, "bin", "pip");
  try {
    await execFileAsync(
      pip,
      [
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-index",
        "--find-links",
        wheels,
        "--constraint",
        lockFile,
        "pulumi",
        sdkCopy,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`pip install into ${dir} failed:\n${stderr ?? String(error)}`);
  }
  return {
    VIRTUAL_ENV: dir,
    PATH: `${path.join(dir, "bin")}${path.delimiter}${basePath}`,
  };
}

export interface PythonStackOptions extends Omit<YamlStackOptions, "program"> {
  /**
   * The program: the text of `__main__.py` (with a generated Pulumi.yaml whose project is
   * `project`), or a directory holding Pulumi.yaml and __main__.py to copy.
   */
  readonly program: { readonly main: string; readonly project: string } | { readonly dir: string };
}

/**
 * Runs `body` against a fresh stack of a Python program (real CLI, the Python language host of
 * setup), with its own virtual environment; tears everything down as withYamlStack does.
 */
export async function withPythonStack<T>(
  options: PythonStackOptions,
  body: (stack: YamlTestStack) => Promise<T>,
): Promise<T> {
  const root = await mkdtemp(path.join(tmpdir(), "gpucloud-python-e2e-"));
  try {
    const venvEnv = await pythonVirtualEnv(path.join(root, "venv"), options.env?.["PATH"]);
    let programDir: string;
    if ("dir" in options.program) {
      programDir = options.program.dir;
    } else {
      programDir = path.join(root, "program");
      await mkdir(programDir);
      // The plugin of this checkout's node_modules/.bin, unless the stack installs one.
      const plugins =
        (options.pluginFiles ?? []).length > 0
          ? ""
          : `plugins:\n  providers:\n    - name: gpucloud\n      path: ${nativePluginDir}\n`;
      await writeFile(
        path.join(programDir, "Pulumi.yaml"),
        `name: ${options.program.project}\nruntime: python\n${plugins}`,
      );
      await writeFile(path.join(programDir, "__main__.py"), options.program.main);
    }
    return await withYamlStack(
      { ...options, program: { dir: programDir }, env: { ...options.env, ...venvEnv } },
      body,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
