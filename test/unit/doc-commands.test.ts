import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { codeBlocksIn, documentationFiles, isTestedShell, whereIs } from "../support/doc-blocks";
import {
  type DocCommandGroup,
  docCommandGroups,
  docFilesOf,
  filesWithTestedCommands,
} from "../support/doc-command-groups";
import { repoRoot } from "../support/repo-root";

// The documentation's commands run end to end in test/e2e/docs-commands-*.test.ts, one group of
// documentation files a test file (test/support/doc-command-groups.ts). What needs no command
// run is checked here: which blocks are marked to run, that what users run first is among
// them, and that every file's marked blocks are run by exactly one test file.

const all = documentationFiles().flatMap((file) => codeBlocksIn(file));
const tested = all.filter(isTestedShell).map((block) => block.source);
const groups = Object.keys(docCommandGroups) as DocCommandGroup[];
const e2eDir = path.join(repoRoot, "test", "e2e");

describe("the documentation's commands", () => {
  it("marks its runnable commands as tested, and covers what users run first", () => {
    // A language other than sh with `test` would be silently skipped.
    expect(
      all.filter((block) => block.words.includes("test") && !isTestedShell(block)).map(whereIs),
    ).toEqual([]);
    const covered = (text: string) => tested.some((source) => source.includes(text));
    expect(
      [
        "cd examples/gpu-workspace",
        "cd examples/python-workspace",
        "cd examples/go-workspace",
        "cd examples/yaml-workspace",
        "pulumi package get-schema ./node_modules/.bin/pulumi-resource-gpucloud",
        "pulumi plugin install resource gpucloud 0.1.0 --file dist/packages/",
        "pulumi import gpucloud:index:Instance",
        "gpucloud-emulator --port 0",
        "cd examples/multi-node",
      ].filter((text) => !covered(text)),
    ).toEqual([]);
  });

  it("runs every file's marked blocks in exactly one test file, each group's file existing", () => {
    const runs = groups.flatMap((group) => docFilesOf(group));
    expect([...runs].sort()).toEqual([...filesWithTestedCommands()].sort());
    // A group naming a file without tested blocks (renamed, or its blocks unmarked) runs nothing.
    expect(runs.filter((file) => !filesWithTestedCommands().includes(file))).toEqual([]);
    for (const group of groups) {
      const file = path.join(e2eDir, `docs-commands-${group}.test.ts`);
      expect(existsSync(file) ? readFileSync(file, "utf8") : `${file} is missing`).toContain(
        `describeDocCommands(docFilesOf(${JSON.stringify(group)}))`,
      );
    }
    // No test file of an old group left behind, running a group's files twice.
    expect(
      readdirSync(e2eDir)
        .filter((name) => name.startsWith("docs-commands-"))
        .sort(),
    ).toEqual(groups.map((group) => `docs-commands-${group}.test.ts`).sort());
  });
});
