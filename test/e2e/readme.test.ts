import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, outsideClient } from "../support/programs";
import { withPythonStack } from "../support/python-stack";

// Every TypeScript example in the README is a whole Pulumi program: each one is compiled and
// deployed against the emulator, then destroyed, as a reader would run it.
const repoRoot = path.resolve(__dirname, "..", "..");
const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
const examples = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? "");
const pythonExamples = [...readme.matchAll(/```python\n([\s\S]*?)```/g)].map(
  (match) => match[1] ?? "",
);

function compile(source: string): string {
  return ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
    reportDiagnostics: true,
  }).outputText;
}

describe("the README's examples", () => {
  let emulator: TestEmulator;
  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("has examples to run, and they type-check against the package", () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
    // Written beside the repository's node_modules so that they import the package by name.
    const dir = mkdtempSync(path.join(repoRoot, "node_modules", ".readme-examples-"));
    try {
      const files = examples.map((source, index) => {
        const file = path.join(dir, `example${String(index + 1)}.ts`);
        writeFileSync(file, source);
        return file;
      });
      const program = ts.createProgram(files, {
        strict: true,
        noEmit: true,
        module: ts.ModuleKind.Node16,
        moduleResolution: ts.ModuleResolutionKind.Node16,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        skipLibCheck: true,
        types: ["node"],
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(
    examples.map((source, index) => [
      index + 1,
      source.split("\n").find((line) => line.startsWith("const ") || line.startsWith("export ")) ??
        "",
      source,
    ]),
  )("example %i (%s) deploys and is destroyed", async (_number, _title, source) => {
    await withStack(
      {
        program: compile(source),
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
        const state = await emulator.state();
        expect([
          state.secrets,
          state.webhooks,
          state.volumes,
          state.instances,
          state.sshKeys,
          state.templates.filter((template) => template.creatorId === state.user.id),
          state.endpoints,
          state.workerGroups,
        ]).toEqual([[], [], [], [], [], [], [], []]);
        // Only the key the emulator was started with is left: every ApiKey was revoked.
        expect((await outsideClient(emulator).apiKeys.list()).map((key) => key.id)).toEqual([1]);
      },
    );
  });
});

describe("the README's Python examples", () => {
  let emulator: TestEmulator;
  beforeAll(async () => {
    emulator = await startTestEmulator();
  });
  afterAll(async () => {
    await emulator.close();
  });

  it("has one", () => {
    expect(pythonExamples.length).toBeGreaterThanOrEqual(1);
  });

  it.each(pythonExamples.map((source, index) => [index + 1, source]))(
    "Python example %i deploys and is destroyed",
    async (_number, source) => {
      await withPythonStack(
        {
          program: { main: source, project: "readme-python" },
          config: {
            ...emulatorConfig(emulator),
            "readme-python:hfToken": { value: "hf_example", secret: true },
          },
        },
        async ({ stack }) => {
          const up = await stack.up();
          expect(up.summary.result).toBe("succeeded");
          await stack.destroy();
          const state = await emulator.state();
          expect([state.secrets, state.volumes, state.instances]).toEqual([[], [], []]);
        },
      );
    },
  );
});
