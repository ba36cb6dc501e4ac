import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// docs/maintainers/adding-a-resource.md names only files that exist (its examples, the
// registry, the proof), every command it gives is one of the package's scripts, and the
// count it states is the proof's (test/contract/new-resource.test.ts adds the fixture's files).

const root = path.resolve(__dirname, "..", "..");
const page = readFileSync(path.join(root, "docs", "maintainers", "adding-a-resource.md"), "utf8");

describe("docs/maintainers/adding-a-resource.md", () => {
  it("names only files and folders that exist", () => {
    // Each `code span` that is a path of the repository (placeholders such as <name> aside).
    const paths = [...page.matchAll(/`([a-z][\w.-]*\/[^`\s]*)`/g)]
      .map((match) => match[1] ?? "")
      .filter((file) => !/[<>]/.test(file));
    expect(paths.length).toBeGreaterThan(15);
    expect(paths.filter((file) => !existsSync(path.join(root, file)))).toEqual([]);
  });

  it("gives only commands the package has", () => {
    const scripts = Object.keys(
      (
        JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
          scripts: Record<string, string>;
        }
      ).scripts,
    );
    const commands = [...page.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]);
    expect(commands).toEqual(expect.arrayContaining(["gen-registry", "gen-sdks", "gen-docs"]));
    expect(commands.filter((command) => !scripts.includes(command ?? ""))).toEqual([]);
  });

  it("states the proof's count of hand-written files", () => {
    // What the proof adds to its copy of the tree: every file of the fixture, and nothing else.
    const fixtures = path.join(root, "test", "fixtures", "new-resource");
    const added = readdirSync(fixtures, { recursive: true, withFileTypes: true }).filter((entry) =>
      entry.isFile(),
    );
    expect(added.length).toBeGreaterThan(0);
    expect(page).toContain(`**${added.length} hand-written files**`);
  });
});
