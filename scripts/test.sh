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
jest "$@"
