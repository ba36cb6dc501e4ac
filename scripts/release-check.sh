#!/usr/bin/env bash
# `npm run release:check -- DIR`: the whole release rehearsal on a folder `npm run release`
# wrote (RELEASING.md). The plugin tests this repository runs on the plugin (the contract tests
# that drive it over gRPC) run again on the release's linux-amd64 executable, proving Bun's
# runtime behaves as Node.js does; then test/release: the plugin found by itself in Python, Go
# and YAML through a mirror of DIR, the wheel's own plugin with no download (wheel-route), linux-arm64 under qemu, the macOS and Windows executables
# by format and signature, the checksums.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] || { echo "usage: npm run release:check -- DIR" >&2; exit 2; }
dir="$(cd "$1" && pwd)"
shift
cd "$root"
source scripts/toolchain-env.sh
version="$(node -p 'require("./package.json").version')"
bash scripts/ensure-platform-runners.sh
tsc -p tsconfig.build.json
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -xzf "$dir/pulumi-resource-gpucloud-v$version-linux-amd64.tar.gz" -C "$work"
# The files before --selectProjects, which would take them for project names (and run them all).
GPUCLOUD_PLUGIN_EXECUTABLE="$work/pulumi-resource-gpucloud" jest \
  test/contract/native-provider.test.ts test/contract/native-cancel.test.ts \
  test/contract/import.test.ts test/contract/cluster-import.test.ts --selectProjects unit+contract
# A module cache holding another build of the SDK's version (an earlier rehearsal's) would serve
# it instead of DIR's: the Go tests fetch by version. Only this project's module is removed.
module=github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go
modcache="$(go env GOMODCACHE)"
cached="$modcache/cache/download/$module/@v/v$version.zip"
if [ -f "$cached" ] && ! cmp -s "$cached" "$dir/goproxy/$module/@v/v$version.zip"; then
  echo "[release-check] the module cache holds another $module v$version: removing it" >&2
  for ours in "$modcache/github.com/pulumi-gpucloud" "$modcache/cache/download/github.com/pulumi-gpucloud"; do
    [ ! -e "$ours" ] || { chmod -R u+w "$ours" && rm -rf "$ours"; }
  done
fi
bash scripts/ensure-registries.sh >/dev/null
# Test files (if any) before --selectProjects, as above.
GPUCLOUD_RELEASE_DIR="$dir" jest "$@" --selectProjects release
