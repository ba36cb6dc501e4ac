#!/usr/bin/env bash
# Provides Node.js 22+ for the project's commands. When the system's Node is older, installs
# Node 24 LTS from the npm registry (the `node` package installs a platform binary package from
# the registry; nothing is downloaded from elsewhere) into a cache directory outside the repo.
#
# Prints the directory holding the `node` to use on its last line of stdout.
set -euo pipefail

NODE_VERSION="${GPUCLOUD_NODE_VERSION:-24.21.0}"
CACHE_ROOT="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"
PREFIX="$CACHE_ROOT/node-v$NODE_VERSION"
log() { printf '[ensure-node] %s\n' "$*" >&2; }

major_of() { "$1" --version 2>/dev/null | sed -n 's/^v\([0-9]*\)\..*/\1/p'; }

if command -v node >/dev/null 2>&1; then
  major=$(major_of node)
  if [ -n "$major" ] && [ "$major" -ge 22 ]; then
    dirname "$(command -v node)"
    exit 0
  fi
fi

if [ -x "$PREFIX/node_modules/node/bin/node" ]; then
  echo "$PREFIX/node_modules/node/bin"
  exit 0
fi

command -v npm >/dev/null 2>&1 || { log "npm is needed to install Node $NODE_VERSION"; exit 1; }
log "system Node is $(node --version 2>/dev/null || echo missing); installing Node $NODE_VERSION from the npm registry into $PREFIX"
start=$(date +%s)
mkdir -p "$PREFIX"
# The `node` package's preinstall step fetches the platform binary package from the registry.
npm install --prefix "$PREFIX" --no-save --no-audit --no-fund --loglevel=error "node@$NODE_VERSION" >&2
[ -x "$PREFIX/node_modules/node/bin/node" ] || { log "the node package did not install a binary"; exit 1; }
log "installed $("$PREFIX/node_modules/node/bin/node" --version) in $(( $(date +%s) - start ))s"
echo "$PREFIX/node_modules/node/bin"
