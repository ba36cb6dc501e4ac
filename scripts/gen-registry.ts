/**
 * `npm run gen-registry`: writes the registry of resources (provider/registry.ts), the package's
 * resource exports (provider/classes.ts) and the dynamic entries (provider/dynamic/<name>.ts)
 * from the modules of provider/resources/, as built in dist/ (each exports its `descriptor`);
 * the client's API areas (provider/client/areas.ts) from its modules that export `area`; and
 * the emulator's lists of areas (emulator/areas.ts, emulator/shared/all-records.ts) from its
 * folders.
 * Run it after adding or removing a resource module; test/unit/registry.test.ts fails when the
 * committed files differ from what it writes (docs/maintainers/adding-a-resource.md).
 *
 * Generated rather than read from the folder at run time: the plugin ships as one bundled file
 * (scripts/package-plugin.mjs), which has no folder to read, and TypeScript's exports
 * (provider/index.ts) and the states' entry modules (provider/shim.ts) must be files.
 */
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import {
  type ClientAreaModule,
  clientAreasFile,
  type EmulatorAreas,
  type ResourceModule,
  registryFiles,
} from "./gen-registry/files";

/** The repository: above scripts/, or above dist/tools/scripts/ once compiled. */
const repoRoot = path.resolve(
  __dirname,
  "..",
  ...(path.basename(path.dirname(__dirname)) === "tools" ? ["..", ".."] : []),
);

/** The resource modules' names: provider/resources/<name>.ts. */
export function resourceModuleNames(root: string): string[] {
  return readdirSync(path.join(root, "provider", "resources"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
    .map((file) => file.slice(0, -".ts".length))
    .sort();
}

/** The emulator's areas: its folders that hold an `area.ts` (routes) or a `records.ts`. */
export function emulatorAreas(root: string): EmulatorAreas {
  const folders = readdirSync(path.join(root, "emulator"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const holding = (file: string) =>
    folders.filter((folder) => existsSync(path.join(root, "emulator", folder, file)));
  return { routes: holding("area.ts"), records: holding("records.ts") };
}

function builtModule(name: string): ResourceModule {
  const file = path.join(repoRoot, "dist", "provider", "resources", `${name}.js`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exports = require(file) as { descriptor?: ResourceModule["descriptor"] };
  if (exports.descriptor === undefined) {
    throw new Error(
      `provider/resources/${name}.ts exports no descriptor (see adding-a-resource.md)`,
    );
  }
  return { name, descriptor: exports.descriptor };
}

/** The client's API area modules, as built: provider/client/<name>.ts that export `area`. */
export function builtClientAreas(root: string): ClientAreaModule[] {
  return (
    readdirSync(path.join(root, "provider", "client"))
      .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
      .map((file) => file.slice(0, -".ts".length))
      // The index and the generated list import the areas: they are none.
      .filter((name) => name !== "index" && name !== "areas")
      .flatMap((name) => {
        const built = path.join(root, "dist", "provider", "client", `${name}.js`);
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const exports = require(built) as { area?: ClientAreaModule["area"] };
        return exports.area === undefined ? [] : [{ name, area: exports.area }];
      })
  );
}

/**
 * The client's areas first, built too: the resource modules import the client, whose index
 * imports them, so loading the resources needs them in dist/ (a new or removed area would
 * otherwise stop this command before it could write them).
 */
function writeClientAreas(): void {
  const text = clientAreasFile(builtClientAreas(repoRoot));
  writeFileSync(path.join(repoRoot, "provider", "client", "areas.ts"), text);
  const js = ts.transpileModule(text, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2023 },
  }).outputText;
  writeFileSync(path.join(repoRoot, "dist", "provider", "client", "areas.js"), js);
}

function main(): void {
  writeClientAreas();
  const names = resourceModuleNames(repoRoot);
  const files = registryFiles(names.map(builtModule), emulatorAreas(repoRoot));
  // Entries of modules that are gone go too: an entry is only ever the generator's.
  const entries = path.join(repoRoot, "provider", "dynamic");
  for (const file of readdirSync(entries)) {
    if (!files.has(`provider/dynamic/${file}`)) rmSync(path.join(entries, file));
  }
  for (const [file, text] of files) writeFileSync(path.join(repoRoot, file), text);
  process.stdout.write(`[gen-registry] ${names.length} resource modules: ${names.join(", ")}\n`);
}

if (require.main === module) main();
