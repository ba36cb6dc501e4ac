import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "../support/repo-root";

const execFileAsync = promisify(execFile);

// The SDKs in sdk/ are committed, as Pulumi providers do: this fails when they differ from what
// `npm run gen-sdks` writes from the plugin's schema now, so that the schema (the zod
// definitions) and the SDKs never drift apart.

/** Every file below `dir`, by its path relative to `dir`, with its text. */
async function filesOf(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    // What pip and Python leave in a checkout the user ran from is not the SDK, nor what tsc and
    // npm leave in sdk/nodejs (bin/, node_modules/).
    if (/(__pycache__|\.egg-info|[/\\](build|bin|node_modules)[/\\])/.test(full)) continue;
    files.set(path.relative(dir, full), await readFile(full, "utf8"));
  }
  return files;
}

describe("the committed SDKs (sdk/go, sdk/python, sdk/nodejs)", () => {
  let generated!: string;
  beforeAll(async () => {
    generated = await mkdtemp(path.join(tmpdir(), "gpucloud-sdk-drift-"));
  });
  afterAll(async () => {
    await rm(generated, { recursive: true, force: true });
  });

  it("are what npm run gen-sdks generates from the plugin's schema now", async () => {
    await execFileAsync("bash", [path.join(repoRoot, "scripts", "gen-sdks.sh"), generated], {
      cwd: repoRoot,
    });
    for (const language of ["go", "python", "nodejs"]) {
      const fresh = await filesOf(path.join(generated, language));
      const committed = await filesOf(path.join(repoRoot, "sdk", language));
      expect(fresh.size).toBeGreaterThan(10);
      const differing = [...new Set([...fresh.keys(), ...committed.keys()])]
        .filter((file) => fresh.get(file) !== committed.get(file))
        .sort();
      // The list names what to regenerate: `npm run gen-sdks`, then commit sdk/.
      expect({ language, differing }).toEqual({ language, differing: [] });
    }
  });
});
