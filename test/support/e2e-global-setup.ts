import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { type SecretsKeeper, startSecretsKeeper } from "./secrets-keeper";

const execFileAsync = promisify(execFile);

/**
 * Once per Jest run (not per test), side by side:
 * - packs the package and installs it into the repository's node_modules/pulumi-gpucloud as a
 *   real directory (scripts/install-package.mjs), so the end-to-end programs load it as users
 *   do. The tarball's path reaches the test workers through GPUCLOUD_PACKED_TARBALL, for the
 *   tests that install it into a fresh project.
 * - makes the standalone plugin's and emulator's tarballs (scripts/package-plugin.mjs, `npm run
 *   package-plugin`; reused when nothing they are made from changed), whose paths reach the
 *   workers through GPUCLOUD_PLUGIN_TARBALL and GPUCLOUD_EMULATOR_TARBALL.
 * - makes a folder for what the run's tests share and the teardown removes (the compile cache
 *   below): GPUCLOUD_E2E_RUN_DIR.
 * - gives every Node.js process the tests start (each program, dynamic provider and plugin of
 *   the hundreds of Pulumi operations) one compile cache in that folder, NODE_COMPILE_CACHE:
 *   loading @pulumi/pulumi and the package takes about 40% less time from the second process on
 *   (420 to 255 ms, and 110 to 80 ms, on these machines). Unless the environment sets its own.
 * - starts the stacks' secrets keeper (test/support/secrets-keeper.ts), which the teardown stops.
 */
export default async function globalSetup(): Promise<void> {
  const root = path.resolve(__dirname, "..", "..");
  const runDir = await mkdtemp(path.join(tmpdir(), "gpucloud-e2e-run-"));
  process.env["GPUCLOUD_E2E_RUN_DIR"] = runDir;
  process.env["NODE_COMPILE_CACHE"] ??= path.join(runDir, "node-compile-cache");
  (globalThis as { gpucloudSecretsKeeper?: SecretsKeeper }).gpucloudSecretsKeeper =
    await startSecretsKeeper();
  const tarballDir = await mkdtemp(path.join(tmpdir(), "gpucloud-pack-"));
  const [installed, packaged] = await Promise.all([
    execFileAsync(
      process.execPath,
      [path.join(root, "scripts", "install-package.mjs"), "--tarball-dir", tarballDir],
      { cwd: root },
    ),
    execFileAsync(process.execPath, [path.join(root, "scripts", "package-plugin.mjs")], {
      cwd: root,
    }),
  ]);
  const result = z.object({ tarball: z.string() }).parse(JSON.parse(installed.stdout.trim()));
  process.env["GPUCLOUD_PACKED_TARBALL"] = result.tarball;
  // One path a line, the plugin's last.
  const [emulatorTarball, pluginTarball] = z
    .tuple([
      z.string().regex(/\/gpucloud-emulator-v[^/]+-linux-amd64\.tar\.gz$/),
      z.string().regex(/\/pulumi-resource-gpucloud-v[^/]+-linux-amd64\.tar\.gz$/),
    ])
    .parse(packaged.stdout.trim().split("\n"));
  process.env["GPUCLOUD_EMULATOR_TARBALL"] = emulatorTarball;
  process.env["GPUCLOUD_PLUGIN_TARBALL"] = pluginTarball;
}
