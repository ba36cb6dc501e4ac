#!/usr/bin/env bash
# `npm run gen-sdks`: writes the Go, Python and Node.js SDKs of pulumi-gpucloud into OUT_ROOT/go,
# OUT_ROOT/python and OUT_ROOT/nodejs (default: sdk/, where they are committed) from the schema
# the native plugin prints (`pulumi package get-schema`), with scripts/gen-sdks (pkg/v3/codegen/go,
# codegen/python and codegen/nodejs, the generators the CLI uses), then `go mod tidy` in the Go
# module.
#
#   npm run gen-sdks                 # rewrites sdk/go, sdk/python and sdk/nodejs
#   bash scripts/with-toolchain.sh bash scripts/gen-sdks.sh /tmp/sdk   # elsewhere (drift test)
#
# Needs the Pulumi CLI and Go on PATH (scripts/toolchain-env.sh) and the built plugin:
# node_modules/.bin/pulumi-resource-gpucloud after `npm run build`, or GPUCLOUD_PLUGIN=path.
# OUT_ROOT/go, OUT_ROOT/python and OUT_ROOT/nodejs are replaced as a whole.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/sdk}"
plugin="${GPUCLOUD_PLUGIN:-$root/node_modules/.bin/pulumi-resource-gpucloud}"
fail() {
  printf '[gen-sdks] failed: %s\n' "$*" >&2
  exit 1
}
[ -x "$plugin" ] || fail "no plugin at $plugin (npm run build installs it; or set GPUCLOUD_PLUGIN)"
generator="$(bash "$root/scripts/ensure-go-tools.sh" --generator | tail -n 1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pulumi package get-schema "$plugin" >"$work/schema.json" || fail "pulumi package get-schema $plugin"
# Generated aside and moved into place: a failed run leaves the committed SDKs as they were.
"$generator" "$work/schema.json" "$work/sdk" || fail "gen-sdks $work/schema.json $work/sdk"
# Python, Go and Node.js programs declare the stack's sweeper with their first Instance or
# NodeGroup.
node "$root/scripts/gen-sdks/sweeper/add-sweeper.mjs" "$work/sdk/python/pulumi_gpucloud" \
  "$work/sdk/go/gpucloud" "$work/sdk/nodejs" || fail "adding the stack's sweeper to the SDKs"
# The example's go.sum holds the hashes of every module the SDK needs (sdk/v3's), so tidy
# asks the checksum database for nothing.
cp "$root/examples/go-workspace/go.sum" "$work/sdk/go/go.sum"
(cd "$work/sdk/go" && go mod tidy >"$work/tidy.log" 2>&1) || {
  cat "$work/tidy.log" >&2
  fail "go mod tidy in the Go SDK (output above)"
}
mkdir -p "$out"
for language in go python nodejs; do
  rm -rf "${out:?}/$language"
  cp -R "$work/sdk/$language" "$out/$language"
done
