import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/**
 * The repository's root: the nearest directory above `start` whose package.json is ours. The
 * support code runs both under Jest and compiled (the benchmark), so it cannot count levels.
 */
export function findRepoRoot(start: string = __dirname): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) {
      const parsed = z
        .object({ name: z.string().optional() })
        .safeParse(JSON.parse(readFileSync(manifest, "utf8")));
      if (parsed.success && parsed.data.name === "pulumi-gpucloud") return dir;
    }
    if (path.dirname(dir) === dir)
      throw new Error(`no pulumi-gpucloud package.json above ${start}`);
  }
}

export const repoRoot = findRepoRoot();
