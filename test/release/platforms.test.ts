import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { useEmulator } from "../support/use-emulator";
import { project, stackOn, yamlTokenProgram } from "./mirror";
import { releaseDir, releaseVersion } from "./release-dir";

const execFileAsync = promisify(execFile);

// Every platform as far as this linux-amd64 machine can (RELEASING.md): linux-arm64 runs under
// user-mode emulation (qemu-user-static, with Debian's arm64 C library); the macOS and Windows
// executables are checked by their format, architecture, the program inside and (macOS) an
// ad-hoc signature. Wine 8 cannot start Bun's Windows runtime (it lacks bcryptprimitives.dll),
// so Windows gets the format checks only. scripts/release-check.sh installs the tools.
const { emulator } = useEmulator({ per: "file" });
const version = releaseVersion();
const programs = ["pulumi-resource-gpucloud", "gpucloud-emulator"] as const;
// Bun's standalone executables end their embedded program with this trailer.
const bunTrailer = Buffer.from("\n---- Bun! ----\n");

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "gpucloud-platforms-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The executable of a release tarball, extracted into its own folder; its path. */
async function extracted(program: string, target: string): Promise<string> {
  const dir = path.join(scratch, `${program}-${target}`);
  await mkdir(dir, { recursive: true });
  const tarball = path.join(releaseDir(), `${program}-v${version}-${target}.tar.gz`);
  const { stdout } = await execFileAsync("tar", ["-tzf", tarball]);
  const exe = target.startsWith("windows") ? `${program}.exe` : program;
  expect(stdout).toBe(`${exe}\n`);
  await execFileAsync("tar", ["-xzf", tarball, "-C", dir]);
  return path.join(dir, exe);
}

const machO = { magic: 0xfeedfacf, arm64: 0x0100000c, amd64: 0x01000007 } as const;

/** A 64-bit Mach-O's CPU type, segment names, and where its code signature is (LC_CODE_SIGNATURE). */
function readMachO(file: Buffer) {
  expect(file.readUInt32LE(0)).toBe(machO.magic);
  const commands = file.readUInt32LE(16);
  const segments: string[] = [];
  let signature: { offset: number; size: number } | undefined;
  let offset = 32;
  for (let i = 0; i < commands; i += 1) {
    const kind = file.readUInt32LE(offset);
    if (kind === 0x19) {
      segments.push(file.toString("latin1", offset + 8, offset + 24).replace(/\0+$/, ""));
    }
    if (kind === 0x1d) {
      signature = { offset: file.readUInt32LE(offset + 8), size: file.readUInt32LE(offset + 12) };
    }
    offset += file.readUInt32LE(offset + 4);
  }
  return { cpu: file.readUInt32LE(4), segments, signature };
}

/**
 * Checks a code signature as macOS does before running a page: the code directory's SHA-256 of
 * every page up to the signature must match the file. Returns its flags (Bun 1.4's own output
 * passes this too, with the linker's flag: the release replaces it, RELEASING.md says why).
 */
function verifyCodeDirectory(file: Buffer, signature: { offset: number; size: number }) {
  const blob = file.subarray(signature.offset, signature.offset + signature.size);
  expect(blob.readUInt32BE(0)).toBe(0xfade0cc0); // the embedded signature's super blob
  const count = blob.readUInt32BE(8);
  const slots = Array.from({ length: count }, (_, i) => ({
    type: blob.readUInt32BE(12 + i * 8),
    offset: blob.readUInt32BE(16 + i * 8),
  }));
  const directory = slots.find((slot) => slot.type === 0);
  if (directory === undefined) throw new Error("no code directory");
  const cd = blob.subarray(directory.offset);
  expect(cd.readUInt32BE(0)).toBe(0xfade0c02);
  const hashOffset = cd.readUInt32BE(16);
  const codeSlots = cd.readUInt32BE(28);
  const codeLimit = cd.readUInt32BE(32);
  expect([cd.readUInt8(36), cd.readUInt8(37)]).toEqual([32, 2]); // SHA-256
  const pageSize = 2 ** cd.readUInt8(39);
  expect(codeLimit).toBe(signature.offset);
  expect(codeSlots).toBe(Math.ceil(codeLimit / pageSize));
  for (let slot = 0; slot < codeSlots; slot += 1) {
    const page = file.subarray(slot * pageSize, Math.min((slot + 1) * pageSize, codeLimit));
    const expected = cd.subarray(hashOffset + slot * 32, hashOffset + (slot + 1) * 32);
    if (!createHash("sha256").update(page).digest().equals(expected)) {
      throw new Error(`page ${slot} does not match its hash in the code directory`);
    }
  }
  return cd.readUInt32BE(12);
}

