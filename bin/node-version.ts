// This file must run, and say what is wrong, on the old Node.js it refuses: no `node:` prefixes
// (Node 14.18+), no `?.` or `??` (Node 14+).
import { readFileSync } from "fs";
import { join } from "path";

/** The oldest Node.js major the package runs on: package.json's `engines` (a test keeps them equal). */
export const minimumNodeMajor = 22;

/** What a user without a recent Node.js can run instead: the standalone executables need none. */
function alternative(program: string, version: string): string {
  const tarball = `${program}-v${version}-linux-amd64.tar.gz`;
  if (program === "gpucloud-cost") {
    // The standalone plugin holds the same command.
    return `or run \`pulumi-resource-gpucloud cost\` from the standalone plugin, which brings its own Node.js`;
  }
  return program === "pulumi-resource-gpucloud"
    ? `or install the standalone plugin, which brings its own Node.js: pulumi plugin install resource gpucloud ${version} --file ${tarball}`
    : `or run the standalone ${program} executable from ${tarball}, which brings its own Node.js`;
}

/** The package's version, for the tarball's name; read only to explain a refusal. */
function packageVersion(): string {
  try {
    // dist/bin/ → the package's root, in the checkout and in an installed copy alike. Not zod:
    // nothing of the package's dependencies is loaded on a Node.js that cannot run them.
    const parsed: unknown = JSON.parse(
      readFileSync(join(__dirname, "..", "..", "package.json"), "utf8"),
    );
    const version =
      typeof parsed === "object" && parsed !== null && "version" in parsed
        ? parsed.version
        : undefined;
    return typeof version === "string" ? version : "<version>";
  } catch {
    return "<version>";
  }
}

/**
 * The npm package's commands run on whatever `node` is first on PATH. On one older than the
 * package needs, they fail deep inside a dependency (undici reads zlib functions Node 20 does not
 * have) with a stack trace that names neither the cause nor the way out. This check runs before
 * anything else is loaded: one line on stderr and exit status 1 instead.
 */
export function requireSupportedNode(program: string): void {
  const found = process.versions.node;
  if (Number(found.split(".")[0]) >= minimumNodeMajor) return;
  process.stderr.write(
    `${program}: needs Node.js ${minimumNodeMajor} or later, found Node.js ${found} at ` +
      `${process.execPath}; install Node.js ${minimumNodeMajor}+, ` +
      `${alternative(program, packageVersion())}\n`,
  );
  process.exit(1);
}
