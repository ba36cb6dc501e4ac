#!/usr/bin/env bash
# `npm run demo`: installs what is missing, builds, then deploys the main example against a
# local emulator with the real Pulumi CLI and destroys it again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
source scripts/toolchain-env.sh
tsc -p tsconfig.build.json
# The example loads the package from node_modules as a user's program does: a copy installed
# from the packed tarball, refreshed from this build.
node scripts/install-package.mjs >/dev/null
exec node scripts/demo.mjs "$@"
