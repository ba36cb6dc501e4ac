#!/usr/bin/env bash
# `npm test`: the static checks (format, lint, types) beside the build, then beside the unit,
# contract and end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain-env.sh
echo "node $(node --version), $(pulumi version 2>/dev/null | sed 's/^/pulumi /')"
# The static checks are single-threaded (about 95 s of one core): they run beside the build and
# Jest, which keep the other core busy, rather than before them with a core idle (they need no
# build: tsconfig.json maps the package's name to its sources). Prettier goes first, before any
# test could write a file in the tree; what they print is shown after Jest's report.
checks_log="$(mktemp)"
trap 'rm -f "$checks_log"' EXIT
(
  failed=0
  prettier --check . >/dev/null 2>&1 || { prettier --check . || true; failed=1; }
  # `tsc -p tsconfig.json --noEmit` and `eslint .` over one TypeScript program.
  node scripts/check-types-and-lint.mjs || failed=1
  echo "checks: format, lint and types $([ "$failed" = 0 ] && echo passed || echo FAILED) after ${SECONDS}s"
  exit "$failed"
) >"$checks_log" 2>&1 &
checks=$!

# Built before Jest: the examples and end-to-end programs use the package by name, from dist/.
tsc -p tsconfig.build.json
echo "test: built in ${SECONDS}s"

# Kept for `npm run test:durations` (test/support/sequencer.js).
results=".test-results.json"
status=0
jest --json --outputFile="$results" "$@" || status=$?
checks_status=0
wait "$checks" || checks_status=$?
cat "$checks_log"
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
echo "test: finished in ${SECONDS}s"
[ "$status" = 0 ] && exit "$checks_status"
exit "$status"
