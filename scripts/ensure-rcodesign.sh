#!/usr/bin/env bash
# Provides `rcodesign` (apple-codesign, a pure-Rust implementation of Apple's code signing), built
# from crates.io with cargo into the cache: the release signs its macOS executables ad hoc with
# it on Linux (RELEASING.md). Without notarization (--no-default-features): fewer crates, and an
# ad-hoc signature needs no Apple account. About 6 minutes on 2 cores the first time; nothing after.
#
# Prints the path of the `rcodesign` to use on its last line of stdout.
set -euo pipefail

VERSION="${GPUCLOUD_RCODESIGN_VERSION:-0.29.0}"
CACHE_ROOT="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"
PREFIX="$CACHE_ROOT/rcodesign-v$VERSION"
log() { printf '[ensure-rcodesign] %s\n' "$*" >&2; }

if [ -x "$PREFIX/bin/rcodesign" ]; then
  echo "$PREFIX/bin/rcodesign"
  exit 0
fi
command -v cargo >/dev/null 2>&1 || { log "cargo is needed to build rcodesign $VERSION"; exit 1; }
log "building rcodesign $VERSION from crates.io into $PREFIX"
start=$(date +%s)
cargo install --quiet --locked --no-default-features --root "$PREFIX" "apple-codesign@$VERSION" >&2
[ -x "$PREFIX/bin/rcodesign" ] || { log "cargo install did not leave $PREFIX/bin/rcodesign"; exit 1; }
log "built in $(( $(date +%s) - start ))s"
echo "$PREFIX/bin/rcodesign"
