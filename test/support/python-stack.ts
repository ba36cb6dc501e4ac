import { execFile } from "node:child_process";
import { cp, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { cachedVirtualEnv } from "./cached-venv";
import { repoRoot } from "./repo-root";
import { nativePluginDir } from "./yaml-stack";

const execFileAsync = promisify(execFile);

/** Pulumi's Python SDK and what it needs, pinned (the wheelhouse's list). */
export const lockFile = path.join(repoRoot, "scripts", "python", "requirements.lock");
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
 * The environment to run the CLI with: the virtual environment `dir` activated (the Python
 * language host runs the `python3` on PATH).
 */
export const activated = (dir: string, basePath: string): Record<string, string> => ({
  VIRTUAL_ENV: dir,
  PATH: `${path.join(dir, "bin")}${path.delimiter}${basePath}`,
});

/**
 * A new virtual environment in `dir` holding Pulumi's Python SDK (pinned) and pulumi_gpucloud
 * from sdk/python, installed from the wheelhouse without asking the package index, as
 * `pip install -r requirements.txt` does for a user; with the lock's pip, as the Python host
 * upgrades it in a virtual environment it makes (it runs `pip list` at every operation).
 */
async function makeVirtualEnv(dir: string): Promise<void> {
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
        "pip",
        "pulumi",
        sdkCopy,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`pip install into ${dir} failed:\n${stderr ?? String(error)}`);
  }
}

let sharedEnvironment: Promise<string> | undefined;

/**
 * The virtual environment the Python programs use, made on first use: the programs only read
 * it, and making one (a venv with its pip, then Pulumi's SDK and the package) costs about 20 s
 * of CPU. Made once per machine for the lock and sdk/python as they are
 * (test/support/cached-venv.ts), rather than once per run or per Python stack, and found again
 * by each test file and worker (Jest gives each its own modules).
 */
export function sharedVirtualEnv(): Promise<string> {
  sharedEnvironment ??= cachedVirtualEnv("e2e", [lockFile, pythonSdkDir], makeVirtualEnv);
  return sharedEnvironment;
}

/** A Python program, run by the Python language host of setup in the run's virtual environment. */
export interface PythonProgram {
  readonly language: "python";
  /**
   * The text of `__main__.py` (with a generated Pulumi.yaml whose project is `project`), or a
   * directory holding Pulumi.yaml and __main__.py to copy.
   */
  readonly program: { readonly main: string; readonly project: string } | { readonly dir: string };
  /**
   * A virtual environment of the test's own (one a wheel was installed into), activated instead
   * of the run's shared one.
   */
  readonly virtualEnv?: string;
}

/**
 * The environment a Python program's CLI runs with: the run's shared virtual environment
 * activated on `basePath`.
 */
export async function pythonEnv(basePath: string): Promise<Record<string, string>> {
  return activated(await sharedVirtualEnv(), basePath);
}

/**
 * Writes `main` as the program's __main__.py, beside a Pulumi.yaml naming `project` and, unless
 * the stack installs the plugin from a file, the plugin of this checkout's node_modules/.bin;
 * returns how to rewrite __main__.py.
 */
export async function setUpPythonMain(
  workDir: string,
  program: { readonly main: string; readonly project: string },
  pluginFromFile: boolean,
): Promise<(source: string) => Promise<void>> {
  const plugins = pluginFromFile
    ? ""
    : `plugins:\n  providers:\n    - name: gpucloud\n      path: ${nativePluginDir}\n`;
  await writeFile(
    path.join(workDir, "Pulumi.yaml"),
    `name: ${program.project}\nruntime: python\n${plugins}`,
  );
  const setProgram = (source: string) => writeFile(path.join(workDir, "__main__.py"), source);
  await setProgram(program.main);
  return setProgram;
}
