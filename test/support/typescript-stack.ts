import { execFile } from "node:child_process";
import { cp, lstat, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { repoRoot } from "./repo-root";

const execFileAsync = promisify(execFile);

/** A TypeScript/JavaScript program (the default language of `withStack`). */
export interface TypeScriptProgram {
  readonly language?: "typescript";
  /** The program's `index.js` (CommonJS); it may `require("pulumi-gpucloud")`. */
  readonly program: string;
  readonly projectName?: string;
  /**
   * How the program finds its dependencies: a copy of the package installed from its tarball,
   * beside links to its dependencies (the default), or installed from a packed tarball with
   * npm, as a user's project would.
   */
  readonly install?: { readonly tarball: string };
  /**
   * The repository's installed copy of the package itself, linked rather than copied: what the
   * stack's processes write beside it (the bundled runtime's code cache) every later stack's
   * copy holds. For the benchmark's warm-up, whose later stacks measure warm processes. Not
   * with `install`, which installs a tarball of its own.
   */
  readonly sharesInstalledPackage?: boolean;
}

/** Writes the project into `workDir`; returns how to rewrite its program. */
export async function setUpTypeScript(
  workDir: string,
  options: TypeScriptProgram,
): Promise<(source: string) => Promise<void>> {
  if (options.install) await installTarball(workDir, options.install.tarball);
  else await linkDependencies(workDir, options.sharesInstalledPackage === true);
  const projectName = options.projectName ?? "gpucloud-e2e";
  await writeFile(path.join(workDir, "Pulumi.yaml"), `name: ${projectName}\nruntime: nodejs\n`);
  if (!options.install) {
    await writeFile(
      path.join(workDir, "package.json"),
      JSON.stringify({ name: projectName, main: "index.js", private: true }),
    );
  }
  const setProgram = (source: string) => writeFile(path.join(workDir, "index.js"), source);
  await setProgram(options.program);
  return setProgram;
}

// The program resolves @pulumi/pulumi and this package as a user's project would, from its own
// node_modules: a copy of the package as installed from its tarball (a real directory, as a
// user's project holds it), and
// links to the repository's copies of the package's dependencies and of @pulumi/pulumi.
async function linkDependencies(workDir: string, sharesInstalled: boolean): Promise<void> {
  const modules = path.join(workDir, "node_modules");
  const installed = path.join(repoRoot, "node_modules", "pulumi-gpucloud");
  const stat = await lstat(installed).catch(() => undefined);
  if (!stat?.isDirectory()) {
    throw new Error(
      `${installed} is not an installed copy of the package: run node scripts/install-package.mjs ` +
        "after building (the end-to-end tests' global setup does)",
    );
  }
  await mkdir(modules);
  if (sharesInstalled) await symlink(installed, path.join(modules, "pulumi-gpucloud"));
  else {
    await cp(installed, path.join(modules, "pulumi-gpucloud"), {
      recursive: true,
      // A partial cache file a stopped process left: a copy would make it new, never removed.
      filter: (source) => !source.endsWith(".partial"),
    });
  }
  const manifest = z
    .object({ dependencies: z.record(z.string(), z.string()).optional() })
    .parse(JSON.parse(await readFile(path.join(installed, "package.json"), "utf8")));
  // The whole @pulumi scope is one link: it holds the package's @pulumi/policy too.
  const dependencies = Object.keys(manifest.dependencies ?? {}).filter(
    (name) => !name.startsWith("@pulumi/"),
  );
  for (const name of ["@pulumi", ...dependencies]) {
    await mkdir(path.dirname(path.join(modules, name)), { recursive: true });
    await symlink(path.join(repoRoot, "node_modules", name), path.join(modules, name));
  }
}

async function installTarball(workDir: string, tarball: string): Promise<void> {
  await writeFile(
    path.join(workDir, "package.json"),
    JSON.stringify({ name: "gpucloud-user-project", main: "index.js", private: true }),
  );
  const pulumiVersion = (
    JSON.parse(
      await readFile(path.join(repoRoot, "node_modules/@pulumi/pulumi/package.json"), "utf8"),
    ) as { version: string }
  ).version;
  await execFileAsync(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      tarball,
      `@pulumi/pulumi@${pulumiVersion}`,
    ],
    { cwd: workDir, maxBuffer: 64 * 1024 * 1024 },
  );
}
