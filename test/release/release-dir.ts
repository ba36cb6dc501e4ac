import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { repoRoot } from "../support/repo-root";

/**
 * The folder `npm run release -- --out DIR` wrote, which `npm run release:check -- DIR` passes
 * as GPUCLOUD_RELEASE_DIR: these tests check a release, they never make one.
 */
export function releaseDir(): string {
  const dir = process.env["GPUCLOUD_RELEASE_DIR"];
  if (dir === undefined || dir === "") {
    throw new Error("GPUCLOUD_RELEASE_DIR is not set: run npm run release:check -- DIR");
  }
  return path.resolve(dir);
}

/** The version every artifact of the release carries: package.json's. */
export function releaseVersion(): string {
  const text = readFileSync(path.join(repoRoot, "package.json"), "utf8");
  return z.object({ version: z.string() }).parse(JSON.parse(text)).version;
}
