#!/usr/bin/env bash
# Runs a command with the project's toolchain (Node 22+, the Pulumi CLI, offline settings).
set -euo pipefail
source "$(dirname "$0")/toolchain-env.sh"
exec "$@"
