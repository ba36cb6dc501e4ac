#!/usr/bin/env node
// The npm package's `gpucloud-cost` command (package.json `bin`): the Node.js version check,
// then the cost command, provider/pricing/cost-command.ts.
import { requireSupportedNode } from "./node-version";

requireSupportedNode("gpucloud-cost");
// Loaded only after the check passed (an `import` would be hoisted above it).
const { costCommand } =
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require("../provider/pricing/cost-command") as typeof import("../provider/pricing/cost-command");
void costCommand(process.argv.slice(2)).then((status) => {
  process.exitCode = status;
});
