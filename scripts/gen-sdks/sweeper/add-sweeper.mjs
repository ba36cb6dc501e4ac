// Adds the stack's sweeper to the generated Python, Go and Node.js SDKs (scripts/gen-sdks.sh runs
// it): the module _stack_sweeper.py and the files stackSweeper.go and stackSweeper.ts, and a call
// to them in the resources that rent (Instance, NodeGroup), so that every program through the
// plugin declares its stack's sweeper as a program of the dynamic classes does. Pulumi's generators have no hook for it; this fails
// loudly when the generated code no longer has the line it follows.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const [pythonPackageDir, goPackageDir, nodejsPackageDir] = process.argv.slice(2);
if (!pythonPackageDir || !goPackageDir || !nodejsPackageDir) {
  throw new Error(
    "usage: add-sweeper.mjs <sdk/python/pulumi_gpucloud> <sdk/go/gpucloud> <sdk/nodejs>",
  );
}
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

copyFileSync(path.join(here, "stackSweeper.go"), path.join(goPackageDir, "stackSweeper.go"));
const goDefaults = "opts = internal.PkgResourceDefaultOpts(opts)";
for (const module of ["instance.go", "nodeGroup.go"]) {
  const file = path.join(goPackageDir, module);
  const lines = readFileSync(file, "utf8").split("\n");
  const at = lines.findIndex((line) => line.trim() === goDefaults);
  if (at < 0) throw new Error(`${file}: the generated code changed; update add-sweeper.mjs`);
  lines.splice(
    at + 1,
    0,
    "\topts, sweeperErr := withStackSweeper(ctx, opts)",
    "\tif sweeperErr != nil {",
    "\t\treturn nil, sweeperErr",
    "\t}",
  );
  writeFileSync(file, lines.join("\n"));
}

copyFileSync(path.join(here, "stackSweeper.ts"), path.join(nodejsPackageDir, "stackSweeper.ts"));
const nodejsDefaults = "opts = pulumi.mergeOptions(utilities.resourceOptsDefaults(), opts);";
for (const module of ["instance.ts", "nodeGroup.ts"]) {
  const file = path.join(nodejsPackageDir, module);
  const lines = readFileSync(file, "utf8").split("\n");
  const at = lines.findIndex((line) => line.trim() === nodejsDefaults);
  const imports = lines.findIndex((line) => line === 'import * as utilities from "./utilities";');
  if (at < 0 || imports < 0)
    throw new Error(`${file}: the generated code changed; update add-sweeper.mjs`);
  const indent = lines[at].slice(0, lines[at].indexOf("opts"));
  lines.splice(at + 1, 0, `${indent}opts = withStackSweeper(opts);`);
  lines.splice(imports + 1, 0, 'import { withStackSweeper } from "./stackSweeper";');
  writeFileSync(file, lines.join("\n"));
}
// tsc compiles the files tsconfig.json lists.
const tsconfig = path.join(nodejsPackageDir, "tsconfig.json");
const config = readFileSync(tsconfig, "utf8");
if (!config.includes('"secret.ts",')) {
  throw new Error(`${tsconfig}: the generated code changed; update add-sweeper.mjs`);
}
writeFileSync(tsconfig, config.replace('"secret.ts",', '"secret.ts",\n        "stackSweeper.ts",'));
