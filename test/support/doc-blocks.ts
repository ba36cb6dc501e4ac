import { repoRoot } from "./repo-root";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { resourceModules } from "../../provider/registry";
import type { AccountRecords } from "../../provider/shared/resource-descriptor";
import type { TestEmulator } from "./emulator";
import { outsideClient } from "./programs";

// The user-facing documentation (README.md and docs/guides/) and its fenced code blocks, for the
// tests that run them: test/e2e/readme.test.ts (every ```ts and ```python block is a whole
// program) and test/e2e/docs-commands-*.test.ts (every ```sh test block runs).

/** README.md and every Markdown file of docs/guides/, relative to the repository, in order. */
export function documentationFiles(): string[] {
  const guides = readdirSync(path.join(repoRoot, "docs", "guides"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => path.posix.join("docs", "guides", name));
  return ["README.md", ...guides];
}

/** A fenced code block of a Markdown file. */
export interface CodeBlock {
  /** The Markdown file, relative to the repository. */
  readonly file: string;
  /** The line of its opening fence (1-based): its first line of code is the next one. */
  readonly line: number;
  /** The first word of the info string: `ts`, `python`, `sh`, ... ("" when none). */
  readonly language: string;
  /** The other words of the info string, e.g. `["test"]` for ```sh test. */
  readonly words: readonly string[];
  readonly source: string;
}

const opening = /^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)[ \t]*([^`]*)$/;

/** Every fenced code block of a Markdown text, in order. */
export function codeBlocksOf(file: string, text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const open = opening.exec(lines[index] ?? "");
    if (open === null) continue;
    const fence = open[1] ?? "```";
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end++) {
      const line = lines[end] ?? "";
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1];
      if (close !== undefined && close[0] === fence[0] && close.length >= fence.length) break;
      body.push(line);
    }
    blocks.push({
      file,
      line: index + 1,
      language: open[2] ?? "",
      words: (open[3] ?? "").split(/\s+/).filter((word) => word !== ""),
      source: body.length === 0 ? "" : `${body.join("\n")}\n`,
    });
    index = end;
  }
  return blocks;
}

/** The code blocks of a documentation file (relative to the repository). */
export function codeBlocksIn(file: string): CodeBlock[] {
  return codeBlocksOf(file, readFileSync(path.join(repoRoot, file), "utf8"));
}

/** A shell block the documentation tests run: ```sh test. */
export const isTestedShell = (block: CodeBlock): boolean =>
  block.language === "sh" && block.words.includes("test");

/** Where a block is, as an editor takes it: `README.md:42`. */
export const whereIs = (block: Pick<CodeBlock, "file" | "line">): string =>
  `${block.file}:${block.line}`;

/**
 * The account's records of each kind, as a test sees them (provider/shared/resource-descriptor.ts
 * `AccountRecords`): the emulator's state lists, the user, and the API keys the service lists.
 */
export async function accountRecordsOf(emulator: TestEmulator): Promise<AccountRecords> {
  const state = (await emulator.state()) as unknown as Record<string, unknown>;
  const outside = outsideClient(emulator);
  const apiKeys = await outside.apiKeys.list().finally(() => outside.close());
  const kinds: Record<string, unknown> = { ...state, user: [state["user"]], apiKeys };
  return (kind) => {
    const records = kinds[kind];
    if (!Array.isArray(records)) throw new Error(`the account has no records of kind ${kind}`);
    return records as Record<string, unknown>[];
  };
}

/**
 * What a documented program or command left on the account, by kind of record (ids, or what
 * the resource's descriptor reports: keys for secrets); `{}` when nothing. Made from the
 * registry: each resource type's descriptor says what its creates make and which are the
 * account's own (seeded public templates of other users are not).
 */
export async function leftOnAccount(emulator: TestEmulator): Promise<Record<string, unknown[]>> {
  const account = await accountRecordsOf(emulator);
  const found: Record<string, unknown[]> = {};
  for (const { descriptor } of resourceModules) {
    const tests = descriptor.tests;
    if (tests === undefined || tests.records in found) continue;
    const left = account(tests.records)
      .filter((record) => tests.isOwn?.(record, account) ?? true)
      .map((record) => tests.identify?.(record) ?? record["id"]);
    if (left.length > 0) found[tests.records] = left;
  }
  return found;
}
