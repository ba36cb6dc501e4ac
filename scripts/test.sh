#!/usr/bin/env bash
# `npm test`: lint, type-check, build, then the unit, contract and end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain-env.sh
echo "node $(node --version), $(pulumi version 2>/dev/null | sed 's/^/pulumi /')"
eslint .
prettier --check . >/dev/null || { prettier --check .; exit 1; }
tsc -p tsconfig.json --noEmit
tsc -p tsconfig.build.json
jest "$@"
