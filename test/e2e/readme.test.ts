import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import ts from "typescript";
import {
  type CodeBlock,
  codeBlocksIn,
  documentationFiles,
  leftOnAccount,
  whereIs,
} from "../support/doc-blocks";
import { useEmulator } from "../support/use-emulator";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig } from "../support/programs";
import {
  type PageProgram,
  pythonProgram,
  typescriptProgram,
  withUniqueNames,
} from "../support/reference-pages";
import { nativePluginDir } from "../support/yaml-stack";

// Every TypeScript and Python example of the README and the guides (docs/guides/) is a whole
// Pulumi program: each one is deployed against the emulator, then destroyed, as a reader would
// run it, leaving nothing on the account (a few to a stack, see batchesOf).
// The TypeScript ones are type-checked against the package first. The emulator lists its default
// generated market (what `gpucloud-emulator` lists with no flags), with physical clusters for the
// multi-node examples.
const repoRoot = path.resolve(__dirname, "..", "..");
const blocks = documentationFiles().flatMap((file) => codeBlocksIn(file));
const examples = blocks.filter((block) => block.language === "ts");
const batches = batchesOf(examples, "ts");
// A block marked `file=<path>` is a copy of that file, not a program (test/unit/doc-files.test.ts).
const pythonExamples = blocks.filter(
  (block) => block.language === "python" && !block.words.some((word) => word.startsWith("file=")),
);
const pythonBatches = batchesOf(pythonExamples, "python");
// Served ports: the guides' readiness examples wait for the stand-in app behind each port.
const market = { market: { seed: 1 }, servePorts: true };

/**
 * What an example claims on the account that another may claim too: a template's content (the
 * service refuses the same content twice; the name is part of it, so a template is claimed by its
 * name, or as any template when the test cannot read one), an ask named by its id. In TypeScript
 * (`askIds: [31001]`) and Python (`ask_id=31001`). A secret's key is claimed too (the service
 * holds one per key), but a key another example of the stack holds is renamed instead
 * (keyedApart).
 */
