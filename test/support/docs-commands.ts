import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { type CodeBlock, codeBlocksIn, isTestedShell, leftOnAccount, whereIs } from "./doc-blocks";
import { repoRoot } from "./repo-root";
import { startTestEmulator, type TestEmulator } from "./emulator";
import { isAlive } from "./interrupt";
import { tarballFromSetup } from "./packages";
import { wheelhouse } from "./python-stack";
import { withoutPlugins } from "./yaml-stack";

const execFileAsync = promisify(execFile);

// Every command the documentation shows runs (the test files test/e2e/docs-commands-*.test.ts,
// each a group of documentation files: test/support/doc-command-groups.ts). Each block of
// README.md and docs/guides/*.md marked ```sh test runs, in the order of its file, with
// `bash -eo pipefail`, in a scratch "clone" of the repository per file: copies of examples/ and
// sdk/, links to node_modules/ and to the run's standalone tarballs in dist/packages/
// (test/support/e2e-global-setup.ts makes them). Each block starts in the clone's root, in a
// fresh shell. The environment is a user's with a local emulator: GPUCLOUD_BASE_URL and
// GPUCLOUD_API_KEY of an emulator of the file's own (its default generated market), a file
// backend, a PULUMI_HOME of the file's own (plugin installs do not reach the machine's), the
// toolchain's PATH without any `pulumi-resource-gpucloud` on it (a user's PATH does not hold
// node_modules/.bin), and pip pointed at the wheelhouse so that `pip install -r
// requirements.txt` works offline. A block that fails fails the test with its file, line and
// output; a block must leave no process running; at the end of each file the emulator must hold
// nothing and the clone's `git status` must be clean. A failure's report traces each command
// with its line in the file.

const blockTimeoutMs = 300_000;

/** The repository's files under `dirs` as a fresh clone has them (tracked, or new and not ignored). */
async function cloneFiles(dirs: readonly string[]): Promise<string[]> {
  const { stdout } = await execFileAsync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", ...dirs],
    { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
  );
  return [...new Set(stdout.split("\0"))].filter(
    (file) => file !== "" && existsSync(path.join(repoRoot, file)),
  );
}

interface Scratch {
  readonly clone: string;
  readonly emulator: TestEmulator;
  readonly env: NodeJS.ProcessEnv;
  readonly scripts: string;
  close(): Promise<void>;
}

async function openScratch(): Promise<Scratch> {
  const root = await mkdtemp(path.join(tmpdir(), "gpucloud-docs-"));
  const clone = path.join(root, "clone");
  const scripts = path.join(root, "blocks");
  const state = path.join(root, "state");
  const home = path.join(root, "pulumi-home");
  await Promise.all([mkdir(scripts), mkdir(state), mkdir(home)]);
  for (const file of await cloneFiles(["examples", "sdk"])) {
    await mkdir(path.dirname(path.join(clone, file)), { recursive: true });
    await copyFile(path.join(repoRoot, file), path.join(clone, file));
  }
  await symlink(path.join(repoRoot, "node_modules"), path.join(clone, "node_modules"));
  // A git repository with the project's ignore rules, so that what the commands leave behind
  // shows as a user's `git status` would show it.
  await copyFile(path.join(repoRoot, ".gitignore"), path.join(clone, ".gitignore"));
  const git = (...args: string[]) =>
    execFileAsync(
      "git",
      ["-c", "user.name=docs", "-c", "user.email=docs@example.invalid", ...args],
      {
        cwd: clone,
      },
    );
  await git("init", "-q");
  await git("add", "-A");
  await git("commit", "-qm", "the clone as it was");
  const packages = path.join(clone, "dist", "packages");
  await mkdir(packages, { recursive: true });
  for (const tarball of [
    tarballFromSetup("GPUCLOUD_PLUGIN_TARBALL"),
    tarballFromSetup("GPUCLOUD_EMULATOR_TARBALL"),
  ]) {
    await symlink(tarball, path.join(packages, path.basename(tarball)));
  }
  const emulator = await startTestEmulator({ market: { seed: 1 } });
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(PULUMI_|GPUCLOUD_|PIP_|VIRTUAL_ENV$)/.test(name),
    ),
  );
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    // A user's PATH does not hold node_modules/.bin, with its pulumi-resource-gpucloud.
    PATH: withoutPlugins(process.env["PATH"] ?? "", ["gpucloud"]),
    GPUCLOUD_BASE_URL: emulator.url,
    GPUCLOUD_API_KEY: emulator.apiKey,
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: "gpucloud-docs-passphrase",
    PULUMI_HOME: home,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
    PIP_NO_INDEX: "1",
    PIP_FIND_LINKS: await wheelhouse(),
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
    // Go's build cache keys a package built without -trimpath by its folder, and the clone's
    // sdk/go is in a new one each time: each Go block (README's workspace, policy.md's) compiled
    // it anew, about 40 s of CPU. With -trimpath the key is the module and its content, so it is
    // compiled once (setup compiles Pulumi's Go SDK so too); only the debug info's paths differ.
    GOFLAGS: [process.env["GOFLAGS"], "-trimpath"].filter(Boolean).join(" "),
  };
  return {
    clone,
    emulator,
    env,
    scripts,
    close: async () => {
      await emulator.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Whether any process of the group `pgid` is still alive. */
const groupAlive = (pgid: number): boolean => isAlive(-pgid);

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Gone meanwhile.
  }
}

