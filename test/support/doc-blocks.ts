import { repoRoot } from "./repo-root";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { TestEmulator } from "./emulator";
import { outsideClient } from "./programs";

// The user-facing documentation (README.md and docs/guides/) and its fenced code blocks, for the
// tests that run them: test/e2e/readme.test.ts (every ```ts and ```python block is a whole
// program) and test/e2e/docs-commands.test.ts (every ```sh test block runs).

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
 * What a documented program or command left on the emulator's account, by kind (ids, or keys
 * for secrets); `{}` when nothing. Seeded public templates of other users are not the account's.
 */
export async function leftOnAccount(emulator: TestEmulator): Promise<Record<string, unknown[]>> {
  const state = await emulator.state();
  const apiKeys = (await outsideClient(emulator).apiKeys.list())
    .map((key) => key.id)
    // The key the emulator was started with.
    .filter((id) => id !== 1);
  const found: Record<string, unknown[]> = {
    instances: state.instances.map((instance) => instance.id),
    volumes: state.volumes.map((volume) => volume.id),
    networkVolumes: state.networkVolumes.map((volume) => volume.id),
    overlays: state.overlays.map((overlay) => overlay.name),
    secrets: state.secrets.map((secret) => secret.key),
    webhooks: state.webhooks.map((webhook) => webhook.id),
    sshKeys: state.sshKeys.map((key) => key.id),
    templates: state.templates
      .filter((template) => template.creatorId === state.user.id)
      .map((template) => template.id),
    endpoints: state.endpoints.map((endpoint) => endpoint.id),
    workerGroups: state.workerGroups.map((group) => group.id),
    apiKeys,
  };
  return Object.fromEntries(Object.entries(found).filter(([, ids]) => ids.length > 0));
}
