import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { request } from "undici";
import { withStack } from "../support/pulumi-stack";
import { program } from "../support/programs";

const execFileAsync = promisify(execFile);
const repoRoot = path.resolve(__dirname, "..", "..");

/** Starts the emulator through the installed package's `gpucloud-emulator` command. */
function startInstalledEmulator(projectDir: string, apiKey: string) {
  const child = spawn(
    path.join(projectDir, "node_modules", ".bin", "gpucloud-emulator"),
    ["--port", "0", "--api-key", apiKey, "--strict"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /^gpucloud-emulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.on("exit", (code) => {
      reject(new Error(`gpucloud-emulator exited (${String(code)}) before listening`));
    });
  });
}

/**
 * A fresh clone of the working tree: the files git tracks (or would: new and not ignored), no
 * dist/, with the repository's node_modules linked in place of `npm ci`.
 */
async function freshClone(into: string): Promise<string> {
  const clone = path.join(into, "clone");
  await mkdir(clone);
  const { stdout } = await execFileAsync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "-z"],
    { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
  );
  const files = stdout
    .split("\0")
    .filter((file) => file !== "" && existsSync(path.join(repoRoot, file)));
  for (const file of files) {
    await mkdir(path.dirname(path.join(clone, file)), { recursive: true });
    await copyFile(path.join(repoRoot, file), path.join(clone, file));
  }
  await symlink(path.join(repoRoot, "node_modules"), path.join(clone, "node_modules"));
  return clone;
}

describe("the published package, packed from a fresh clone", () => {
  let packDir: string;
  let tarball: string;
  beforeAll(async () => {
    // Packed from a fresh clone, as `npm pack` or an install from git would: its prepack builds.
    packDir = await mkdtemp(path.join(tmpdir(), "gpucloud-pack-"));
    const clone = await freshClone(packDir);
    const { stdout } = await execFileAsync(
      "npm",
      ["pack", "--pack-destination", packDir, "--loglevel=error"],
      { cwd: clone, maxBuffer: 16 * 1024 * 1024 },
    );
    tarball = path.join(packDir, stdout.trim().split("\n").pop() ?? "");
  });
  afterAll(async () => {
    await rm(packDir, { recursive: true, force: true });
  });

  it("holds the compiled code, its types and the emulator's command, and no sources", async () => {
    const { stdout } = await execFileAsync("tar", ["-tzf", tarball]);
    const files = stdout.trim().split("\n");
    expect(files).toEqual(
      expect.arrayContaining([
        "package/dist/provider/index.js",
        "package/dist/provider/index.d.ts",
        "package/dist/provider/resources/instance.d.ts",
        "package/dist/emulator/cli.js",
        "package/README.md",
      ]),
    );
    expect(
      files.filter((file) => /\.test\.|^package\/(test|provider|emulator|scripts)\//.test(file)),
    ).toEqual([]);
    // The policy pack: its folder (no sources) and its executable, which keeps its mode.
    expect(files.filter((file) => file.startsWith("package/policy/")).sort()).toEqual([
      "package/policy/PulumiPolicy.yaml",
      "package/policy/gpucloud-policy",
      "package/policy/package.json",
    ]);
    expect(files).toContain("package/dist/policy/index.js");
    const { stdout: listing } = await execFileAsync("tar", ["-tvzf", tarball]);
    expect(listing).toMatch(/^-rwxr-xr-x .* package\/policy\/gpucloud-policy$/m);
  });

  it("deploys and destroys from a fresh project that installed the tarball", async () => {
    const apiKey = `pack-key-${String(Date.now())}`;
    await withStack(
      {
        install: { tarball },
        program: program(`
const token = new gpucloud.Secret("token", { key: "PACKED", value: "from-the-tarball" });
const data = new gpucloud.Volume("data", { askId: 21001 });
exports.key = token.key;
exports.volumeName = data.volumeName;
`),
      },
      async ({ stack, workDir }) => {
        const emulator = await startInstalledEmulator(workDir, apiKey);
        try {
          await stack.setAllConfig({
            "gpucloud:apiKey": { value: apiKey, secret: true },
            "gpucloud:baseUrl": { value: emulator.url },
          });
          const up = await stack.up();
          expect(up.summary.resourceChanges).toEqual({ create: 3 });
          expect(up.outputs["key"]?.value).toBe("PACKED");
          expect(up.outputs["volumeName"]?.value).toMatch(/^V\.\d+$/);
          // The policy pack runs from the project's install, on its dependencies.
          const pack = path.join(workDir, "node_modules", "pulumi-gpucloud", "policy");
          const output: string[] = [];
          await stack.preview({
            policyPacks: [path.join(pack, "gpucloud-policy")],
            onOutput: (text) => output.push(text),
          });
          expect(output.join("")).toMatch(/✅ gpucloud-policy@v0\.1\.0/);
          const destroy = await stack.destroy();
          expect(destroy.summary.resourceChanges).toEqual({ delete: 3 });
          const state = await request(`${emulator.url}/_emulator/state`);
          const body = (await state.body.json()) as { secrets: unknown[]; volumes: unknown[] };
          expect(body.secrets).toEqual([]);
          expect(body.volumes).toEqual([]);
        } finally {
          emulator.child.kill("SIGTERM");
        }
      },
    );
  });
});
