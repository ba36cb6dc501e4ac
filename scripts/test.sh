#!/usr/bin/env bash
# `npm test`: build, lint, type-check, then the unit, contract and end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain-env.sh
echo "node $(node --version), $(pulumi version 2>/dev/null | sed 's/^/pulumi /')"
# Built first: the examples and end-to-end programs use the package by name, from dist/.
tsc -p tsconfig.build.json
eslint .
prettier --check . >/dev/null || { prettier --check .; exit 1; }
tsc -p tsconfig.json --noEmit
echo "test: build, lint and type checks took ${SECONDS}s"
# Kept for `npm run test:durations` (test/support/sequencer.js).
results=".test-results.json"
status=0
jest --json --outputFile="$results" "$@" || status=$?
# The slowest files (the budget in docs/maintainers/testing.md), then one closing line in the
# plain form CI reads, whatever the reporter printed above.
node -e '
  const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  const root = process.cwd() + "/";
  const files = r.testResults
    .map((t) => ({ name: t.name.replace(root, ""), seconds: (t.endTime - t.startTime) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds);
  console.log("slowest files:");
  for (const f of files.slice(0, 20)) console.log(`  ${f.seconds.toFixed(1).padStart(6)} s  ${f.name}`);
  console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
' "$results" 2>/dev/null || echo "jest: 0 passed, 1 failed"
exit "$status"
