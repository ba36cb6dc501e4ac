/**
 * `npm run gen-docs [-- OUT_DIR]`: writes the reference pages, docs/reference/ (or OUT_DIR,
 * replaced as a whole), from the schema the built plugin prints (`pulumi package get-schema
 * node_modules/.bin/pulumi-resource-gpucloud`, or GPUCLOUD_PLUGIN=path): the same source the SDKs
 * are generated from (`npm run gen-sdks`), so that the pages say what the SDKs do. One page per
 * resource (`<Type>.md`) and per function (`<function>.md`), the provider's configuration
 * (provider.md) and an index (README.md); and the Pulumi Registry's two pages of the package,
 * docs/_index.md and docs/installation-configuration.md (or in REGISTRY_DIR:
 * `npm run gen-docs [-- OUT_DIR [REGISTRY_DIR]]`). test/e2e/docs-reference.test.ts fails when
 * the committed pages differ from what this writes now.
 *
 * Everything a page says about a property comes from the schema, that is from the zod
 * definitions (provider/native/schema.ts): descriptions, types, defaults, secrets, and what a
 * change does (`willReplaceOnChanges`, and `language.docs` for what Pulumi's schema has no field
 * for). A description to change is changed there, never here. So do the snippets' values: each
 * resource's and function's example, its `language.docs.example` (provider/shared/reference-examples.ts),
 * rendered in every language; placeholders only for what has none.
 *
 * This file reads the schema and writes the pages; the modules of scripts/gen-docs/ make them:
 * pages.ts the whole reference, one module per kind of page (resource-page.ts, function-page.ts,
 * provider-page.ts, index-page.ts) and per part of one (tables, nested types, snippets, ...).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { referencePages } from "./gen-docs/pages";
import { registryPages } from "./gen-docs/registry-pages";
import { packageSpecSchema } from "./gen-docs/schema";

export { goName, pythonName } from "./gen-docs/names";
export { referencePages } from "./gen-docs/pages";
export { registryPages } from "./gen-docs/registry-pages";
export { packageSpecSchema, type PackageSpec } from "./gen-docs/schema";

const execFileAsync = promisify(execFile);

// ---- Writing the pages ---------------------------------------------------------------------

/** The repository: above scripts/, or above dist/tools/scripts/ once compiled. */
export const repoRoot = path.resolve(
  __dirname,
  "..",
  ...(path.basename(path.dirname(__dirname)) === "tools" ? ["..", ".."] : []),
);

/** The schema the plugin prints, as `npm run gen-sdks` reads it. */
export async function pluginSchema(plugin: string): Promise<unknown> {
  const { stdout } = await execFileAsync("pulumi", ["package", "get-schema", plugin], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as unknown;
}

/** The plugin `npm run build` installs, or GPUCLOUD_PLUGIN. */
export const defaultPlugin = (): string =>
  process.env["GPUCLOUD_PLUGIN"] ??
  path.join(repoRoot, "node_modules", ".bin", "pulumi-resource-gpucloud");

/**
 * Writes the pages into `outDir`, replacing it as a whole: written aside first, so that a
 * failed run leaves the committed pages as they were.
 */
export async function writeReference(pages: Map<string, string>, outDir: string): Promise<void> {
  const parent = path.dirname(outDir);
  await mkdir(parent, { recursive: true });
  const aside = await mkdtemp(path.join(parent, ".gen-docs-"));
  try {
    for (const [file, text] of pages) await writeFile(path.join(aside, file), text);
    await rm(outDir, { recursive: true, force: true });
    await rename(aside, outDir);
  } finally {
    await rm(aside, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const outDir = path.resolve(process.argv[2] ?? path.join(repoRoot, "docs", "reference"));
  const registryDir = path.resolve(process.argv[3] ?? path.join(repoRoot, "docs"));
  const schema = await pluginSchema(defaultPlugin());
  const pages = referencePages(schema);
  await writeReference(pages, outDir);
  const registry = registryPages(packageSpecSchema.parse(schema));
  for (const [file, text] of registry) await writeFile(path.join(registryDir, file), text);
  process.stdout.write(
    `[gen-docs] wrote ${pages.size} pages to ${outDir}, ${registry.size} to ${registryDir}\n`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `[gen-docs] failed: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
}
