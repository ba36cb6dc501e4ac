import { existsSync } from "node:fs";

/**
 * A tarball test/support/e2e-global-setup.ts packed once for the run (plugin, emulator, or the
 * npm package).
 */
export function tarballFromSetup(
  variable: "GPUCLOUD_PLUGIN_TARBALL" | "GPUCLOUD_EMULATOR_TARBALL" | "GPUCLOUD_PACKED_TARBALL",
): string {
  const file = process.env[variable];
  if (file === undefined || file === "" || !existsSync(file)) {
    throw new Error(`${variable} is not set: test/support/e2e-global-setup.ts makes the tarballs`);
  }
  return file;
}
