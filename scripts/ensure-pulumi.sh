#!/usr/bin/env bash
# Provides the Pulumi CLI (and the Node.js language host) of the version this project develops
# against, without the internet: the official installer and the `pulumi` npm package both
# download binaries at run time, which this kind of machine cannot do, so we build the CLI from
# its Go modules through the ordinary Go module proxy.
#
# Prints the directory holding `pulumi` on its last line of stdout (progress goes to stderr).
# Idempotent: a suitable `pulumi` on PATH or in the cache is used as it is.
set -euo pipefail

PULUMI_VERSION="${PULUMI_VERSION:-3.259.0}"
# The Node.js language host module has no tags of its own: it is asked for at the commit the
# pkg/v3.X.Y tag points at. Where the module proxy refuses that module (as the one this
# project's machines reach does, for every commit), the host is built from the last sdk/v3
# release that still carried it in-tree; it speaks the same LanguageRuntime protocol and runs
# programs through the project's own @pulumi/pulumi `cmd/run`.
LEGACY_HOST_SDK_VERSION="3.68.0"
CACHE_ROOT="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"
BIN_DIR="$CACHE_ROOT/pulumi-v$PULUMI_VERSION/bin"
log() { printf '[ensure-pulumi] %s\n' "$*" >&2; }

version_of() { "$1" version 2>/dev/null | tr -d 'v\r\n' || true; }

# An installed CLI of at least this minor version is fine, as on a user's machine.
suitable() {
  local have="$1"
  [ -n "$have" ] || return 1
  local need_minor have_minor
  need_minor=$(echo "$PULUMI_VERSION" | cut -d. -f2)
  have_minor=$(echo "$have" | cut -d. -f2)
  [[ "$have" == 3.* && "$have_minor" =~ ^[0-9]+$ && "$have_minor" -ge "$need_minor" ]]
}

if [ -z "${GPUCLOUD_FORCE_PULUMI_BUILD:-}" ] && command -v pulumi >/dev/null 2>&1 \
  && command -v pulumi-language-nodejs >/dev/null 2>&1; then
  have=$(version_of pulumi)
  if suitable "$have"; then
    log "using pulumi v$have from PATH ($(command -v pulumi))"
    dirname "$(command -v pulumi)"
    exit 0
  fi
fi

if [ -x "$BIN_DIR/pulumi" ] && [ -x "$BIN_DIR/pulumi-language-nodejs" ] \
  && [ "$(version_of "$BIN_DIR/pulumi")" = "$PULUMI_VERSION" ]; then
  log "using cached pulumi v$PULUMI_VERSION ($BIN_DIR)"
  echo "$BIN_DIR"
  exit 0
fi

command -v go >/dev/null 2>&1 || { log "Go is needed to build the Pulumi CLI offline: install Go 1.24+"; exit 1; }

start=$(date +%s)
WRAP="$CACHE_ROOT/pulumi-build-v$PULUMI_VERSION"
mkdir -p "$WRAP" "$BIN_DIR"
cd "$WRAP"
export GOFLAGS="${GOFLAGS:-} -mod=mod"
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"

log "resolving pkg/v$PULUMI_VERSION's commit for the language host"
commit=$(go list -m -json "github.com/pulumi/pulumi/pkg/v3@v$PULUMI_VERSION" \
  | sed -n 's/.*"Hash": "\([0-9a-f]*\)".*/\1/p' | head -n 1)
[ -n "$commit" ] || { log "could not resolve the commit of pkg/v$PULUMI_VERSION"; exit 1; }

pkg_mod=$(go mod download -json "github.com/pulumi/pulumi/pkg/v3@v$PULUMI_VERSION" \
  | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
go_line=$(grep -m1 '^go ' "$pkg_mod")

log "writing the wrapper module in $WRAP"
{
  echo "module gpucloud.local/pulumi-cli-build"
  echo
  echo "$go_line"
  echo
  # `replace` directives of dependencies are ignored: copy the non-local ones.
  grep '^replace ' "$pkg_mod" | grep -v '=> \.' || true
} > go.mod
cat > tools.go <<'GO'
//go:build tools

package tools
GO

log "fetching modules (pkg, sdk v$PULUMI_VERSION)"
go get "github.com/pulumi/pulumi/pkg/v3@v$PULUMI_VERSION" \
  "github.com/pulumi/pulumi/sdk/v3@v$PULUMI_VERSION" >&2

ldflags="-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$PULUMI_VERSION"
if [ "$(version_of "$BIN_DIR/pulumi")" != "$PULUMI_VERSION" ]; then
  log "building pulumi (this takes a while on 2 cores)"
  # Built aside and moved into place, so that a concurrent run never sees half a binary.
  partial="$(mktemp "$BIN_DIR/.pulumi.XXXXXX")"
  go build -trimpath -ldflags "$ldflags" -o "$partial" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2
  mv "$partial" "$BIN_DIR/pulumi"
fi

host_module="github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3"
log "building pulumi-language-nodejs ($host_module at $commit)"
if go get "$host_module@$commit" >&2 \
  && go get "github.com/pulumi/pulumi/sdk/v3@v$PULUMI_VERSION" "github.com/pulumi/pulumi/pkg/v3@v$PULUMI_VERSION" >&2 \
  && go build -trimpath -ldflags "$ldflags" -o "$BIN_DIR/pulumi-language-nodejs" "$host_module" >&2; then
  log "built the language host of v$PULUMI_VERSION"
else
  log "the module proxy does not serve $host_module; building the language host of sdk/v3 v$LEGACY_HOST_SDK_VERSION instead"
  legacy="$CACHE_ROOT/language-host-build-v$LEGACY_HOST_SDK_VERSION"
  mkdir -p "$legacy"
  printf 'module gpucloud.local/language-host-build\n\ngo 1.21\n' > "$legacy/go.mod"
  (cd "$legacy" \
    && go get "github.com/pulumi/pulumi/sdk/v3@v$LEGACY_HOST_SDK_VERSION" >&2 \
    && go build -trimpath \
      -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$LEGACY_HOST_SDK_VERSION" \
      -o "$BIN_DIR/pulumi-language-nodejs" \
      "github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs" >&2)
fi

log "built pulumi $("$BIN_DIR/pulumi" version) in $(( $(date +%s) - start ))s"
echo "$BIN_DIR"
