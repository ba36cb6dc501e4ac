import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";

const execFileAsync = promisify(execFile);

/**
 * Once per Jest run (not per test): packs the package and installs it into the repository's
 * node_modules/pulumi-gpucloud as a real directory (scripts/install-package.mjs), so the
 * end-to-end programs load it as users do. The tarball's path reaches the test workers through
 * GPUCLOUD_PACKED_TARBALL, for the tests that install it into a fresh project.
 */
export default async function globalSetup(): Promise<void> {
  const root = path.resolve(__dirname, "..", "..");
  const tarballDir = await mkdtemp(path.join(tmpdir(), "gpucloud-pack-"));
  const { stdout } = await execFileAsync(
    process.execPath,
    [path.join(root, "scripts", "install-package.mjs"), "--tarball-dir", tarballDir],
    { cwd: root },
  );
  const result = z.object({ tarball: z.string() }).parse(JSON.parse(stdout.trim()));
  process.env["GPUCLOUD_PACKED_TARBALL"] = result.tarball;
}