function claimsOf(source: string): string[] {
  return [
    ...[
      ...source.matchAll(/\bgpucloud\.Template\(\s*"[^"]*",\s*(\{\s*name(?:: |=)"([^"]+)")?/g),
    ].map(([, , name]) => (name === undefined ? "a template" : `template ${name}`)),
    ...[...source.matchAll(/\bask_?[iI]ds?(?:: |=)\[?([\d, ]+)/g)].flatMap(([, ids = ""]) =>
      ids
        .split(/[, ]+/)
        .filter(Boolean)
        .map((id) => `ask ${id}`),
    ),
  ];
}

/** The secret keys an example declares: `key: "HF_TOKEN"` (TypeScript), `key="HF_TOKEN"` (Python). */
function secretKeysOf(source: string): string[] {
  return [...source.matchAll(/\bkey(?:: |=)"(\w+)"/g)].map(([, key = ""]) => key.toUpperCase());
}

/**
 * The example with each secret key that `held` already holds (keys of the stack's other
 * examples) prefixed by `page`'s: the README's and a guide's `HF_TOKEN` are two secrets of one
 * stack, as two resources named alike are two (withUniqueNames). The key is the secret's name on
 * the account; the example deploys the same secret under it.
 */
function keyedApart(page: string, source: string, held: ReadonlySet<string>): string {
  return source.replace(/\bkey(: |=)"(\w+)"/g, (match: string, sign: string, key: string) =>
    held.has(key.toUpperCase()) ? `key${sign}"${page.toUpperCase()}_${key}"` : match,
  );
}

/**
 * The examples in as few programs as share no claim, each example in a scope of its own with its
 * resources' names prefixed by its own (as the reference pages' examples run: reference-pages.ts;
 * a Python example is a module of its own that the program imports) and a secret key another
 * example of the program declares prefixed too (keyedApart): a stack costs the CLI's start,
 * config, up, destroy and teardown, whatever it holds.
 */
function batchesOf(blocks: readonly CodeBlock[], language: "ts" | "python"): PageProgram[][] {
  const batches: { claimed: Set<string>; keys: Set<string>; examples: PageProgram[] }[] = [];
  blocks.forEach((block, index) => {
    const page = `example${String(index + 1)}`;
    const claims = claimsOf(block.source);
    let batch = batches.find(({ claimed }) => claims.every((claim) => !claimed.has(claim)));
    if (batch === undefined) {
      batch = { claimed: new Set(), keys: new Set(), examples: [] };
      batches.push(batch);
    }
    const source = keyedApart(page, block.source, batch.keys);
    for (const claim of claims) batch.claimed.add(claim);
    for (const key of secretKeysOf(source)) batch.keys.add(key);
    batch.examples.push({
      page,
      where: whereIs(block),
      ...withUniqueNames(page, source, language),
    });
  });
  return batches.map(({ examples: batch }) => batch);
}

describe("the TypeScript examples of the README and the guides", () => {
  const { emulator } = useEmulator({ per: "file", ...market });

  it("has examples to run, and they type-check against the package", () => {
    expect(examples.filter((block) => block.file === "README.md").length).toBeGreaterThanOrEqual(1);
    // Written beside the repository's node_modules so that they import the package by name.
    const dir = mkdtempSync(path.join(repoRoot, "node_modules", ".readme-examples-"));
    try {
      const files = examples.map((block, index) => {
        const file = path.join(dir, `example${String(index + 1)}.ts`);
        writeFileSync(file, block.source);
        return { file, block };
      });
      const program = ts.createProgram(
        files.map(({ file }) => file),
        {
          strict: true,
          noEmit: true,
          module: ts.ModuleKind.Node16,
          moduleResolution: ts.ModuleResolutionKind.Node16,
          target: ts.ScriptTarget.ES2022,
          esModuleInterop: true,
          skipLibCheck: true,
          types: ["node"],
        },
      );
      const where = new Map(files.map(({ file, block }) => [path.resolve(file), block]));
      const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
        const block = diagnostic.file
          ? where.get(path.resolve(diagnostic.file.fileName))
          : undefined;
        const line =
          block && diagnostic.file && diagnostic.start !== undefined
            ? block.line + 1 + diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line
            : undefined;
        const at = block && line !== undefined ? `${block.file}:${line}: ` : "";
        return at + ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
      });
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(batches.map((batch) => [batch.map(({ where }) => where).join(", "), batch] as const))(
    "%s deploy together and are destroyed",
    async (_where, batch) => {
      await withStack(
        {
          program: typescriptProgram(batch),
          config: {
            ...emulatorConfig(emulator),
            "gpucloud-e2e:hfToken": { value: "hf_example", secret: true },
            // The fleet example's size: a fleet of its own is the benchmark's (and fleet.test.ts).
            "gpucloud-e2e:workers": { value: "2" },
          },
          env: { GPUCLOUD_API_KEY: emulator.apiKey, GPUCLOUD_BASE_URL: emulator.url },
        },
        async ({ stack }) => {
          const up = await stack.up();
          expect(up.summary.result).toBe("succeeded");
          await stack.destroy();
          expect(await leftOnAccount(emulator)).toEqual({});
        },
      );
    },
  );
});

describe("the Python examples of the README and the guides", () => {
  const { emulator } = useEmulator({ per: "file", ...market });

  it("has one in the README", () => {
    expect(
      pythonExamples.filter((block) => block.file === "README.md").length,
    ).toBeGreaterThanOrEqual(1);
  });

  it.each(
    pythonBatches.map((batch) => [batch.map(({ where }) => where).join(", "), batch] as const),
  )("%s deploy together and are destroyed", async (_where, batch) => {
    const dir = await mkdtemp(path.join(tmpdir(), "gpucloud-readme-python-"));
    try {
      const files = {
        ...pythonProgram(batch),
        "Pulumi.yaml":
          "name: readme-python\nruntime: python\n" +
          `plugins:\n  providers:\n    - name: gpucloud\n      path: ${nativePluginDir}\n`,
      };
      for (const [file, text] of Object.entries(files)) {
        await writeFile(path.join(dir, file), text);
      }
      await withStack(
        {
          language: "python",
          program: { dir },
          config: {
            ...emulatorConfig(emulator),
            "readme-python:hfToken": { value: "hf_example", secret: true },
          },
        },
        async ({ stack }) => {
          const up = await stack.up();
          expect(up.summary.result).toBe("succeeded");
          await stack.destroy();
          expect(await leftOnAccount(emulator)).toEqual({});
        },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
