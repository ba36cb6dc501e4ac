#!/usr/bin/env bash
# `npm run demo`: installs what is missing, then deploys the demo program with the real Pulumi
# CLI and destroys it again, leaving nothing behind.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/toolchain-env.sh
exec node scripts/demo.mjs "$@"
