import { execFile } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** The Node.js installed from the npm registry when the machine has no old one. */
const fallbackVersion = "20.20.2";

export interface OldNode {
  /** The `node` executable. */
  readonly file: string;
  /** Its `process.versions.node` and `process.execPath`, as it reports them. */
  readonly version: string;
  readonly execPath: string;
}

async function describeNode(file: string): Promise<OldNode | undefined> {
  try {
    const { stdout } = await execFileAsync(
      file,
      ["-p", "process.versions.node + '\\n' + process.execPath"],
      { timeout: 30_000 },
    );
    const [version = "", execPath = ""] = stdout.trim().split("\n");
    return { file, version, execPath };
  } catch {
    return undefined;
  }
}

/**
 * A Node.js older than `belowMajor`, to run the package's commands on one for real: the first
 * `node` on PATH or in /usr/bin or /usr/local/bin that is old enough (the Debian-based machines
 * have Node 20 in /usr/bin); when there is none, Node.js 20 installed from the npm registry into
 * the project's cache, as scripts/ensure-node.sh installs Node 24.
 */
export async function findOrInstallOldNode(belowMajor: number): Promise<OldNode> {
  const dirs = [...(process.env["PATH"] ?? "").split(path.delimiter), "/usr/bin", "/usr/local/bin"];
  const seen = new Set<string>();
  for (const dir of dirs) {
    const file = path.join(dir, "node");
    if (dir === "" || !existsSync(file) || seen.has(realpathSync(file))) continue;
    seen.add(realpathSync(file));
    const found = await describeNode(file);
    if (found !== undefined && Number(found.version.split(".")[0]) < belowMajor) return found;
  }
  const cache =
    process.env["GPUCLOUD_CACHE_DIR"] ??
    path.join(process.env["XDG_CACHE_HOME"] ?? path.join(homedir(), ".cache"), "pulumi-gpucloud");
  const prefix = path.join(cache, `node-v${fallbackVersion}`);
  const file = path.join(prefix, "node_modules", "node", "bin", "node");
  if (!existsSync(file)) {
    // The `node` package's preinstall script fetches the platform's binary package from the
    // registry; npm 11 runs a dependency's install scripts only when allowed by name.
    await execFileAsync("npm", [
      "install",
      "--prefix",
      prefix,
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      "--allow-scripts=node",
      `node@${fallbackVersion}`,
    ]);
  }
  const installed = await describeNode(file);
  if (installed === undefined) throw new Error(`node@${fallbackVersion} did not install ${file}`);
  return installed;
}
