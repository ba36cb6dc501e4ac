#!/usr/bin/env bash
# Installs, from Debian's packages, what runs the release's linux-arm64 executables on this
# linux-amd64 machine (test/release/platforms.test.ts): qemu-user-static (user-mode emulation)
# and libc6-arm64-cross (the arm64 C library it loads them with, in /usr/aarch64-linux-gnu).
# Wine is left out: Debian 12's wine 8 cannot start Bun's Windows runtime (no
# bcryptprimitives.dll), so the Windows executables are checked by their format instead.
# Needs root (CI and these machines are); does nothing when both are there.
set -euo pipefail
log() { printf '[ensure-platform-runners] %s\n' "$*" >&2; }
missing=()
command -v qemu-aarch64-static >/dev/null 2>&1 || missing+=(qemu-user-static)
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || missing+=(libc6-arm64-cross)
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { log "installing ${missing[*]} needs root"; exit 1; }
  start=$(date +%s)
  log "installing ${missing[*]} with apt-get"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  log "installed in $(( $(date +%s) - start ))s"
fi
