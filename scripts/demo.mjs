// `npm run demo`: starts the emulator on a free port, deploys the main example (the root
// Pulumi.yaml) with the real Pulumi CLI, prints the stack outputs, destroys everything and
// stops the emulator. Exits non-zero when any step failed; leaves nothing running.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

const root = path.resolve(import.meta.dirname, "..");
const stack = "demo";
const backend = mkdtempSync(path.join(tmpdir(), "gpucloud-demo-"));
const apiKey = `demo-${randomBytes(12).toString("hex")}`;
const env = { ...process.env, PULUMI_BACKEND_URL: `file://${backend}` };

function startEmulator() {
  const child = spawn(
    process.execPath,
    ["dist/emulator/cli.js", "--port", "0", "--api-key", apiKey, "--boot-polls", "3"],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) resolve({ child, url: match[1] });
    });
    child.on("exit", (code) => reject(new Error(`the emulator exited (${code}) before listening`)));
  });
}

function pulumi(args, input) {
  const shown = args.join(" ");
  console.log(`\n$ pulumi ${shown}`);
  const result = spawnSync("pulumi", [...args, "--stack", stack], {
    cwd: root,
    env,
    input,
    stdio: [input === undefined ? "inherit" : "pipe", "inherit", "inherit"],
  });
  if (result.status !== 0) throw new Error(`pulumi ${shown} failed (exit ${result.status})`);
}

let failed = false;
let emulator;
try {
  emulator = await startEmulator();
  console.log(`gpucloud emulator running at ${emulator.url}`);
  const init = spawnSync("pulumi", ["stack", "init", stack], { cwd: root, env, stdio: "inherit" });
  if (init.status !== 0) throw new Error("pulumi stack init failed");
  // Secret values go through standard input, never the command line.
  pulumi(["config", "set", "--secret", "gpucloud:apiKey"], apiKey);
  pulumi(["config", "set", "gpucloud:baseUrl", emulator.url]);
  pulumi(["config", "set", "--secret", "hfToken"], "hf_demo_token");
  pulumi(["config", "set", "pollIntervalSeconds", "1"]);
  pulumi(["up", "--yes"]);
  pulumi(["stack", "output"]);
} catch (error) {
  failed = true;
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  try {
    pulumi(["destroy", "--yes"]);
    pulumi(["stack", "rm", "--yes"]);
  } catch (error) {
    failed = true;
    console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
  }
  emulator?.child.kill("SIGTERM");
  rmSync(backend, { recursive: true, force: true });
}
console.log(failed ? "\ndemo: FAILED" : "\ndemo: done, nothing left running");
process.exit(failed ? 1 : 0);
