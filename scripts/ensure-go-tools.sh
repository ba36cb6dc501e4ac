#!/usr/bin/env bash
# Provides what Go programs of this package need, built from Go modules through the ordinary Go
# module proxy with Go's default module and build caches (those the CLI's build fills):
#
# 1. `pulumi-language-go`, the Go language host (`runtime: go`). The proxy refuses its own module
#    (github.com/pulumi/pulumi/sdk/go/pulumi-language-go/v3, at every version and commit), so
#    it is built from the last sdk/v3 release that still carried it in-tree (v3.62.0), as
#    ensure-pulumi.sh does for the Node.js host. It speaks the same LanguageRuntime protocol;
#    the programs it builds and runs use whatever sdk/v3 their go.mod asks for (v3.259.0 here).
#    It goes beside a CLI we built (where the CLI looks first), else to a cache directory that
#    scripts/toolchain-env.sh puts on PATH.
# 2. `gen-sdks` (scripts/gen-sdks/), which writes the Go, Python and Node.js SDKs from the plugin's
#    schema with pkg/v3/codegen/go, codegen/python and codegen/nodejs: `pulumi package gen-sdk` asks the language
#    hosts to do it, and the hosts this project builds predate that (GeneratePackage).
# 3. The modules and compiled packages of examples/go-workspace's go.mod (sdk/v3 and its
#    dependencies), so that building a Go program of this package takes seconds, not minutes.
#
# Usage: ensure-go-tools.sh PULUMI_DIR   prints the directory holding pulumi-language-go
#        ensure-go-tools.sh --generator  prints the path of gen-sdks (built if stale)
# Quiet on success (one line on stderr per thing it builds); on failure, the step that failed
# and the go command's output on stderr. Idempotent: each part is stamped and reused.
set -euo pipefail

HOST_SDK_VERSION="${PULUMI_GO_HOST_SDK_VERSION:-3.62.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"
arg="${1:?usage: ensure-go-tools.sh PULUMI_DIR | --generator}"
fail() {
  printf '[ensure-go-tools] failed: %s\n' "$*" >&2
  exit 1
}
say() { printf '[ensure-go-tools] %s\n' "$*" >&2; }
hash_of() { cat "$@" | sha256sum | cut -c1-16; }

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    fail "building the Go tools needs Go 1.25+ (go is not on PATH)"
  fi
fi
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
mkdir -p "$CACHE_ROOT"
build_log="$(mktemp)"
trap 'rm -f "$build_log"' EXIT
# Runs a build step, its output kept for a failure report only.
step() {
  local what="$1"
  shift
  if ! "$@" >"$build_log" 2>&1; then
    cat "$build_log" >&2
    fail "$what (output above)"
  fi
}

# --- 2. the SDK generator ---------------------------------------------------------------------
gen_src="$root/scripts/gen-sdks"
gen_want="$(hash_of "$gen_src/go.mod" "$gen_src/go.sum" "$gen_src"/*.go)"
# One build per source: checkouts of different versions sharing the cache keep their own.
gen_dir="$CACHE_ROOT/gen-sdks/$gen_want"
gen_bin="$gen_dir/gen-sdks"
ensure_generator() {
  [ "$(cat "$gen_dir/.stamp" 2>/dev/null)" = "$gen_want" ] && [ -x "$gen_bin" ] && return 0
  mkdir -p "$gen_dir"
  exec 8>"$CACHE_ROOT/.gen-sdks-build.lock"
  flock 8
  [ "$(cat "$gen_dir/.stamp" 2>/dev/null)" = "$gen_want" ] && [ -x "$gen_bin" ] && return 0
  local start partial
  start=$(date +%s)
  partial="$(mktemp "$gen_dir/.gen-sdks.XXXXXX")"
  # -trimpath, as the CLI's build: its compiled pkg/v3 packages are reused.
  step "go build scripts/gen-sdks" \
    bash -c 'cd "$1" && GOFLAGS="${GOFLAGS:-} -mod=readonly -buildvcs=false" go build -trimpath -o "$2" .' \
    _ "$gen_src" "$partial"
  mv "$partial" "$gen_bin"
  echo "$gen_want" >"$gen_dir/.stamp"
  say "built gen-sdks in $(($(date +%s) - start))s"
}

if [ "$arg" = "--generator" ]; then
  ensure_generator
  echo "$gen_bin"
  exit 0
fi
pulumi_dir="$arg"

