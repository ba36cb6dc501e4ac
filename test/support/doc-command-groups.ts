import { codeBlocksIn, documentationFiles, isTestedShell } from "./doc-blocks";

// Which test file runs which documentation files' ```sh test blocks (how they run:
// test/support/docs-commands.ts). They were one file of about 9 minutes, the run's last to end;
// as several, Jest's workers run them side by side. A group is a test file,
// test/e2e/docs-commands-<group>.test.ts; its documentation files run one after another in it,
// each with a scratch clone and an emulator of its own as before. The costly files stand alone
// (README.md builds the Go workspace and makes the Python workspace's virtual environment;
// policy.md builds the Go workspace again); `guides` takes every file with tested blocks that no
// other group names, so that a new guide's blocks run with no change here
// (test/unit/doc-commands.test.ts checks the table).

export const docCommandGroups = {
  readme: ["README.md"],
  policy: ["docs/guides/policy.md"],
  "never-lost": ["docs/guides/never-lost.md", "docs/guides/multi-node.md"],
  importing: ["docs/guides/importing.md", "docs/guides/troubleshooting.md"],
  guides: "every other",
} as const satisfies Record<string, readonly string[] | "every other">;

export type DocCommandGroup = keyof typeof docCommandGroups;

/** README.md and the guides that hold a ```sh test block, in order. */
export const filesWithTestedCommands = (): string[] =>
  documentationFiles().filter((file) => codeBlocksIn(file).some(isTestedShell));

/** The documentation files whose tested blocks `group`'s test file runs, in order. */
export function docFilesOf(group: DocCommandGroup): string[] {
  const named = docCommandGroups[group];
  if (named !== "every other") return [...named];
  const elsewhere = new Set<string>(
    Object.values(docCommandGroups).flatMap((files) => (files === "every other" ? [] : files)),
  );
  return filesWithTestedCommands().filter((file) => !elsewhere.has(file));
}
