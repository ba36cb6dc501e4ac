#!/usr/bin/env bash
# Provides the Pulumi YAML language host (`pulumi-language-yaml`), which YAML programs
# (`runtime: yaml`) need: the CLI treats `yaml` as a bundled language and looks for its host
# beside the `pulumi` it runs, then on PATH. The CLI we build from Go modules has none beside it,
# so this builds the host from its Go module (github.com/pulumi/pulumi-yaml) through the ordinary
# Go module proxy, with the Go caches the CLI's build uses, and puts it beside that `pulumi`.
#
# Usage: ensure-yaml-host.sh PULUMI_DIR (the directory holding the `pulumi` in use).
# Prints the directory holding `pulumi-language-yaml` on its last line of stdout, and nothing
# else on success; on failure, the step that failed and the build's output on stderr.
# Idempotent: a host beside `pulumi`, on PATH, or already built is used as it is.
set -euo pipefail

YAML_VERSION="${PULUMI_YAML_VERSION:-1.25.0}"
YAML_MODULE="github.com/pulumi/pulumi-yaml"
CACHE_ROOT="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"
pulumi_dir="${1:?usage: ensure-yaml-host.sh PULUMI_DIR}"
fail() {
  printf '[ensure-yaml-host] failed: %s\n' "$*" >&2
  exit 1
}

# A CLI we built lives in the cache: its host goes beside it, where the CLI looks first. Beside a
# CLI installed some other way (which normally ships its own host) we write nothing: the host
# goes to a directory of the cache that scripts/toolchain-env.sh puts on PATH.
case "$pulumi_dir" in
  "$CACHE_ROOT"/*) target_dir="$pulumi_dir" ;;
  *) target_dir="$CACHE_ROOT/pulumi-yaml-v$YAML_VERSION/bin" ;;
esac
target="$target_dir/pulumi-language-yaml"
stamp="$target_dir/.pulumi-language-yaml.version"

built_here() { [ -x "$target" ] && [ "$(cat "$stamp" 2>/dev/null)" = "v$YAML_VERSION" ]; }

if [ -z "${GPUCLOUD_FORCE_YAML_HOST_BUILD:-}" ]; then
  if built_here; then
    echo "$target_dir"
    exit 0
  fi
  if [ "$target_dir" != "$pulumi_dir" ] && [ -x "$pulumi_dir/pulumi-language-yaml" ]; then
    echo "$pulumi_dir"
    exit 0
  fi
  if command -v pulumi-language-yaml >/dev/null 2>&1; then
    dirname "$(command -v pulumi-language-yaml)"
    exit 0
  fi
fi

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    fail "building the YAML language host needs Go 1.24+ (go is not on PATH)"
  fi
fi

mkdir -p "$target_dir"
# One build at a time: concurrent commands of the project wait for the first one's result.
exec 9>"$CACHE_ROOT/.pulumi-yaml-build.lock"
flock 9
if built_here && [ -z "${GPUCLOUD_FORCE_YAML_HOST_BUILD:-}" ]; then
  echo "$target_dir"
  exit 0
fi

start=$(date +%s)
printf '[ensure-yaml-host] building pulumi-language-yaml v%s from its Go module (a few minutes the first time)\n' \
  "$YAML_VERSION" >&2
build_log="$(mktemp)"
staging="$(mktemp -d "$target_dir/.yaml-host.XXXXXX")"
trap 'rm -rf "$build_log" "$staging"' EXIT
# `go install module/cmd@version` builds with the module's own go.mod (pulumi-yaml has no
# `replace` directives), in the default Go module and build caches the CLI's build fills too.
# GOBIN points at a staging directory, moved into place, so no run ever sees half a binary.
if ! GOBIN="$staging" GOTOOLCHAIN="${GOTOOLCHAIN:-auto}" GOFLAGS="${GOFLAGS:-} -buildvcs=false" \
  go install -trimpath \
  -ldflags "-s -w -X $YAML_MODULE/pkg/version.Version=v$YAML_VERSION" \
  "$YAML_MODULE/cmd/pulumi-language-yaml@v$YAML_VERSION" >"$build_log" 2>&1; then
  cat "$build_log" >&2
  fail "go install $YAML_MODULE/cmd/pulumi-language-yaml@v$YAML_VERSION (output above)"
fi
mv "$staging/pulumi-language-yaml" "$target"
echo "v$YAML_VERSION" >"$stamp"
printf '[ensure-yaml-host] built pulumi-language-yaml v%s in %ss (%s)\n' \
  "$YAML_VERSION" "$(($(date +%s) - start))" "$target" >&2
echo "$target_dir"