interface BlockRun {
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  /** Processes of the block still running after it ended (killed by the test since). */
  readonly leftRunning: boolean;
  readonly output: string;
  readonly seconds: number;
}

/**
 * Runs a block with `bash -eo pipefail` (traced) in the clone's root, in its own process group, which is
 * killed after the block ends: a process the block left running fails it.
 */
async function runBlock(scratch: Scratch, block: CodeBlock): Promise<BlockRun> {
  const name = `${block.file.replace(/[/.]/g, "-")}-L${String(block.line)}.sh`;
  const script = path.join(scratch.scripts, name);
  // Traced, each command shown with its line in the Markdown file (bash takes no PS4 from the
  // environment when it runs as root): the block's first line is the script's second.
  const offset = block.line - 1;
  await writeFile(
    script,
    `PS4='+ ${block.file}:$((LINENO + ${String(offset)})): '; set -x\n${block.source}`,
  );
  const started = Date.now();
  const child = spawn("bash", ["-eo", "pipefail", script], {
    cwd: scratch.clone,
    env: scratch.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const closed = new Promise((resolve) => child.once("close", resolve));
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const pgid = child.pid;
  if (pgid === undefined) throw new Error("bash did not start");
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    signalGroup(pgid, "SIGKILL");
  }, blockTimeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearTimeout(timer);
  // What the block started may take a moment to end (a CLI's plugins); then it is a leftover.
  let leftRunning = false;
  for (let waited = 0; groupAlive(pgid) && waited < 15_000; waited += 200) {
    if (waited >= 5_000) {
      leftRunning = true;
      signalGroup(pgid, waited >= 8_000 ? "SIGKILL" : "SIGTERM");
    }
    await delay(200);
  }
  // The output pipes close once nothing holds them; a process of another group may.
  await Promise.race([
    closed,
    delay(2_000, undefined, { ref: false }).then(() => {
      child.stdout.destroy();
      child.stderr.destroy();
    }),
  ]);
  return { exitCode, timedOut, leftRunning, output, seconds: (Date.now() - started) / 1000 };
}

/** A failed block's report: where, why, its lines numbered as in the file, its output. */
function reportOf(block: CodeBlock, run: BlockRun): string {
  const why = run.timedOut
    ? `did not end within ${blockTimeoutMs / 1000} s`
    : run.exitCode !== 0
      ? `failed (exit ${String(run.exitCode)})`
      : "left a process running";
  const numbered = block.source
    .trimEnd()
    .split("\n")
    .map((line, index) => `${String(block.line + 1 + index).padStart(5)} | ${line}`)
    .join("\n");
  const tail = run.output.trimEnd().split("\n").slice(-200).join("\n");
  return (
    `${whereIs(block)}: this block ${why} after ${run.seconds.toFixed(1)} s ` +
    `(bash's "line N" is line ${String(block.line - 1)}+N of ${block.file}):\n${numbered}\n` +
    `--- its output, each command traced with its line ---\n${tail}`
  );
}

/**
 * The tested blocks of each of `files` (README.md, docs/guides/x.md), each file's in a describe
 * of its own with a scratch clone and an emulator of its own, one file after another.
 */
export function describeDocCommands(files: readonly string[]): void {
  describe.each(files.map((file) => [file, codeBlocksIn(file).filter(isTestedShell)] as const))(
    "%s",
    (_file, blocks) => {
      let scratch: Scratch | undefined;
      let failed: string | undefined;
      beforeAll(async () => {
        scratch = await openScratch();
      });
      afterAll(async () => {
        await scratch?.close();
      });

      it.each(blocks.map((block) => [`line ${String(block.line)}`, block] as const))(
        "the block at %s runs",
        async (_where, block) => {
          if (failed !== undefined) throw new Error(`not run: the block at ${failed} failed`);
          if (scratch === undefined) throw new Error("no scratch clone");
          const run = await runBlock(scratch, block);
          if (run.exitCode !== 0 || run.timedOut || run.leftRunning) {
            failed = whereIs(block);
            throw new Error(reportOf(block, run));
          }
        },
      );

      it("leaves the clone as it was (git status is clean)", async () => {
        if (scratch === undefined) throw new Error("no scratch clone");
        const { stdout } = await execFileAsync(
          "git",
          ["status", "--porcelain", "--untracked-files=all"],
          { cwd: scratch.clone },
        );
        expect(stdout.split("\n").filter((line) => line !== "")).toEqual([]);
      });

      it("leaves nothing on the emulator's account", async () => {
        if (scratch === undefined) throw new Error("no scratch clone");
        expect(await leftOnAccount(scratch.emulator)).toEqual({});
      });
    },
  );
}
