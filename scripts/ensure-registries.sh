#!/usr/bin/env bash
# Provides the local stand-ins of the package registries the release rehearsal publishes into
# (test/release/registries.test.ts, RELEASING.md), pinned, through the registries' ordinary
# clients: verdaccio (an npm registry, scripts/registries/package-lock.json, `npm ci`) and
# pypiserver (a PyPI, scripts/registries/requirements.txt, in a virtual environment). The Go
# module proxy needs none: the release's goproxy/ folder is one.
#
#   bash scripts/ensure-registries.sh     # prints the folder: <folder>/verdaccio/node_modules/.bin/verdaccio,
#                                         # <folder>/pypiserver/bin/pypi-server
#
# Prints the folder on its last line of stdout. Reused while its pins are unchanged.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"
pins="$(cat "$root/scripts/registries/package-lock.json" "$root/scripts/registries/requirements.txt" | sha256sum | cut -c1-16)"
PREFIX="$CACHE_ROOT/registries-$pins"
log() { printf '[ensure-registries] %s\n' "$*" >&2; }

if [ ! -f "$PREFIX/verdaccio/.complete" ]; then
  log "installing verdaccio (scripts/registries/package-lock.json)"
  rm -rf "$PREFIX/verdaccio"
  mkdir -p "$PREFIX/verdaccio"
  cp "$root/scripts/registries/package.json" "$root/scripts/registries/package-lock.json" "$PREFIX/verdaccio/"
  (cd "$PREFIX/verdaccio" && npm ci --no-audit --no-fund --loglevel=error >&2)
  touch "$PREFIX/verdaccio/.complete"
fi
if [ ! -f "$PREFIX/pypiserver/.complete" ]; then
  log "installing pypiserver (scripts/registries/requirements.txt)"
  rm -rf "$PREFIX/pypiserver"
  python3 -m venv "$PREFIX/pypiserver"
  "$PREFIX/pypiserver/bin/pip" install --quiet --disable-pip-version-check \
    -r "$root/scripts/registries/requirements.txt" >&2
  touch "$PREFIX/pypiserver/.complete"
fi
echo "$PREFIX"
