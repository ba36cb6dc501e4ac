import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { z } from "zod";
import { minimumNodeMajor } from "../../bin/node-version";
import { repoRoot } from "../support/repo-root";
import { findOrInstallOldNode, type OldNode } from "../support/old-node";

const execFileAsync = promisify(execFile);

// The npm package's commands (package.json `bin`, built to dist/bin by `npm test`'s build), run
// with a real Node.js older than the package needs, and with this one.
const packageJson = z
  .object({
    version: z.string(),
    engines: z.object({ node: z.string() }),
    bin: z.record(z.string(), z.string()),
  })
  .parse(JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")));
const binOf = (name: string) => path.join(repoRoot, packageJson.bin[name] ?? `no bin ${name}`);
const { version } = packageJson;

function refusal(program: string, node: OldNode): string {
  const tarball = `${program}-v${version}-linux-amd64.tar.gz`;
  const alternative =
    program === "gpucloud-cost"
      ? "or run `pulumi-resource-gpucloud cost` from the standalone plugin, which brings its own Node.js"
      : program === "pulumi-resource-gpucloud"
        ? `or install the standalone plugin, which brings its own Node.js: pulumi plugin install resource gpucloud ${version} --file ${tarball}`
        : `or run the standalone ${program} executable from ${tarball}, which brings its own Node.js`;
  return (
    `${program}: needs Node.js 22 or later, found Node.js ${node.version} at ${node.execPath}; ` +
    `install Node.js 22+, ${alternative}\n`
  );
}

// Each test starts Node.js processes: 5 s is too short on a loaded 2-core machine.
jest.setTimeout(30_000);

describe("the npm package's commands check the Node.js version first", () => {
  let oldNode: OldNode;
  beforeAll(async () => {
    oldNode = await findOrInstallOldNode(22);
  }, 300_000);

  it("requires what package.json's engines says", () => {
    expect(packageJson.engines.node).toBe(`>=${minimumNodeMajor}`);
    expect(Object.keys(packageJson.bin).sort()).toEqual([
      "gpucloud-cost",
      "gpucloud-emulator",
      "pulumi-resource-gpucloud",
    ]);
  });

  it.each(["gpucloud-cost", "gpucloud-emulator", "pulumi-resource-gpucloud"])(
    "%s on an older Node.js: one line on stderr, exit status 1, no stack trace",
    async (program) => {
      expect(Number(oldNode.version.split(".")[0])).toBeLessThan(22);
      const result = await execFileAsync(oldNode.file, [binOf(program), "--port", "0"]).then(
        () => ({ code: 0, stdout: "", stderr: "" }),
        (error: unknown) =>
          z.object({ code: z.number(), stdout: z.string(), stderr: z.string() }).parse(error),
      );
      expect(result).toEqual({ code: 1, stdout: "", stderr: refusal(program, oldNode) });
      expect(result.stderr).not.toMatch(/^\s+at /m);
    },
  );

  it("gpucloud-emulator on this Node.js: the emulator's command", async () => {
    const { stdout } = await execFileAsync(process.execPath, [
      binOf("gpucloud-emulator"),
      "--help",
    ]);
    expect(stdout).toMatch(/^usage: gpucloud-emulator --port N --api-key K/);
  });

  it.each([
    ["gpucloud-cost", []],
    ["pulumi-resource-gpucloud", ["cost"]],
  ])("%s on this Node.js: prices a preview's JSON from stdin", async (program, args) => {
    const preview = JSON.stringify({
      steps: [],
      diagnostics: [
        {
          message: "gpucloud: $4.20/h to create: ask 1\n",
          severity: "info",
          urn: "urn:pulumi:dev::p::gpucloud:index:Instance::a",
        },
      ],
    });
    const child = execFileAsync(process.execPath, [binOf(program), ...args, "--markdown"]);
    child.child.stdin?.end(preview);
    const { stdout } = await child;
    expect(stdout).toBe(
      "this change: +$4.20/h ($4.20/h after, $0.00/h now); bandwidth (billed per byte) left out\n",
    );
  });

  it("pulumi-resource-gpucloud on this Node.js: the plugin, its port alone on stdout", async () => {
    const child = spawn(process.execPath, [binOf("pulumi-resource-gpucloud")], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once("line", resolve);
        child.once("exit", (code) => {
          reject(new Error(`the plugin exited (${String(code)}) before printing its port`));
        });
      });
      expect(firstLine).toMatch(/^\d+$/);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });
});
