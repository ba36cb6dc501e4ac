#!/usr/bin/env node
// The npm package's `pulumi-resource-gpucloud` command (package.json `bin`), the native plugin:
// the Node.js version check (which writes to stderr only: the engine reads the port from the
// first line of stdout), then the plugin, provider/native/main.ts.
import { requireSupportedNode } from "./node-version";

requireSupportedNode("pulumi-resource-gpucloud");
// Loaded only after the check passed (an `import` would be hoisted above it).
// eslint-disable-next-line @typescript-eslint/no-require-imports
require("../provider/native/main");
