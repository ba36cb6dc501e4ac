import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * The house as docs/maintainers/map.md draws it, held against the code's imports: each folder of
 * the map's table imports only the folders its row allows, nothing imports in a circle (type
 * imports included), no resource imports another resource's module, no routes module of the
 * emulator imports another, no provider file is over 500 lines, and the emulator's files are
 * named in kebab-case.
 */

const repoRoot = path.resolve(__dirname, "..", "..");
const mapPage = path.join(repoRoot, "docs", "maintainers", "map.md");
const sourceRoots = ["provider", "emulator", "bin", "policy"];

interface Row {
  readonly folder: string;
  readonly mayImport: readonly string[];
}

/** The map's table: `| \`folder/\` or \`file.ts\` | what it holds | \`a/\`, \`b.ts\` or nothing |`. */
function mapRows(): Row[] {
  return readFileSync(mapPage, "utf8")
    .split("\n")
    .filter((line) => /^\| `[^`]+` \|/.test(line))
    .map((line) => {
      const cells = line.split("|").map((cell) => cell.trim());
      const folder = /`([^`]+)`/.exec(cells[1] ?? "")?.[1] ?? "";
      const allowed = [...(cells[3] ?? "").matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? "");
      return { folder, mayImport: allowed };
    });
}

function sourceFiles(): string[] {
  return sourceRoots.flatMap((root) =>
    readdirSync(path.join(repoRoot, root), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.ts$/.test(entry.name) && !/\.d\.ts$/.test(entry.name))
      .map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)))
      .filter((file) => !file.endsWith(".test.ts")),
  );
}

/** The house's files a file imports: static, type-only, re-exports, require() and import(). */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(repoRoot, file), "utf8");
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith("."))
    .flatMap((name) => {
      const target = path.join(path.dirname(file), name);
      for (const candidate of [`${target}.ts`, path.join(target, "index.ts"), target]) {
        try {
          if (statSync(path.join(repoRoot, candidate)).isFile()) return [candidate];
        } catch {
          // not this one
        }
      }
      return [];
    });
}

/** The map's row a file belongs to: itself, or the longest folder that holds it. */
function rowOf(rows: readonly Row[], file: string): Row | undefined {
  return rows
    .filter((row) => file.startsWith(row.folder))
    .sort((a, b) => b.folder.length - a.folder.length)[0];
}

/** provider/resources/<name>/... or provider/resources/<name>.ts: the resource a file is of. */
function resourceOf(file: string): string | undefined {
  return /^provider\/resources\/([^/.]+)/.exec(file)?.[1];
}

describe("the house, as docs/maintainers/map.md draws it", () => {
  const rows = mapRows();
  const files = sourceFiles();
  const graph = new Map(files.map((file) => [file, importsOf(file)]));

  it("has a row for every source file", () => {
    expect(rows.length).toBeGreaterThan(5);
    expect(files.filter((file) => rowOf(rows, file) === undefined)).toEqual([]);
    // And no row that holds nothing: the map names what exists.
    expect(rows.filter((row) => !files.some((file) => file.startsWith(row.folder)))).toEqual([]);
  });

  it("has each folder import only what its row allows", () => {
    const crossings = [...graph].flatMap(([file, targets]) => {
      const from = rowOf(rows, file);
      return targets
        .filter((target) => {
          const to = rowOf(rows, target);
          if (from === undefined || to === undefined || to.folder === from.folder) return false;
          return !from.mayImport.includes(to.folder);
        })
        .map((target) => `${file} -> ${target}`);
    });
    expect(crossings).toEqual([]);
  });

  it("has no import circle, type imports included", () => {
    const circles: string[] = [];
    const done = new Set<string>();
    const visit = (file: string, trail: string[]): void => {
      const seen = trail.indexOf(file);
      if (seen !== -1) {
        circles.push([...trail.slice(seen), file].join(" -> "));
        return;
      }
      if (done.has(file)) return;
      for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
      done.add(file);
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });

  it("has no resource importing another resource's module", () => {
    const crossings = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => {
          const from = resourceOf(file);
          const to = resourceOf(target);
          return from !== undefined && to !== undefined && from !== to;
        })
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossings).toEqual([]);
  });

  it("has no routes module of the emulator importing another", () => {
    const routes = (file: string) => file.startsWith("emulator/") && file.endsWith("-routes.ts");
    const crossings = [...graph]
      .filter(([file]) => routes(file))
      .flatMap(([file, targets]) => targets.filter(routes).map((target) => `${file} -> ${target}`));
    expect(crossings).toEqual([]);
  });

  it("has no provider file over 500 lines", () => {
    const long = files
      .filter((file) => file.startsWith("provider/"))
      .map((file) => [file, readFileSync(path.join(repoRoot, file), "utf8").split("\n").length])
      .filter(([, lines]) => Number(lines) > 500);
    expect(long).toEqual([]);
  });

  it("names the emulator's folders and files in kebab-case", () => {
    const names = readdirSync(path.join(repoRoot, "emulator"), {
      recursive: true,
      withFileTypes: true,
    })
      .filter((entry) => entry.name !== "README.md")
      .map((entry) => (entry.isFile() ? entry.name : `${entry.name}/`));
    expect(names.filter((name) => !/^[a-z0-9]+(-[a-z0-9]+)*(\.ts|\/)$/.test(name))).toEqual([]);
  });
});
