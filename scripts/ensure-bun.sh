#!/usr/bin/env bash
# Provides Bun's platform binaries, pinned, from the npm registry (@oven/bun-<os>-<arch>: the
# runtime the release's standalone plugin and emulator are built on, RELEASING.md): the one this
# machine runs, which compiles, and each release target's, which `bun build --compile
# --compile-executable-path` embeds, so nothing is downloaded at build time.
#
#   bash scripts/ensure-bun.sh                 # prints the folder: <folder>/<package>/bin/bun[.exe]
#
# Prints the folder on its last line of stdout.
set -euo pipefail

BUN_VERSION="${GPUCLOUD_BUN_VERSION:-1.4.4}"
CACHE_ROOT="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"
PREFIX="$CACHE_ROOT/bun-v$BUN_VERSION"
# The release targets' packages (darwin-x64 baseline: it also runs under Rosetta, which has no
# AVX2), and the host's.
PACKAGES=(bun-linux-x64 bun-linux-aarch64 bun-darwin-x64-baseline bun-darwin-aarch64 bun-windows-x64)
log() { printf '[ensure-bun] %s\n' "$*" >&2; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) log "the release is built on linux-x64; this is $(uname -s)-$(uname -m)"; exit 1 ;;
esac

missing=()
for package in "${PACKAGES[@]}"; do
  [ -f "$PREFIX/$package/.complete" ] || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  command -v npm >/dev/null 2>&1 || { log "npm is needed to fetch Bun $BUN_VERSION"; exit 1; }
  start=$(date +%s)
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  for package in "${missing[@]}"; do
    log "fetching @oven/$package@$BUN_VERSION from the npm registry"
    # A platform package for another OS is fetched as a file: npm pack checks no os/cpu.
    tarball="$(cd "$work" && npm pack --silent "@oven/$package@$BUN_VERSION" | tail -n 1)"
    rm -rf "${PREFIX:?}/$package"
    mkdir -p "$PREFIX/$package"
    tar -xzf "$work/$tarball" -C "$PREFIX/$package" --strip-components=1
    touch "$PREFIX/$package/.complete"
  done
  log "fetched ${#missing[@]} package(s) in $(( $(date +%s) - start ))s"
fi
"$PREFIX/bun-linux-x64/bin/bun" --version >/dev/null
echo "$PREFIX"
