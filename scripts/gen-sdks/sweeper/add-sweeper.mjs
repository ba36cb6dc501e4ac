// Adds the stack's sweeper to a generated Python SDK (scripts/gen-sdks.sh runs it): the module
// _stack_sweeper.py, and a call to it in the classes that rent (Instance, NodeGroup), so that
// every Python program declares its stack's sweeper as a TypeScript program does. Pulumi's
// generator has no hook for it; this fails loudly when the generated code no longer has the
// line it follows.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const [pythonPackageDir] = process.argv.slice(2);
if (!pythonPackageDir) throw new Error("usage: add-sweeper.mjs <sdk/python/pulumi_gpucloud>");
const here = path.dirname(new URL(import.meta.url).pathname);
copyFileSync(
  path.join(here, "_stack_sweeper.py"),
  path.join(pythonPackageDir, "_stack_sweeper.py"),
);

const defaults =
  "opts = pulumi.ResourceOptions.merge(_utilities.get_resource_opts_defaults(), opts)";
for (const module of ["instance.py", "node_group.py"]) {
  const file = path.join(pythonPackageDir, module);
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  const at = lines.findIndex((line) => line.trim() === defaults);
  const imports = lines.findIndex((line) => line === "from . import _utilities");
  if (at < 0 || imports < 0)
    throw new Error(`${file}: the generated code changed; update add-sweeper.mjs`);
  const indent = lines[at].slice(0, lines[at].indexOf("opts"));
  lines.splice(at + 1, 0, `${indent}opts = _stack_sweeper.with_stack_sweeper(opts)`);
  lines.splice(imports + 1, 0, "from . import _stack_sweeper");
  writeFileSync(file, lines.join("\n"));
}
