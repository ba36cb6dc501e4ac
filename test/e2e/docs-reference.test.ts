import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import ts from "typescript";
import {
  defaultPlugin,
  goName,
  packageSpecSchema,
  type PackageSpec,
  pluginSchema,
  pythonName,
  referencePages,
  registryPages,
  writeReference,
} from "../../scripts/gen-docs";
import { repoRoot } from "../support/repo-root";

const execFileAsync = promisify(execFile);

// The reference pages in docs/reference are committed, generated from the plugin's schema by
// `npm run gen-docs` (scripts/gen-docs.ts): this fails when they differ from what it writes now,
// when a resource, function, input or output has no page or row, and when a page names a
// Python or Go name the generated SDKs (sdk/python, sdk/go) do not have. The pages' examples
// run against an emulator in reference-examples.test.ts.

const committedDir = path.join(repoRoot, "docs", "reference");

/** Every file of a directory (not below it: the reference is flat), by name, with its text. */
async function filesOf(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile()) files.set(entry.name, await readFile(path.join(dir, entry.name), "utf8"));
  }
  return files;
}

/** Every file below `dir` whose name ends with `extension`, with its text. */
async function sourcesOf(dir: string, extension: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
      .map((entry) => readFile(path.join(entry.parentPath, entry.name), "utf8")),
  );
}

/** A table row's first three cells: a property's names in TypeScript/YAML, Python and Go. */
interface NamedRow {
  page: string;
  schemaName: string;
  python: string;
  go: string;
}

