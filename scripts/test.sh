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
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
status=0
jest --json --outputFile="$results" "$@" || status=$?
# One closing line in the plain form CI reads, whatever the reporter printed above.
node -e '
  const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
' "$results" 2>/dev/null || echo "jest: 0 passed, 1 failed"
exit "$status"
