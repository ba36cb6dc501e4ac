import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

// Every relative link of README.md and docs/ (`[text](path)`, `[text](path#anchor)`,
// `[text](#anchor)`, images and reference definitions alike) leads to a file or folder of the
// repository, one git does not ignore (what is ignored is not on GitHub), and an anchor to a
// heading of the Markdown file it points at, named as GitHub names headings.

const repoRoot = path.resolve(__dirname, "..", "..");

/** README.md and every Markdown file below docs/, relative to the repository. */
function markdownFiles(): string[] {
  const docs = readdirSync(path.join(repoRoot, "docs"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)));
  return ["README.md", ...docs.sort()];
}

/** A fenced code block's opening (or closing) line: three or more backticks or tildes. */
const fenceLine = /^ {0,3}(`{3,}|~{3,})/;

const blank = (part: string): string => part.replace(/[^\n]/g, " ");

/**
 * The text with fenced code blocks and HTML comments blanked out (newlines kept, so that offsets
 * still give line numbers): what they hold is neither a link nor a heading.
 */
function withoutCodeBlocks(text: string): string {
  let fence: string | undefined;
  const lines = text.split("\n").map((line) => {
    const marker = fenceLine.exec(line)?.[1];
    if (fence === undefined) {
      if (marker === undefined) return line;
      fence = marker;
      return blank(line);
    }
    if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
      fence = undefined;
    }
    return blank(line);
  });
  return lines.join("\n").replace(/<!--[\s\S]*?-->/g, blank);
}

/** The text without code blocks, nor code spans: a link in code is not one. */
const withoutCode = (text: string): string =>
  withoutCodeBlocks(text).replace(/(`+)[\s\S]*?[^`]\1(?!`)/g, blank);

/** A link of a Markdown file: where it points and the line it is on. */
interface Link {
  target: string;
  line: number;
}

const inlineLink =
  /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const referenceDefinition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/gm;

function linksIn(text: string): Link[] {
  const prose = withoutCode(text);
  const lineAt = (offset: number) => prose.slice(0, offset).split("\n").length;
  return [...prose.matchAll(inlineLink), ...prose.matchAll(referenceDefinition)]
    .map((match) => ({
      target: (match[1] ?? "").replace(/^<|>$/g, ""),
      line: lineAt(match.index),
    }))
    .sort((a, b) => a.line - b.line);
}

/**
 * GitHub's anchor of a heading (github-slugger): the text as shown (links and code marks
 * dropped), lower-case, punctuation removed, spaces to hyphens.
 */
function slugOf(heading: string): string {
  return heading
    .replace(/<[^>]+>/g, "")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown file: its headings' slugs (a repeated one numbered) and HTML ids. */
function anchorsOf(text: string): Set<string> {
  // A heading's code spans are part of its text (`Secret` gives secret).
  const prose = withoutCodeBlocks(text);
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading = ""] of prose.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)) {
    const slug = slugOf(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  for (const [, id = ""] of prose.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(id);
  return anchors;
}

/** Why a link of `file` is broken, or undefined when it is not. */
function brokenBecause(
  file: string,
  target: string,
  ignored: ReadonlySet<string>,
): string | undefined {
  const hash = target.indexOf("#");
  const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const resolved = pathPart.startsWith("/")
    ? path.join(repoRoot, pathPart)
    : path.resolve(repoRoot, path.dirname(file), pathPart === "" ? path.basename(file) : pathPart);
  const relative = path.relative(repoRoot, resolved);
  if (relative.startsWith("..")) return "outside the repository";
  if (!existsSync(resolved)) return "no such file";
  if (ignored.has(relative)) return "ignored by git (not in the repository on GitHub)";
  if (anchor === undefined || anchor === "") return undefined;
  if (statSync(resolved).isDirectory()) return "an anchor into a folder";
  // GitHub's line anchors of a source file.
  if (!resolved.endsWith(".md"))
    return /^L\d+(-L\d+)?$/.test(anchor) ? undefined : "an anchor into a file that has no headings";
  return anchorsOf(readFileSync(resolved, "utf8")).has(anchor)
    ? undefined
    : `no heading #${anchor}`;
}

/** Which of these paths (relative to the repository) git ignores. */
function ignoredByGit(paths: readonly string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    const out = execFileSync("git", ["check-ignore", "--stdin"], {
      cwd: repoRoot,
      input: paths.join("\n"),
      encoding: "utf8",
    });
    return new Set(out.split("\n").filter((line) => line !== ""));
  } catch (error) {
    // Exit status 1: none of them is ignored.
    if ((error as { status?: number }).status === 1) return new Set();
    throw error;
  }
}

const isExternal = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target);

describe("relative links in README.md and docs/", () => {
  const files = markdownFiles();
  const links = files.flatMap((file) =>
    linksIn(readFileSync(path.join(repoRoot, file), "utf8"))
      .filter((link) => !isExternal(link.target))
      .map((link) => ({ file, ...link })),
  );

  it("finds the links to check", () => {
    expect(files).toContain("docs/maintainers/performance.md");
    expect(files).toContain("docs/guides/README.md");
    expect(links.length).toBeGreaterThan(10);
  });

  it("lead to files of the repository, and to headings they have", () => {
    const targets = links.map(({ file, target }) => {
      const pathPart = decodeURIComponent(target.split("#")[0] ?? "");
      return path.relative(
        repoRoot,
        path.resolve(repoRoot, path.dirname(file), pathPart || path.basename(file)),
      );
    });
    const ignored = ignoredByGit(
      [...new Set(targets)].filter((target) => !target.startsWith("..")),
    );
    const broken = links.flatMap(({ file, target, line }) => {
      const reason = brokenBecause(file, target, ignored);
      return reason === undefined ? [] : [`${file}:${line} (${target}): ${reason}`];
    });
    expect(broken).toEqual([]);
  });
});

describe("the link checker", () => {
  it("names headings as GitHub does", () => {
    expect(slugOf("`Secret`: an account environment variable")).toBe(
      "secret-an-account-environment-variable",
    );
    expect(slugOf("Other languages: the native plugin")).toBe("other-languages-the-native-plugin");
    expect(slugOf("`Endpoint` and `WorkerGroup`: serverless")).toBe(
      "endpoint-and-workergroup-serverless",
    );
    expect(slugOf("Limits and units")).toBe("limits-and-units");
    expect(slugOf("snake_case names (`ask_id`)")).toBe("snake_case-names-ask_id");
    expect([
      ...anchorsOf("# A\n## A\n```\n# not a heading\n```\n### B ###\n## `Secret`: x\n"),
    ]).toEqual(["a", "a-1", "b", "secret-x"]);
  });

  it("skips code: a link or heading in a code block or span is not one", () => {
    const text = "[a](x.md) `[b](y.md)`\n```md\n[c](z.md)\n```\n[d](w.md#top)\n";
    expect(linksIn(text)).toEqual([
      { target: "x.md", line: 1 },
      { target: "w.md#top", line: 5 },
    ]);
  });
});
