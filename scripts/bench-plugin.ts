/**
 * `npm run bench:plugin [-- --starts N] [-- --skip-setup]`: the standalone plugin's figures for
 * docs/maintainers/performance.md. A measurement, not a test: nothing asserts a figure.
 *
 * 1. Start to port printed: the standalone `pulumi-resource-gpucloud` against
 *    `node dist/provider/native/main.js`, median (and range) of N starts each, interleaved.
 * 2. Sizes: each tarball of `npm run package-plugin` and the executable it holds.
 * 3. Peak memory (VmHWM) of the standalone plugin's process during a Python program's `up`,
 *    `refresh` and `destroy` of 10 resources against the emulator, the plugin installed from its
 *    tarball as a user installs it.
 * 4. The time scripts/ensure-python-tools.sh (what setup adds for Python) takes on a fresh
 *    machine: empty project cache, Go module and build caches and pip cache, as CI's first run.
 *
 * Prints a Markdown table of each on stdout.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, readlink, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs, promisify } from "node:util";
import { repoRoot } from "../test/support/repo-root";
import { startTestEmulator } from "../test/support/emulator";
import { emulatorConfig } from "../test/support/programs";
import { withStack } from "../test/support/pulumi-stack";

const execFileAsync = promisify(execFile);
const { values: args } = parseArgs({
  options: {
    starts: { type: "string", default: "15" },
    "skip-setup": { type: "boolean", default: false },
  },
});

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? NaN)
    : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
};
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** `npm run package-plugin`'s tarballs: [emulator, plugin]. */
async function packagedTarballs(): Promise<{ emulator: string; plugin: string }> {
  const { stdout } = await execFileAsync(
    "node",
    [path.join(repoRoot, "scripts", "package-plugin.mjs")],
    {
      cwd: repoRoot,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const lines = stdout.trim().split("\n");
  const plugin = lines.at(-1) ?? "";
  const emulator = lines.find((line) => line.includes("gpucloud-emulator-")) ?? "";
  return { emulator, plugin };
}

/** Milliseconds from spawn to the first line (the port) on stdout; the process is then killed. */
function startToPort(command: string, commandArgs: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, commandArgs, { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (/^\d+\n/.test(out)) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        child.kill("SIGKILL");
        resolve(ms);
      }
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (!/^\d+\n/.test(out))
        reject(new Error(`${command} exited (${String(code)}) before its port`));
    });
  });
}

async function startTimes(standalone: string, starts: number) {
  const samples = { standalone: [] as number[], node: [] as number[] };
  const nodeEntry = path.join(repoRoot, "dist", "provider", "native", "main.js");
  // One unmeasured start of each first: the page cache, as on a machine that ran it before.
  await startToPort(standalone, []);
  await startToPort(process.execPath, [nodeEntry]);
  for (let i = 0; i < starts; i += 1) {
    samples.standalone.push(await startToPort(standalone, []));
    samples.node.push(await startToPort(process.execPath, [nodeEntry]));
  }
  return samples;
}

