import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

// No module-level mutable state in provider/: what a run shares lives in its Run
// (provider/run/run.ts), passed to every resource method and helper, so that nothing carries
// state from one run (or one test) into another unnamed. A module may hold constants only: no
// top-level `let` or `var`, no Map, Set, WeakMap, WeakSet or AbortController made at the top
// level (a constant table is typed ReadonlyMap or ReadonlySet), no memo (`once(...)`) called at
// the top level. The few values that must exist once per process are listed below, each with
// why; a new one fails this test until it is listed, and a listed one that is gone fails too.

const root = path.resolve(__dirname, "..", "..");

/** What must exist once per process, and why. */
const allowed: Record<string, string> = {
  "provider/provider-runtime.ts thisProcessRun":
    "the dynamic door's one anchor: the engine calls a dynamic provider's methods with " +
    "nothing but their arguments, so the provider process's run is found here",
  "provider/dynamic-runtime.ts processRuntime":
    "the bundled runtime, loaded once by the first entry called, as `require` keeps a module: " +
    "a second copy would hold a second run; with it, what the process's code cache holds of " +
    "it (the parts run before it was written), which only the process's own calls add to",
  "provider/renting/stack-sweeper.ts sweepers":
    "a TypeScript program constructs Instance and NodeGroup with no context, and every one of " +
    "a stack needs the stack's one InstanceSweeper: kept per program process, by stack",
  "provider/functions.ts programService":
    "a TypeScript program calls getOffers, getInstances, ... with no context: the program's " +
    "configuration is verified once per program process, as a run verifies the provider's",
};

const collections = new Set(["Map", "Set", "WeakMap", "WeakSet", "AbortController"]);
const memos = new Set(["once"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** Generated code says so in its first lines; it is not the project's own state. */
const isGenerated = (text: string) =>
  /^\s*\/\/.*(generated|do not edit)/im.test(text.slice(0, 300));

/** Whether a declaration's type says the value cannot change (ReadonlyMap, ReadonlySet). */
function isReadonlyTyped(declaration: ts.VariableDeclaration): boolean {
  const type = declaration.type;
  return (
    type !== undefined &&
    ts.isTypeReferenceNode(type) &&
    ["ReadonlyMap", "ReadonlySet"].includes(type.typeName.getText())
  );
}

/** What in a top-level initializer makes state, outside the functions it may define. */
function stateMadeBy(node: ts.Node): string | undefined {
  if (ts.isFunctionLike(node) || ts.isClassLike(node)) return undefined;
  if (ts.isNewExpression(node) && collections.has(node.expression.getText())) {
    return `new ${node.expression.getText()}`;
  }
  if (ts.isCallExpression(node) && memos.has(node.expression.getText())) {
    return `${node.expression.getText()}(...)`;
  }
  return ts.forEachChild(node, stateMadeBy);
}

/** "file name: why it is state" for each module-level mutable value of a parsed module. */
function stateIn(source: ts.SourceFile, file: string): string[] {
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const flags = statement.declarationList.flags;
    for (const declaration of statement.declarationList.declarations) {
      const name = `${file} ${declaration.name.getText()}`;
      if ((flags & ts.NodeFlags.Const) === 0) {
        found.push(`${name}: a top-level ${flags & ts.NodeFlags.Let ? "let" : "var"}`);
        continue;
      }
      const made = declaration.initializer && stateMadeBy(declaration.initializer);
      if (made === undefined) continue;
      const constantTable = made !== "new AbortController" && isReadonlyTyped(declaration);
      if (!made.startsWith("new ") || !constantTable) found.push(`${name}: ${made}`);
    }
  }
  return found;
}

function moduleState(file: string): string[] {
  const text = readFileSync(file, "utf8");
  if (isGenerated(text)) return [];
  const relative = path.relative(root, file).split(path.sep).join("/");
  return stateIn(ts.createSourceFile(file, text, ts.ScriptTarget.ES2023, true), relative);
}

/** The allow-list's key of a finding: "file name". */
const keyOf = (finding: string) => finding.slice(0, finding.indexOf(":"));

describe("module-level state in provider/", () => {
  const found = sourceFiles(path.join(root, "provider")).flatMap(moduleState);

  it("is only what must exist once per process, each listed with its reason", () => {
    expect(found.filter((finding) => allowed[keyOf(finding)] === undefined)).toEqual([]);
  });

  it("lists nothing that is gone", () => {
    const present = new Set(found.map(keyOf));
    expect(Object.keys(allowed).filter((key) => !present.has(key))).toEqual([]);
  });

  it("finds what it looks for", () => {
    const probe = (text: string) =>
      stateIn(ts.createSourceFile("probe.ts", text, ts.ScriptTarget.ES2023, true), "probe.ts");
    expect(probe("let count = 0;")).toEqual(["probe.ts count: a top-level let"]);
    expect(probe("export const seen = new Set<number>();")).toHaveLength(1);
    expect(probe("const byId = { all: new Map<string, number>() };")).toHaveLength(1);
    expect(probe("const stop: ReadonlySet<number> = new AbortController();")).toHaveLength(1);
    expect(probe("const load = once(async () => 1);")).toEqual(["probe.ts load: once(...)"]);
    expect(probe('const codes: ReadonlySet<string> = new Set(["a"]);')).toEqual([]);
    expect(probe("const make = () => new Map<string, number>();")).toEqual([]);
    expect(probe("const limit = 3;")).toEqual([]);
  });
});
