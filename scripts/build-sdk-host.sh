#!/usr/bin/env bash
# Builds a Pulumi language host from a release of github.com/pulumi/pulumi/sdk/v3 that still
# carried it in-tree, through the ordinary Go module proxy (which refuses the hosts' own modules):
# the Go host (ensure-go-tools.sh) and the Python host (ensure-python-tools.sh).
#
# Usage: build-sdk-host.sh NAME PACKAGE SDK_VERSION OUT
#   NAME      the host's name, e.g. pulumi-language-go (for messages and the wrapper module)
#   PACKAGE   its package below sdk/v3, e.g. go/pulumi-language-go
#   OUT       the executable to write; written aside and moved into place, so that no run ever
#             sees half a binary
# Prints the directory of the sdk/v3 module it was built from (for files shipped beside the
# host's source) on stdout. Quiet on success; on failure, the step that failed and the go
# command's output on stderr. The caller holds whatever lock it needs.
set -euo pipefail
name="${1:?usage: build-sdk-host.sh NAME PACKAGE SDK_VERSION OUT}"
package="${2:?}"
version="${3:?}"
out="${4:?}"
CACHE_ROOT="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"
module="github.com/pulumi/pulumi/sdk/v3"
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
fail() {
  printf '[build-sdk-host] failed: %s\n' "$*" >&2
  exit 1
}
log="$(mktemp)"
partial="$(mktemp "$(dirname "$out")/.$name.XXXXXX")"
trap 'rm -f "$log" "$partial"' EXIT
# Runs a step in the wrapper module, its output kept for a failure report only.
step() {
  local what="$1"
  shift
  if ! (cd "$wrap" && "$@") >"$log" 2>&1; then
    cat "$log" >&2
    fail "$what (output above)"
  fi
}

wrap="$CACHE_ROOT/$name-build-v$version"
mkdir -p "$wrap"
printf 'module gpucloud.local/%s-build\n\ngo 1.21\n' "$name" >"$wrap/go.mod"
step "go get $module/$package@v$version" go get "$module/$package@v$version"
step "go build $name ($module v$version)" env GOFLAGS="${GOFLAGS:-} -buildvcs=false" \
  go build -trimpath -ldflags "-s -w -X $module/go/common/version.Version=v$version" \
  -o "$partial" "$module/$package"
mv "$partial" "$out"
(cd "$wrap" && go list -m -f '{{.Dir}}' "$module")
