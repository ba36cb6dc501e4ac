import { rm } from "node:fs/promises";
import path from "node:path";
import type { SecretsKeeper } from "./secrets-keeper";

/**
 * Stops the stacks' secrets keeper, and removes the run's tarball (the installed copy stays, for
 * the examples and the next run) and the folder of what its tests shared.
 */
export default async function globalTeardown(): Promise<void> {
  await (globalThis as { gpucloudSecretsKeeper?: SecretsKeeper }).gpucloudSecretsKeeper?.close();
  const tarball = process.env["GPUCLOUD_PACKED_TARBALL"];
  if (tarball) await rm(path.dirname(tarball), { recursive: true, force: true });
  const runDir = process.env["GPUCLOUD_E2E_RUN_DIR"];
  if (runDir) await rm(runDir, { recursive: true, force: true });
}