/** Peak VmHWM (KB) of every live process whose executable matches, polled until `stop()`. */
function watchPeakMemory(matches: (exe: string) => boolean) {
  const peaks = new Map<number, number>();
  let running = true;
  const poll = async () => {
    while (running) {
      for (const entry of await readdir("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          if (!matches(await readlink(`/proc/${entry}/exe`))) continue;
          const status = await readFile(`/proc/${entry}/status`, "utf8");
          const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
          peaks.set(Number(entry), Math.max(peaks.get(Number(entry)) ?? 0, hwm));
        } catch {
          // Gone between the listing and the read.
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const done = poll();
  return async () => {
    running = false;
    await done;
    return peaks;
  };
}

const tenResources = `import pulumi
import pulumi_gpucloud as gpucloud

for i in range(5):
    gpucloud.Secret(f"s{i}", key=f"BENCH_{i}", value=f"value-{i}")
for i in range(2):
    gpucloud.Volume(f"v{i}", ask_id=21001, size_gb=10)
for i in range(3):
    gpucloud.Instance(f"i{i}", ask_id=31001, image="pytorch/pytorch", disk_gb=20, poll_interval_seconds=0.2)
`;

/** The installed plugin's executable: PULUMI_HOME/plugins/resource-gpucloud-v<version>/. */
const isInstalledPlugin = (exe: string) =>
  /[/]plugins[/]resource-gpucloud-v[^/]+[/]pulumi-resource-gpucloud$/.test(exe);

async function pythonUpMemory(pluginTarball: string) {
  const emulator = await startTestEmulator({ bootPolls: 2 });
  try {
    const version = /-v([^-]+)-linux/.exec(path.basename(pluginTarball))?.[1] ?? "";
    const results: { step: string; seconds: number; peakKb: number; processes: number }[] = [];
    await withStack(
      {
        language: "python",
        program: { main: tenResources, project: "bench-plugin" },
        pluginFiles: [{ name: "gpucloud", version, file: pluginTarball }],
        config: emulatorConfig(emulator),
      },
      async ({ stack }) => {
        for (const step of ["up", "refresh", "destroy"] as const) {
          const stop = watchPeakMemory(isInstalledPlugin);
          const started = Date.now();
          if (step === "up") await stack.up();
          else if (step === "refresh") await stack.refresh();
          else await stack.destroy();
          const seconds = (Date.now() - started) / 1000;
          const peaks = await stop();
          results.push({
            step,
            seconds,
            peakKb: Math.max(0, ...peaks.values()),
            processes: peaks.size,
          });
        }
      },
    );
    return results;
  } finally {
    await emulator.close();
  }
}

async function freshPythonSetupSeconds(): Promise<number> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), "gpucloud-bench-setup-"));
  try {
    // Without the language hosts this machine has: the script would use one it finds on PATH.
    const searchPath = (process.env["PATH"] ?? "")
      .split(path.delimiter)
      .filter((dir) => !existsSync(path.join(dir, "pulumi-language-python")))
      .join(path.delimiter);
    const env = {
      ...process.env,
      PATH: searchPath,
      GPUCLOUD_CACHE_DIR: path.join(scratch, "cache"),
      GOMODCACHE: path.join(scratch, "gomod"),
      GOCACHE: path.join(scratch, "gocache"),
      PIP_NO_CACHE_DIR: "1",
    };
    const started = Date.now();
    await execFileAsync(
      "bash",
      [path.join(repoRoot, "scripts", "ensure-python-tools.sh"), path.join(scratch, "cli")],
      {
        env,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return (Date.now() - started) / 1000;
  } finally {
    // Go's module cache is read-only on disk.
    await execFileAsync("chmod", ["-R", "u+w", scratch]);
    await rm(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const tarballs = await packagedTarballs();
  const scratch = await mkdtemp(path.join(os.tmpdir(), "gpucloud-bench-plugin-"));
  try {
    await execFileAsync("tar", ["-xzf", tarballs.plugin, "-C", scratch]);
    const standalone = path.join(scratch, "pulumi-resource-gpucloud");
    const starts = Number(args.starts);
    const samples = await startTimes(standalone, starts);
    const range = (values: number[]) =>
      `${median(values).toFixed(0)} ms (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;
    console.log(`## Start to port printed (median of ${starts}, range)\n`);
    console.log("| plugin | start to port |\n| --- | --- |");
    console.log(`| standalone executable | ${range(samples.standalone)} |`);
    console.log(
      `| node dist/provider/native/main.js (Node ${process.versions.node}) | ${range(samples.node)} |\n`,
    );

    console.log("## Sizes\n\n| file | bytes |\n| --- | --- |");
    for (const tarball of [tarballs.plugin, tarballs.emulator]) {
      console.log(`| ${path.basename(tarball)} | ${mib((await stat(tarball)).size)} |`);
    }
    await execFileAsync("tar", ["-xzf", tarballs.emulator, "-C", scratch]);
    for (const exe of ["pulumi-resource-gpucloud", "gpucloud-emulator"]) {
      console.log(`| ${exe} (executable) | ${mib((await stat(path.join(scratch, exe))).size)} |`);
    }

    const memory = await pythonUpMemory(tarballs.plugin);
    console.log("\n## The standalone plugin in a 10-resource Python program\n");
    console.log(
      "| step | seconds | plugin peak RSS | plugin processes |\n| --- | --- | --- | --- |",
    );
    for (const { step, seconds, peakKb, processes } of memory) {
      console.log(
        `| ${step} | ${seconds.toFixed(1)} | ${(peakKb / 1024).toFixed(0)} MB | ${processes} |`,
      );
    }

    if (!args["skip-setup"]) {
      const seconds = await freshPythonSetupSeconds();
      console.log(
        `\n## scripts/ensure-python-tools.sh on a fresh machine: ${seconds.toFixed(0)} s`,
      );
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