# --- 1. the Go language host ------------------------------------------------------------------
case "$pulumi_dir" in
  "$CACHE_ROOT"/*) host_dir="$pulumi_dir" ;;
  *) host_dir="$CACHE_ROOT/go-host-v$HOST_SDK_VERSION/bin" ;;
esac
host="$host_dir/pulumi-language-go"
host_stamp="$host_dir/.pulumi-language-go.version"
host_built() { [ -x "$host" ] && [ "$(cat "$host_stamp" 2>/dev/null)" = "v$HOST_SDK_VERSION" ]; }
if ! host_built && { [ "$host_dir" = "$pulumi_dir" ] || [ ! -x "$pulumi_dir/pulumi-language-go" ]; } \
  && ! command -v pulumi-language-go >/dev/null 2>&1; then
  mkdir -p "$host_dir"
  exec 9>"$CACHE_ROOT/.go-host-build.lock"
  flock 9
  if ! host_built; then
    start=$(date +%s)
    say "building pulumi-language-go (sdk/v3 v$HOST_SDK_VERSION) from its Go module"
    bash "$root/scripts/build-sdk-host.sh" pulumi-language-go go/pulumi-language-go \
      "$HOST_SDK_VERSION" "$host" >/dev/null || fail "building pulumi-language-go (output above)"
    echo "v$HOST_SDK_VERSION" >"$host_stamp"
    say "built pulumi-language-go v$HOST_SDK_VERSION in $(($(date +%s) - start))s ($host)"
  fi
  flock -u 9
fi
if host_built; then
  found="$host_dir"
elif [ -x "$pulumi_dir/pulumi-language-go" ]; then
  found="$pulumi_dir"
else
  found="$(dirname "$(command -v pulumi-language-go)")"
fi

# --- 2. ---------------------------------------------------------------------------------------
ensure_generator

# --- 3. modules and compiled packages for Go programs -----------------------------------------
example="$root/examples/go-workspace"
warm_dir="$CACHE_ROOT/go-warm"
# Keyed by the Go release too (its VERSION file: cheaper than running `go env`).
go_release="$(head -n 1 "$(dirname "$(readlink -f "$(command -v go)")")/../VERSION" 2>/dev/null || echo unknown)"
# "untidy": the stamp of caches warmed before the untidy module below.
warm_want="$(hash_of "$example/go.mod" "$example/go.sum")-$go_release-untidy"
if [ "$(cat "$warm_dir/.stamp" 2>/dev/null)" != "$warm_want" ]; then
  exec 7>"$CACHE_ROOT/.go-warm.lock"
  flock 7
  if [ "$(cat "$warm_dir/.stamp" 2>/dev/null)" != "$warm_want" ]; then
    start=$(date +%s)
    say "fetching and compiling the Go SDK's dependencies (a few minutes the first time)"
    rm -rf "$warm_dir" && mkdir -p "$warm_dir"
    # examples/go-workspace's requirements without the generated SDK (its go.mod needs only
    # sdk/v3 and blang/semver, both in these), and the same go.sum.
    grep -v 'pulumi-gpucloud/sdk/go' "$example/go.mod" \
      | sed 's#^module .*#module gpucloud.local/go-warm#' >"$warm_dir/go.mod"
    cp "$example/go.sum" "$warm_dir/go.sum"
    cat >"$warm_dir/main.go" <<'GO'
package main

import (
	_ "github.com/blang/semver"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	_ "github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() { pulumi.Run(func(*pulumi.Context) error { return nil }) }
GO
    # Built as the language host builds programs (`go build -o`, no -trimpath), so that its
    # compiled packages are the ones a program's build finds in the build cache.
    step "go build of sdk/v3 for Go programs ($warm_dir)" \
      bash -c 'cd "$1" && GOFLAGS="${GOFLAGS:-} -mod=readonly" go build -o /dev/null .' _ "$warm_dir"
    # A module that names only its direct requirements, as test/unit/go-typing.test.ts writes one
    # and builds with -mod=mod and no proxy: resolving it reads the go.mod of every module of the
    # unpruned graph (an old dependency's own requirements, golang.org/x/sys v0.6.0 for
    # go-isatty), which the tidy build above never needs. Only those go.mod files are fetched.
    mkdir -p "$warm_dir/untidy"
    grep -E '^\s+github.com/(pulumi/pulumi/sdk/v3|blang/semver) ' "$example/go.mod" \
      | sed 's# // indirect##' \
      | { printf 'module gpucloud.local/go-warm-untidy\n\ngo %s\n\nrequire (\n' \
            "$(sed -n 's/^go //p' "$example/go.mod")"; cat; printf ')\n'; } >"$warm_dir/untidy/go.mod"
    cp "$example/go.sum" "$warm_dir/untidy/go.sum"
    printf 'package main\n\nimport (\n\t_ "github.com/blang/semver"\n\t_ "github.com/pulumi/pulumi/sdk/v3/go/pulumi"\n)\n\nfunc main() {}\n' \
      >"$warm_dir/untidy/main.go"
    step "go list of an untidy module's graph ($warm_dir/untidy)" \
      bash -c 'cd "$1" && GOFLAGS="${GOFLAGS:-} -mod=mod" go list -deps . >/dev/null' _ "$warm_dir/untidy"
    echo "$warm_want" >"$warm_dir/.stamp"
    say "fetched and compiled the Go SDK's dependencies in $(($(date +%s) - start))s"
  fi
  flock -u 7
fi
echo "$found"
