import { resourceModules } from "../../provider/registry";
import { repoRoot } from "./repo-root";
import { readdirSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { codeBlocksIn, whereIs } from "./doc-blocks";

// The programs of the reference pages (docs/reference, whose examples the generator renders from
// the schema), as test/e2e/reference-examples.test.ts runs them: one program per language that
// holds every page's code block as users copy it, each in a scope of its own, so that a whole
// reference deploys in one `pulumi up`. What two pages both declare (an Instance `instance` on
// Instance.md and cancelRsyncCopy.md) must still be two resources: each resource's name is
// prefixed with its page's (`cancelRsyncCopy-instance`), the one change made to the code (in
// YAML, which has no scopes, every key of a section too, and the references to it).

export type ProgramLanguage = "ts" | "python" | "yaml";

/** A resource a page's program declares. */
export interface PageResource {
  /** Its type: `Instance`. */
  readonly type: string;
  /** Its name in the program, made unique: `<page>-<name>`. */
  readonly name: string;
}

export interface PageProgram {
  /** The page: `Instance`, `cancelRsyncCopy`. */
  readonly page: string;
  /** Where its code block is, `docs/reference/Instance.md:14`. */
  readonly where: string;
  /** The code block, with its resources' names made unique. */
  readonly source: string;
  readonly declared: readonly PageResource[];
}

/** Each language's resource declaration, up to the name: `new gpucloud.Instance("instance"`. */
const declarations: Record<Exclude<ProgramLanguage, "yaml">, RegExp> = {
  ts: /(new gpucloud\.([A-Z]\w*)\()"([^"]+)"/g,
  python: /(gpucloud\.([A-Z]\w*)\(\s*)"([^"]+)"/g,
};

const referenceDir = path.join("docs", "reference");

/** Resources the SDKs declare themselves (the InstanceSweeper): their pages show YAML only. */
const overlays = new Set(
  resourceModules.flatMap(({ descriptor }) => (descriptor.overlay ? [descriptor.type] : [])),
);

/**
 * The pages of resources and functions with an example in every language (not the index, the
 * provider's configuration, nor an overlay's page).
 */
export function referencePages(): string[] {
  return readdirSync(path.join(repoRoot, referenceDir))
    .filter((file) => file.endsWith(".md") && file !== "README.md" && file !== "provider.md")
    .filter((file) => !overlays.has(path.basename(file, ".md")))
    .map((file) => path.basename(file, ".md"))
    .sort();
}

/**
 * YAML names its resources, variables and outputs by their keys (two spaces in), and refers to
 * them as `${name.output}`: all are made `<page>-<name>`.
 */
function uniqueYaml(page: string, source: string): { source: string; declared: PageResource[] } {
  const keys = new Set([...source.matchAll(/^ {2}([A-Za-z]\w*):/gm)].map(([, key = ""]) => key));
  const declared = [...source.matchAll(/^ {2}(\w+):\n {4}type: gpucloud:index:(\w+)$/gm)].map(
    ([, name = "", type = ""]) => ({ type, name: `${page}-${name}` }),
  );
  const renamed = source
    .replace(/^ {2}([A-Za-z]\w*):/gm, (_match: string, key: string) => `  ${page}-${key}:`)
    .replace(/\$\{(\w+)(?=[.}])/g, (match: string, name: string) =>
      keys.has(name) ? `\${${page}-${name}` : match,
    );
  return { source: renamed, declared };
}

/** The one code block of `language` on each page, its resources' names made unique. */
export function pagePrograms(language: ProgramLanguage): PageProgram[] {
  return referencePages().map((page) => {
    const blocks = codeBlocksIn(path.posix.join(referenceDir, `${page}.md`)).filter(
      (block) => block.language === language,
    );
    const [block] = blocks;
    if (block === undefined || blocks.length !== 1) {
      throw new Error(`${page}.md: ${String(blocks.length)} ${language} blocks, not one`);
    }
    const where = whereIs(block);
    if (language === "yaml") return { page, where, ...uniqueYaml(page, block.source) };
    return { page, where, ...withUniqueNames(page, block.source, language) };
  });
}

/** A TypeScript or Python block with each resource's name prefixed by `page`'s. */
export function withUniqueNames(
  page: string,
  source: string,
  language: Exclude<ProgramLanguage, "yaml">,
): { source: string; declared: PageResource[] } {
  const declared: PageResource[] = [];
  const unique = (_match: string, opening: string, type: string, name: string) => {
    declared.push({ type, name: `${page}-${name}` });
    return `${opening}"${page}-${name}"`;
  };
  return { source: source.replace(declarations[language], unique), declared };
}

/**
 * One TypeScript program (index.js) running every page's block, compiled as a module of its own
 * inside a function: the page's exports are the stack's output named after the page.
 */
export function typescriptProgram(pages: readonly PageProgram[]): string {
  const compiled = pages.map(({ page, source }) => {
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    });
    return [`exports[${JSON.stringify(page)}] = page((module, exports) => {`, outputText, "});"];
  });
  return [
    '"use strict";',
    "// A module's scope for each page; a page that exports a function (`export =`) is run.",
    "function page(body) {",
    "  const module = { exports: {} };",
    "  body(module, module.exports);",
    '  return typeof module.exports === "function" ? module.exports() : module.exports;',
    "}",
    ...compiled.flat(),
  ].join("\n");
}

/** One Python program: a module per page (its own scope), which __main__.py imports in turn. */
export function pythonProgram(pages: readonly PageProgram[]): Record<string, string> {
  const moduleOf = (page: string) => `reference_${page}`;
  return {
    "__main__.py": pages.map(({ page }) => `import ${moduleOf(page)}\n`).join(""),
    ...Object.fromEntries(pages.map(({ page, source }) => [`${moduleOf(page)}.py`, source])),
  };
}

/**
 * One YAML program's sections (`resources:`, `variables:`, `outputs:`), each holding those of
 * every page: YAML has no scopes, and the names are unique already.
 */
export function yamlProgram(pages: readonly PageProgram[]): string {
  const sections = new Map<string, string[]>();
  for (const { source } of pages) {
    let section: string[] | undefined;
    for (const line of source.split("\n")) {
      const heading = /^(\w+):\s*$/.exec(line)?.[1];
      if (heading !== undefined) {
        section = sections.get(heading) ?? [];
        sections.set(heading, section);
      } else if (line.trim() !== "") {
        section?.push(line);
      }
    }
  }
  return [...sections].map(([heading, lines]) => [`${heading}:`, ...lines].join("\n")).join("\n");
}
