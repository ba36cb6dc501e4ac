import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** The toolchain's cache folder (scripts/setup.sh's): kept between runs on one machine. */
export function cacheRoot(): string {
  const xdg = process.env["XDG_CACHE_HOME"] ?? path.join(os.homedir(), ".cache");
  return process.env["GPUCLOUD_CACHE_DIR"] ?? path.join(xdg, "pulumi-gpucloud");
}

/**
 * A virtual environment made once per machine for what `inputs` hold (files or folders: the
 * locks it installs, the package it copies), as the toolchain's other caches are: in the cache
 * folder, named by `name` and a hash of the inputs' contents and the Python version, filled by
 * `fill` the first time (by one process; the others wait) and reused by later runs. A change of
 * any input makes another, and those of the same name unused for two days are removed.
 */
export async function cachedVirtualEnv(
  name: string,
  inputs: readonly string[],
  fill: (dir: string) => Promise<void>,
): Promise<string> {
  const { stdout: python } = await execFileAsync("python3", ["--version"]);
  const hash = createHash("sha256").update(python);
  // Contents and names within each input, not where the checkout is: another clone finds it.
  for (const input of inputs) await hashInto(hash, input, path.basename(input));
  const parent = path.join(cacheRoot(), "python-venvs");
  await mkdir(parent, { recursive: true });
  const dir = path.join(parent, `${name}-${hash.digest("hex").slice(0, 16)}`);
  await madeOnce(dir, async () => {
    await fill(dir);
    await removeUnused(parent, name, dir);
  });
  // Used now: what is left unused is removed by the next that makes one of this name.
  const now = new Date();
  await utimes(path.join(dir, "made"), now, now).catch(() => undefined);
  return dir;
}

async function hashInto(
  hash: ReturnType<typeof createHash>,
  file: string,
  name: string,
): Promise<void> {
  if (!(await stat(file)).isDirectory()) {
    hash.update(name).update(await readFile(file));
    return;
  }
  const entries = (await readdir(file)).filter(
    (entry) => !/^(build|__pycache__|.*\.egg-info)$/.test(entry),
  );
  for (const entry of entries.sort()) {
    await hashInto(hash, path.join(file, entry), `${name}/${entry}`);
  }
}

const unusedMs = 2 * 24 * 3600_000;
const staleLockMs = 10 * 60_000;

async function removeUnused(parent: string, name: string, kept: string): Promise<void> {
  for (const entry of await readdir(parent)) {
    const dir = path.join(parent, entry);
    if (dir === kept || !entry.startsWith(`${name}-`) || entry.endsWith(".lock")) continue;
    const made = await stat(path.join(dir, "made")).catch(() => undefined);
    if (made !== undefined && Date.now() - made.mtimeMs > unusedMs) {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/**
 * Runs `make` for `dir` in one process: the first to take the lock (a folder beside it, made
 * atomically) makes it; the others wait until it is made, or take the lock over if the maker
 * failed and let it go, or left it (killed) more than ten minutes ago. A made `dir` holds the
 * file `made`.
 */
async function madeOnce(dir: string, make: () => Promise<void>): Promise<void> {
  const made = path.join(dir, "made");
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 10 * 60_000;
  while (!existsSync(made)) {
    const locked = await mkdir(lock).then(
      () => true,
      () => false,
    );
    if (locked) {
      try {
        await rm(dir, { recursive: true, force: true });
        await make();
        await writeFile(made, "");
      } finally {
        await rm(lock, { recursive: true, force: true });
      }
      return;
    }
    const held = await stat(lock).catch(() => undefined);
    if (held !== undefined && Date.now() - held.mtimeMs > staleLockMs) {
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${dir}: not made within 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