/** A PE's machine, subsystem and section names. */
function readPe(file: Buffer) {
  expect(file.toString("latin1", 0, 2)).toBe("MZ");
  const pe = file.readUInt32LE(0x3c);
  expect(file.toString("latin1", pe, pe + 4)).toBe("PE\0\0");
  const sectionCount = file.readUInt16LE(pe + 6);
  const optionalSize = file.readUInt16LE(pe + 20);
  const optional = pe + 24;
  const sections: string[] = [];
  for (let i = 0; i < sectionCount; i += 1) {
    const at = optional + optionalSize + i * 40;
    sections.push(file.toString("latin1", at, at + 8).replace(/\0+$/, ""));
  }
  return {
    machine: file.readUInt16LE(pe + 4),
    pe32plus: file.readUInt16LE(optional) === 0x20b,
    subsystem: file.readUInt16LE(optional + 68),
    sections,
  };
}

describe.each(["darwin-arm64", "darwin-amd64"])("%s", (target) => {
  test.each(programs)(
    "%s: Mach-O of the architecture, the program inside, signed ad hoc",
    async (program) => {
      const file = await extracted(program, target);
      const bytes = await readFile(file);
      const header = readMachO(bytes);
      expect(header.cpu).toBe(target.endsWith("arm64") ? machO.arm64 : machO.amd64);
      expect(header.segments).toContain("__BUN");
      expect(bytes.includes(bunTrailer)).toBe(true);
      if (header.signature === undefined) throw new Error(`${program} is not signed`);
      const flags = verifyCodeDirectory(bytes, header.signature);
      expect(flags & 0x2).toBe(0x2); // ad hoc
      expect(flags & 0x20000).toBe(0); // rcodesign's, not the linker-made one Bun wrote
    },
  );
});

test.each(programs)(
  "windows-amd64 %s: PE32+ x86-64 console program with the program inside",
  async (program) => {
    const bytes = await readFile(await extracted(program, "windows-amd64"));
    const pe = readPe(bytes);
    expect(pe).toMatchObject({ machine: 0x8664, pe32plus: true, subsystem: 3 });
    expect(pe.sections).toContain(".bun");
    expect(bytes.includes(bunTrailer)).toBe(true);
  },
);

describe("linux-arm64 under user-mode emulation", () => {
  /** A folder whose `pulumi-resource-gpucloud` runs the arm64 plugin through qemu. */
  async function emulatedPluginDir(): Promise<string> {
    const plugin = await extracted("pulumi-resource-gpucloud", "linux-arm64");
    const dir = path.join(scratch, "arm64-bin");
    await mkdir(dir, { recursive: true });
    const wrapper = path.join(dir, "pulumi-resource-gpucloud");
    const libraries = process.env["GPUCLOUD_ARM64_SYSROOT"] ?? "/usr/aarch64-linux-gnu";
    await writeFile(
      wrapper,
      `#!/bin/sh\nexec qemu-aarch64-static -L ${libraries} ${plugin} "$@"\n`,
    );
    await chmod(wrapper, 0o755);
    return dir;
  }

  test("the plugin is an arm64 ELF that serves its schema and previews a program", async () => {
    const dir = await emulatedPluginDir();
    const { stdout: kind } = await execFileAsync("file", [
      path.join(scratch, "pulumi-resource-gpucloud-linux-arm64", "pulumi-resource-gpucloud"),
    ]);
    expect(kind).toContain("ARM aarch64");
    const { stdout } = await execFileAsync(
      "pulumi",
      ["package", "get-schema", path.join(dir, "pulumi-resource-gpucloud")],
      { maxBuffer: 1 << 28 },
    );
    const schema = JSON.parse(stdout) as { version: string; resources: Record<string, unknown> };
    expect(schema.version).toBe(version);
    expect(Object.keys(schema.resources)).toContain("gpucloud:index:Secret");

    const proj = await project(path.join(scratch, "arm64-preview"), undefined);
    await writeFile(
      path.join(proj.dir, "Pulumi.yaml"),
      yamlTokenProgram("arm64-preview", {
        head: `plugins:\n  providers:\n    - name: gpucloud\n      path: ${dir}\n`,
      }),
    );
    await stackOn(proj, emulator);
    const preview = await proj.pulumi("preview");
    expect(preview).toMatch(/\+\s+gpucloud:index:Secret\s+token\s+create/);
    expect(await emulator.writes()).toEqual([]);
  });
});

test("checksums.txt holds the SHA-256 of every other file of the release", async () => {
  const dir = releaseDir();
  const listed = new Map(
    (await readFile(path.join(dir, "checksums.txt"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => {
        const [hash, file] = line.split("  ");
        return [file ?? "", hash ?? ""] as const;
      }),
  );
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .filter((file) => file !== "checksums.txt")
    .sort();
  expect([...listed.keys()].sort()).toEqual(files);
  for (const file of files) {
    const hash = createHash("sha256").update(await readFile(path.join(dir, file)));
    expect(`${file} ${listed.get(file)}`).toBe(`${file} ${hash.digest("hex")}`);
  }
});
