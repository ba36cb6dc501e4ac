import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  type ConfigMap,
  LocalWorkspace,
  type PreviewResult,
  PulumiCommand,
  type Stack,
} from "@pulumi/pulumi/automation";
import { z } from "zod";
import { activated, type PythonProgram, pythonEnv, setUpPythonMain } from "./python-stack";
import { setUpTypeScript, type TypeScriptProgram } from "./typescript-stack";
import { keeperEnv, keeperSecretsProvider, runKeeperUrl } from "./secrets-keeper";
import { writeStackConfig } from "./stack-config";
import { readCheckpoint, withResultsFromTheRun } from "./stack-results";
import { type GoProgram, setUpYamlText, withoutPlugins, type YamlProgram } from "./yaml-stack";

const execFileAsync = promisify(execFile);

const passphrase = "gpucloud-e2e-passphrase";

// The CLI as the Automation API finds it, once per test process: a workspace made without one
// runs `pulumi version` first, a CLI call per stack that the tests need not pay for.
let sharedCommand: Promise<PulumiCommand> | undefined;
const pulumiCommand = (): Promise<PulumiCommand> => (sharedCommand ??= PulumiCommand.get());

export interface PluginFile {
  readonly name: string;
  readonly version: string;
  /** The plugin's tarball. */
  readonly file: string;
}

/** What every language's stack takes besides its program. */
export interface CommonStackOptions {
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
  /**
   * What the teardown does with what the state still holds: destroys it (the default), or, for
   * a stack whose resources live only in an emulator the test closes afterwards (or in no
   * service at all), drops it with the stack's directory: a destroy there proves nothing that the
   * tests of destroy do not, and costs a CLI operation.
   */
  readonly teardown?: "destroy" | "discard";
}

/** The program, per language (TypeScript unless `language` says otherwise), and the stack's options. */
export type StackOptions = CommonStackOptions &
  (TypeScriptProgram | YamlProgram | PythonProgram | GoProgram);

/** A stack in its own temporary directory and file backend, driven by the real Pulumi CLI. */
export interface TestStack {
  readonly stack: Stack;
  /** The program's folder, which the stack runs from (its file backend is `.state` in it). */
  readonly workDir: string;
  /**
   * Rewrites the program (index.js, Pulumi.yaml or __main__.py), for the next step; a stack of a
   * copied folder refuses.
   */
  setProgram: (source: string) => Promise<void>;
  /** Runs a preview and returns its result; throws when the preview fails. */
  preview: () => Promise<PreviewResult>;
  /** `pulumi stack export` of the stack, secrets decrypted unless `showSecrets` is false. */
  exportState: (showSecrets?: boolean) => Promise<string>;
  /** What the CLI printed in this stack's previews and its teardown, for leak checks. */
  readonly output: string[];
  /** The environment the CLI runs with (backend, secrets provider), to run it directly. */
  readonly cliEnv: Readonly<Record<string, string>>;
  /** What installing `pluginFiles` printed (stdout and stderr); empty without them. */
  readonly setupOutput: string;
}

/**
 * Runs `body` against a fresh stack of the program, in its own temporary directory with a file
 * backend, driven by the real Pulumi CLI and the language's host, and always tears it down
 * afterwards: destroy (when anything is left) and the directory with its backend, also when
 * `body` throws. The body's failure is the one reported; a failing clean-up is said with it.
 */
