#!/usr/bin/env bash
# Writes the Go SDK of pulumi-gpucloud (module github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go,
# package .../sdk/go/gpucloud) into OUT_DIR, from the schema the native plugin prints
# (`pulumi package get-schema`), with scripts/gen-go-sdk (pkg/v3/codegen/go, the generator
# the CLI uses), then `go mod tidy` there. examples/go-workspace expects it in sdk/go:
#
#   bash scripts/with-toolchain.sh bash scripts/gen-go-sdk.sh sdk/go
#
# Needs the Pulumi CLI and Go on PATH (scripts/toolchain-env.sh) and the built plugin:
# node_modules/.bin/pulumi-resource-gpucloud after `npm run build`, or GPUCLOUD_PLUGIN=path.
# OUT_DIR is replaced as a whole.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: gen-go-sdk.sh OUT_DIR}"
plugin="${GPUCLOUD_PLUGIN:-$root/node_modules/.bin/pulumi-resource-gpucloud}"
fail() {
  printf '[gen-go-sdk] failed: %s\n' "$*" >&2
  exit 1
}
[ -x "$plugin" ] || fail "no plugin at $plugin (npm run build installs it; or set GPUCLOUD_PLUGIN)"
generator="$(bash "$root/scripts/ensure-go-tools.sh" --generator | tail -n 1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pulumi package get-schema "$plugin" >"$work/schema.json" || fail "pulumi package get-schema $plugin"
"$generator" "$work/schema.json" "$out" || fail "gen-go-sdk $work/schema.json $out"
# The example's go.sum holds the hashes of every module the SDK needs (sdk/v3's), so tidy
# asks the checksum database for nothing.
cp "$root/examples/go-workspace/go.sum" "$out/go.sum"
(cd "$out" && go mod tidy >"$work/tidy.log" 2>&1) || {
  cat "$work/tidy.log" >&2
  fail "go mod tidy in $out (output above)"
}
