#!/usr/bin/env node
// The npm package's `gpucloud-emulator` command (package.json `bin`): the Node.js version check,
// then the emulator's command line, emulator/cli.ts.
import { requireSupportedNode } from "./node-version";

requireSupportedNode("gpucloud-emulator");
// Loaded only after the check passed (an `import` would be hoisted above it).
// eslint-disable-next-line @typescript-eslint/no-require-imports
require("../emulator/cli");