export async function withStack<T>(
  options: StackOptions,
  body: (stack: TestStack) => Promise<T>,
): Promise<T> {
  const language = options.language ?? "typescript";
  const workDir = await mkdtemp(path.join(tmpdir(), `gpucloud-${language}-e2e-`));
  try {
    const { env, setProgram } = await setUpProgram(workDir, options);
    const backendDir = path.join(workDir, ".state");
    await mkdir(backendDir);
    const pluginFiles = options.pluginFiles ?? [];
    const programEnv = { ...options.env, ...env };
    // The run's secrets keeper when there is one (secrets-keeper.ts), the passphrase otherwise.
    const keeperUrl = runKeeperUrl();
    const cliEnv = {
      PULUMI_BACKEND_URL: `file://${backendDir}`,
      PULUMI_CONFIG_PASSPHRASE: passphrase,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      ...(keeperUrl === undefined ? {} : keeperEnv(keeperUrl)),
      ...programEnv,
      ...(pluginFiles.length > 0
        ? {
            PULUMI_HOME: path.join(workDir, ".pulumi-home"),
            PATH: withoutPlugins(
              programEnv["PATH"] ?? process.env["PATH"] ?? "",
              pluginFiles.map(({ name }) => name),
            ),
          }
        : {}),
    };
    const cli = async (args: string[]) => {
      const { stdout, stderr } = await execFileAsync("pulumi", args, {
        cwd: workDir,
        env: { ...process.env, ...cliEnv },
        maxBuffer: 256 * 1024 * 1024,
      });
      return { stdout, stderr };
    };
    let setupOutput = "";
    for (const plugin of pluginFiles) {
      const args = ["plugin", "install", "resource", plugin.name, plugin.version];
      const { stdout, stderr } = await cli([...args, "--file", plugin.file]);
      setupOutput += stdout + stderr;
    }

    const stackName = options.stackName ?? "test";
    const configWritten =
      options.config !== undefined &&
      (await writeStackConfig(
        workDir,
        stackName,
        options.config,
        keeperUrl === undefined ? { passphrase } : { keeperUrl },
      ));
    const stack = await LocalWorkspace.createStack(
      { stackName, workDir },
      {
        envVars: cliEnv,
        pulumiCommand: await pulumiCommand(),
        ...(keeperUrl === undefined ? {} : { secretsProvider: keeperSecretsProvider }),
      },
    );
    withResultsFromTheRun(stack, backendDir, cli);
    if (options.config && !configWritten) await stack.setAllConfig(options.config);
    const output: string[] = [];
    const testStack: TestStack = {
      stack,
      workDir,
      output,
      cliEnv,
      setupOutput,
      setProgram,
      preview: () => stack.preview({ onOutput: (text) => output.push(text) }),
      exportState: async (showSecrets = true) => {
        const args = ["stack", "export", "--stack", stackName];
        if (showSecrets) args.push("--show-secrets");
        return (await cli(args)).stdout;
      },
    };
    if (options.teardown === "discard") return await body(testStack);
    return await thenTearDown(() => body(testStack), stack, backendDir, output);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * Whether the stack's state holds any resource, read from the file backend's checkpoint rather
 * than through `pulumi stack export` (a CLI call); undefined when the backend holds no checkpoint
 * of that name or several (a test that made other stacks in it).
 */
async function holdsResources(backendDir: string, stackName: string): Promise<boolean | undefined> {
  const checkpoint = await readCheckpoint(backendDir, stackName);
  return checkpoint && (checkpoint.latest?.resources ?? []).length > 0;
}

const deploymentSchema = z.looseObject({ resources: z.array(z.unknown()).optional() });

/**
 * `body`'s result after the teardown; its failure, with the teardown's said, when it throws. The
 * teardown destroys what the state holds; the stack and its backend go with the directory.
 */
async function thenTearDown<T>(
  body: () => Promise<T>,
  stack: Stack,
  backendDir: string,
  output: string[],
): Promise<T> {
  const tearDown = async () => {
    const holds =
      (await holdsResources(backendDir, stack.name)) ??
      (deploymentSchema.parse((await stack.exportStack()).deployment).resources ?? []).length > 0;
    if (holds) {
      await stack.destroy({ onOutput: (text) => output.push(text) });
    }
  };
  let result: T;
  try {
    result = await body();
  } catch (error) {
    await tearDown().catch((tearDownError: unknown) => {
      // Said with the body's failure, so that what was left behind is not lost from view.
      if (error instanceof Error)
        error.message += `\n(clean-up failed too: ${String(tearDownError)})`;
      output.push(`clean-up failed too: ${String(tearDownError)}`);
    });
    throw error;
  }
  await tearDown();
  return result;
}

interface SetUpProgram {
  /** What the language's host needs in the CLI's environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly setProgram: (source: string) => Promise<void>;
}

/** Puts the program in `workDir`, as its language needs it. */
async function setUpProgram(workDir: string, options: StackOptions): Promise<SetUpProgram> {
  switch (options.language) {
    case undefined:
    case "typescript":
      return { env: {}, setProgram: await setUpTypeScript(workDir, options) };
    case "yaml":
      return {
        env: {},
        setProgram:
          "dir" in options.program
            ? await copied(options.program.dir, workDir)
            : await setUpYamlText(workDir, options.program.text),
      };
    case "python":
      return {
        env:
          options.virtualEnv === undefined
            ? await pythonEnv(options.env?.["PATH"] ?? process.env["PATH"] ?? "")
            : activated(options.virtualEnv, options.env?.["PATH"] ?? process.env["PATH"] ?? ""),
        setProgram:
          "dir" in options.program
            ? await copied(options.program.dir, workDir)
            : await setUpPythonMain(
                workDir,
                options.program,
                (options.pluginFiles ?? []).length > 0,
              ),
      };
    case "go":
      return { env: {}, setProgram: await copied(options.program.dir, workDir) };
  }
}

/** Copies the program's folder into `workDir`; its program is the folder's, not to be rewritten. */
async function copied(dir: string, workDir: string): Promise<(source: string) => Promise<void>> {
  await cp(dir, workDir, { recursive: true });
  return () =>
    Promise.reject(new Error(`the stack runs a copy of ${dir}: change that folder's files`));
}