const namedRowPattern = /^\| `([^`]+)` \| `([^`]+)` \| `([^`]+)` \|/gm;

function namedRowsOf(page: string, text: string): NamedRow[] {
  return [...text.matchAll(namedRowPattern)].map(([, schemaName = "", python = "", go = ""]) => ({
    page,
    schemaName,
    python,
    go,
  }));
}

/** The code blocks of one language on a page. */
const fencesOf = (text: string, language: string): string[] =>
  [...text.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map(
    ([, body = ""]) => body,
  );

/**
 * The names each SDK gives the schema's properties, as `schema name → SDK name` pairs: Go's
 * struct fields by their `pulumi:"..."` tags; Python's getters by `@pulumi.getter(name=...)`,
 * the functions' arguments by `__args__['...'] = ...`.
 */
interface SdkNames {
  goFields: Set<string>;
  pythonProperties: Set<string>;
  /** Every top-level name each SDK defines: classes, functions, types. */
  goDefinitions: Set<string>;
  pythonDefinitions: Set<string>;
}

async function sdkNames(): Promise<SdkNames> {
  const go = (await sourcesOf(path.join(repoRoot, "sdk", "go"), ".go")).join("\n");
  const python = (await sourcesOf(path.join(repoRoot, "sdk", "python"), ".py")).join("\n");
  const pair = (schemaName: string, sdkName: string) => `${schemaName} → ${sdkName}`;
  // The provider's settings, as the settings table names them: `gpucloud:apiKey` →
  // `gpucloud.config.api_key` (config/vars.py) and `config.GetApiKey(ctx)` (config/config.go).
  const pythonSettings = [
    ...python.matchAll(
      /def (\w+)\(self\)[^\n]*:\s+"""(?:(?!""")[\s\S])*"""\s+return __config__\.get(?:_\w+)?\('(\w+)'\)/g,
    ),
  ];
  const goSettings = [
    ...go.matchAll(
      /func (Get\w+)\(ctx \*pulumi\.Context\) \w+ \{\s+return config\.Get\w*\(ctx, "([^"]+)"\)/g,
    ),
  ];
  const goFields = new Set([
    ...[...go.matchAll(/^\s+(\w+)\s+[^\n`]*`pulumi:"([^"]+)"`/gm)].map(([, field = "", tag = ""]) =>
      pair(tag, field),
    ),
    ...goSettings.map(([, getter = "", key = ""]) => pair(key, `config.${getter}(ctx)`)),
  ]);
  const getters = [...python.matchAll(/@pulumi\.getter(?:\(name="([^"]+)"\))?\s+def (\w+)\(/g)];
  const args = [...python.matchAll(/__args__\['([^']+)'\] = (\w+)/g)];
  const pythonProperties = new Set([
    ...getters.map(([, schemaName, name = ""]) => pair(schemaName ?? name, name)),
    ...args.map(([, schemaName = "", name = ""]) => pair(schemaName, name)),
    ...pythonSettings.map(([, name = "", key = ""]) =>
      pair(`gpucloud:${key}`, `gpucloud.config.${name}`),
    ),
  ]);
  const goDefinitions = new Set(
    [...go.matchAll(/^(?:func (?:\([^)]*\) )?|type )(\w+)/gm)].map(([, name = ""]) => name),
  );
  const pythonDefinitions = new Set(
    [...python.matchAll(/^(?:class|def) (\w+)/gm)].map(([, name = ""]) => name),
  );
  return { goFields, pythonProperties, goDefinitions, pythonDefinitions };
}

describe("the reference pages (docs/reference)", () => {
  let schema: unknown;
  let spec: PackageSpec;
  let committed: Map<string, string>;
  let generated: string;
  beforeAll(async () => {
    generated = await mkdtemp(path.join(tmpdir(), "gpucloud-docs-reference-"));
    schema = await pluginSchema(defaultPlugin());
    spec = packageSpecSchema.parse(schema);
    committed = await filesOf(committedDir).catch(() => new Map<string, string>());
  });
  afterAll(async () => {
    await rm(generated, { recursive: true, force: true });
  });

  it("are what npm run gen-docs generates from the plugin's schema now", async () => {
    const outDir = path.join(generated, "reference");
    await writeReference(referencePages(schema), outDir);
    const fresh = await filesOf(outDir);
    expect(fresh.size).toBeGreaterThan(10);
    const differing = [...new Set([...fresh.keys(), ...committed.keys()])]
      .filter((file) => fresh.get(file) !== committed.get(file))
      .sort();
    // The files to regenerate: run `npm run gen-docs`, then commit docs/reference.
    expect({ differing, fix: "run npm run gen-docs" }).toEqual({
      differing: [],
      fix: "run npm run gen-docs",
    });
  });

  it("and the Registry's two pages (docs/_index.md, docs/installation-configuration.md) are what gen-docs writes", async () => {
    for (const [file, text] of registryPages(spec)) {
      const committedText = await readFile(path.join(repoRoot, "docs", file), "utf8").catch(
        () => "",
      );
      expect({ file, same: committedText === text, fix: "run npm run gen-docs" }).toEqual({
        file,
        same: true,
        fix: "run npm run gen-docs",
      });
    }
  });

  it("have a page for every resource and function, naming every input and output", () => {
    const missing: string[] = [];
    const rowsOn = (page: string) =>
      new Set(namedRowsOf(page, committed.get(page) ?? "").map((row) => row.schemaName));
    const expectRows = (page: string, what: string, names: readonly string[]) => {
      const rows = rowsOn(page);
      for (const name of names) if (!rows.has(name)) missing.push(`${page}: ${what} ${name}`);
    };
    const expectTypes = (page: string, tokens: Iterable<string>) => {
      const text = committed.get(page) ?? "";
      for (const token of tokens) {
        const name = token.split(":").pop() ?? token;
        if (!text.includes(`\n### ${name}\n`)) missing.push(`${page}: type ${name}`);
        expectRows(page, `${name} field`, Object.keys(spec.types[token]?.properties ?? {}));
      }
    };
    for (const [token, resource] of Object.entries(spec.resources)) {
      const page = `${token.split(":").pop() ?? token}.md`;
      if (!committed.has(page)) missing.push(`${page} (resource ${token})`);
      expectRows(page, "input", Object.keys(resource.inputProperties));
      expectRows(page, "output", Object.keys(resource.properties));
      expectTypes(page, typesReachedFrom(spec, [resource.inputProperties, resource.properties]));
    }
    for (const [token, fn] of Object.entries(spec.functions)) {
      const page = `${token.split(":").pop() ?? token}.md`;
      if (!committed.has(page)) missing.push(`${page} (function ${token})`);
      expectRows(page, "argument", Object.keys(fn.inputs.properties));
      expectRows(page, "result", Object.keys(fn.outputs.properties));
      expectTypes(page, typesReachedFrom(spec, [fn.inputs.properties, fn.outputs.properties]));
    }
    expectRows("provider.md", "provider input", Object.keys(spec.provider.inputProperties));
    const index = committed.get("README.md") ?? "";
    for (const page of committed.keys()) {
      if (page !== "README.md" && !index.includes(`](${page})`)) missing.push(`README.md: ${page}`);
    }
    expect(Object.keys(spec.resources).length).toBeGreaterThanOrEqual(9);
    expect(missing).toEqual([]);
  });

  it("name in Python and Go only what sdk/python and sdk/go have", async () => {
    const names = await sdkNames();
    const rows = [...committed].flatMap(([page, text]) => namedRowsOf(page, text));
    expect(rows.length).toBeGreaterThan(200);
    const unknown = [
      ...rows
        .filter((row) => !names.pythonProperties.has(`${row.schemaName} → ${row.python}`))
        .map((row) => `${row.page}: Python ${row.python} (${row.schemaName})`),
      ...rows
        .filter((row) => !names.goFields.has(`${row.schemaName} → ${row.go}`))
        .map((row) => `${row.page}: Go ${row.go} (${row.schemaName})`),
    ];
    // What the snippets and type sections name in the SDKs: `gpucloud.X` in Python and Go.
    for (const [page, text] of committed) {
      for (const [language, defined] of [
        ["python", names.pythonDefinitions],
        ["go", names.goDefinitions],
      ] as const) {
        const named = [
          ...fencesOf(text, language)
            .join("\n")
            .matchAll(/\bgpucloud\.(\w+)/g),
        ];
        for (const [, name = ""] of named) {
          if (!defined.has(name)) unknown.push(`${page}: ${language} gpucloud.${name}`);
        }
      }
      for (const [, python = "", go = ""] of text.matchAll(
        /Python `gpucloud\.(?:outputs\.)?(\w+)`, Go `gpucloud\.(\w+)`/g,
      )) {
        if (!names.pythonDefinitions.has(python)) unknown.push(`${page}: Python class ${python}`);
        if (!names.goDefinitions.has(go)) unknown.push(`${page}: Go type ${go}`);
      }
    }
    expect([...new Set(unknown)]).toEqual([]);
  });

  it("spell names as the SDKs' generators do", () => {
    // The cases Pulumi's own generators single out (codegen/python, codegen/go).
    expect(pythonName("gpuRamMb")).toBe("gpu_ram_mb");
    expect(pythonName("sshKeyIds")).toBe("ssh_key_ids");
    expect(pythonName("HTTPServer")).toBe("http_server");
    expect(pythonName("publicIPs")).toBe("public_ips");
    expect(pythonName("sha256Hash")).toBe("sha256_hash");
    expect(pythonName("billing_read")).toBe("billing_read");
    expect(pythonName("lambda")).toBe("lambda_");
    expect(goName("diskGb")).toBe("DiskGb");
    expect(goName("billing_read")).toBe("Billing_read");
    expect(goName("urn")).toBe("Urn");
    expect(goName("elementType")).toBe("ElementType_");
    expect(goName("toInstanceOutput", "Instance")).toBe("ToInstanceOutput_");
  });

  it("hold TypeScript that type-checks against the package, Go that gofmt accepts as it is and vet against the SDK, and Python that parses", async () => {
    const dir = await mkdtemp(path.join(repoRoot, "node_modules", ".docs-reference-"));
    try {
      const snippets = (language: string) =>
        [...committed].flatMap(([page, text]) =>
          fencesOf(text, language).map((body, index) => ({ page, index, body })),
        );
      // TypeScript: written beside the repository's node_modules, to import the package by name.
      const tsFiles = await Promise.all(
        snippets("ts").map(async ({ page, index, body }) => {
          const file = path.join(dir, `${path.basename(page, ".md")}-${index}.ts`);
          await writeFile(file, body);
          return file;
        }),
      );
      expect(tsFiles.length).toBeGreaterThan(10);
      const program = ts.createProgram(tsFiles, {
        strict: true,
        noEmit: true,
        module: ts.ModuleKind.Node16,
        moduleResolution: ts.ModuleResolutionKind.Node16,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        skipLibCheck: true,
        types: ["node"],
      });
      const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
        const where = diagnostic.file ? path.basename(diagnostic.file.fileName) : "";
        return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
      });
      expect(problems).toEqual([]);

      // Go: each snippet a program (package main) of one module that uses the committed SDK, as
      // examples/go-workspace does (its go.mod and go.sum, with the SDK's folder made absolute).
      const goDir = path.join(dir, "go");
      await mkdir(goDir);
      const workspace = path.join(repoRoot, "examples", "go-workspace");
      const goMod = await readFile(path.join(workspace, "go.mod"), "utf8");
      const sdkReplace = "=> ../../sdk/go";
      expect(goMod).toContain(sdkReplace);
      await writeFile(
        path.join(goDir, "go.mod"),
        goMod.replace(sdkReplace, `=> ${path.join(repoRoot, "sdk", "go")}`),
      );
      await writeFile(
        path.join(goDir, "go.sum"),
        await readFile(path.join(workspace, "go.sum"), "utf8"),
      );
      for (const { page, index, body } of snippets("go")) {
        const program = path.join(goDir, `${path.basename(page, ".md").toLowerCase()}${index}`);
        await mkdir(program);
        await writeFile(path.join(program, "main.go"), body);
      }
      // gofmt -l lists the files it would change; a syntax error fails it.
      const { stdout: unformatted } = await execFileAsync("gofmt", ["-l", goDir]);
      expect(unformatted.trim()).toBe("");
      // go vet type-checks them against the SDK (an output given where an input is taken, an
      // unused variable), from the build cache that setup and the Go SDK's test fill.
      await execFileAsync("go", ["vet", "-mod=readonly", "./..."], { cwd: goDir }).catch(
        (error: unknown) => {
          const { stderr } = error as { stderr?: string };
          throw new Error(`go vet of the Go snippets failed:\n${stderr ?? String(error)}`);
        },
      );

      const python = snippets("python");
      const parse =
        "import ast, json, sys\n" +
        "for snippet in json.load(sys.stdin):\n" +
        "    ast.parse(snippet['body'], filename=snippet['page'])\n";
      const child = execFile("python3", ["-c", parse]);
      child.stdin?.end(JSON.stringify(python));
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** The object types the properties reach, directly or through other object types. */
function typesReachedFrom(
  spec: PackageSpec,
  roots: readonly Record<string, PackageSpec["types"][string]["properties"][string]>[],
): Set<string> {
  const found = new Set<string>();
  const visit = (json: unknown) => {
    for (const [, token = ""] of JSON.stringify(json).matchAll(/"#\/types\/([^"]+)"/g)) {
      if (found.has(token)) continue;
      found.add(token);
      visit(spec.types[token]);
    }
  };
  roots.forEach(visit);
  return found;
}
