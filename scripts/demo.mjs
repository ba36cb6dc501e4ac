// Runs `pulumi up`, prints the outputs and runs `pulumi destroy` of the demo program, in a
// throwaway stack on a temporary file backend. Exits non-zero when any step fails.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const program = path.join(root, "examples", "smoke");
const backend = mkdtempSync(path.join(tmpdir(), "gpucloud-demo-"));
const env = { ...process.env, PULUMI_BACKEND_URL: `file://${backend}` };

function pulumi(...args) {
  console.log(`\n$ pulumi ${args.join(" ")}`);
  const result = spawnSync("pulumi", args, { cwd: program, env, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`pulumi ${args[0]} failed (exit ${result.status})`);
}

let failed = false;
try {
  pulumi("stack", "init", "demo");
  pulumi("up", "--yes", "--stack", "demo");
  pulumi("stack", "output", "--stack", "demo");
} catch (error) {
  failed = true;
  console.error(String(error));
} finally {
  try {
    pulumi("destroy", "--yes", "--stack", "demo");
    pulumi("stack", "rm", "--yes", "demo");
  } catch (error) {
    failed = true;
    console.error(String(error));
  }
  rmSync(backend, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
