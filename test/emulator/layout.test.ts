import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// The emulator's layout (docs/maintainers/design.md): folders by area, every file in kebab-case,
// no import circle (type imports included), and no routes module importing another.

const root = path.resolve(__dirname, "..", "..", "emulator");

function sourceFiles(): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** The emulator files a file imports (or re-exports from), by its relative specifiers. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), "utf8");
  return [...text.matchAll(/\bfrom\s+"(\.{1,2}\/[^"]+)"/g)].map((match) => {
    const target = path.join(path.dirname(file), match[1] ?? "");
    return existsSync(path.join(root, `${target}.ts`)) ? `${target}.ts` : `${target}/index.ts`;
  });
}

const isRoutes = (file: string): boolean => file.endsWith("-routes.ts");

describe("the emulator's layout", () => {
  const files = sourceFiles();
  const graph = new Map(files.map((file) => [file, importsOf(file)]));

  it("names every folder and file in kebab-case", () => {
    const names = readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.name !== "README.md")
      .map((entry) => (entry.isFile() ? entry.name : `${entry.name}/`));
    const kebab = /^[a-z0-9]+(-[a-z0-9]+)*(\.ts|\/)$/;
    expect(names.filter((name) => !kebab.test(name))).toEqual([]);
  });

  it("imports only files that exist", () => {
    const missing = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !graph.has(target)).map((target) => `${file} -> ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it("has no routes module importing another", () => {
    const crossed = [...graph]
      .filter(([file]) => isRoutes(file))
      .flatMap(([file, targets]) =>
        targets.filter(isRoutes).map((target) => `${file} -> ${target}`),
      );
    expect(crossed).toEqual([]);
  });

  it("has no import circle", () => {
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
});
