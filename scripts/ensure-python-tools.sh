#!/usr/bin/env bash
# Provides what Python programs of this package need, from the Go module proxy and the Python
# package index through their ordinary clients:
#
# 1. `pulumi-language-python`, the Python language host (`runtime: python`), and beside it the
#    `pulumi-language-python-exec` script it runs programs with (scripts/python/, which runs the
#    release's own executor and ends a program quietly on an interrupt). The module proxy refuses the
#    host's own module, so it is built from the last sdk/v3 release that still carried it in-tree
#    (v3.79.0), as ensure-go-tools.sh does for the Go host. It speaks the same LanguageRuntime
#    protocol; the programs it runs use the `pulumi` package of their own virtual environment
#    (3.259.0, pinned). That release reads the `virtualenv` option of Pulumi.yaml only as a
#    flag, which the CLI of today no longer passes: the CLI starts our launcher
#    (scripts/python/pulumi-language-python), which finds the option and the activated virtual
#    environment and passes the flag, so that `virtualenv: venv` works activated or not and
#    `pulumi install` fills that environment.
#    It goes beside a CLI we built (where the CLI looks first), else to a cache directory that
#    scripts/toolchain-env.sh puts on PATH.
# 2. A wheelhouse of scripts/python/requirements.lock (Pulumi's Python SDK and every package it
#    needs, pinned, and setuptools to build sdk/python), so that a program's virtual environment
#    installs in seconds without asking the index (`pip install --no-index --find-links`).
#
# Usage: ensure-python-tools.sh PULUMI_DIR   prints the directory holding pulumi-language-python
#        ensure-python-tools.sh --wheelhouse  prints the wheelhouse's directory (filled if stale)
# Quiet on success (one line on stderr per thing it builds); on failure, the step that failed and
# the command's output on stderr. Idempotent: each part is stamped and reused.
set -euo pipefail

HOST_SDK_VERSION="${PULUMI_PYTHON_HOST_SDK_VERSION:-3.79.0}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"
arg="${1:?usage: ensure-python-tools.sh PULUMI_DIR | --wheelhouse}"
fail() {
  printf '[ensure-python-tools] failed: %s\n' "$*" >&2
  exit 1
}
say() { printf '[ensure-python-tools] %s\n' "$*" >&2; }
hash_of() { cat "$@" | sha256sum | cut -c1-16; }
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

command -v python3 >/dev/null 2>&1 || fail "Python programs need Python 3.10+ (python3 is not on PATH)"
python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || fail "Python programs need Python 3.10+ (python3 is $(python3 --version 2>&1))"

# --- 2. the wheelhouse --------------------------------------------------------------------------
lock="$root/scripts/python/requirements.lock"
wheel_dir="$CACHE_ROOT/python-wheels"
wheel_want="$(hash_of "$lock")-$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
ensure_wheelhouse() {
  [ "$(cat "$wheel_dir/.stamp" 2>/dev/null)" = "$wheel_want" ] && return 0
  exec 8>"$CACHE_ROOT/.python-wheels.lock"
  flock 8
  [ "$(cat "$wheel_dir/.stamp" 2>/dev/null)" = "$wheel_want" ] && return 0
  local start partial
  start=$(date +%s)
  partial="$(mktemp -d "$CACHE_ROOT/.python-wheels.XXXXXX")"
  step "pip download -r scripts/python/requirements.lock" \
    python3 -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
    -d "$partial" -r "$lock"
  rm -rf "$wheel_dir"
  mv "$partial" "$wheel_dir"
  echo "$wheel_want" >"$wheel_dir/.stamp"
  say "downloaded the Python wheels in $(($(date +%s) - start))s ($wheel_dir)"
}

if [ "$arg" = "--wheelhouse" ]; then
  ensure_wheelhouse
  echo "$wheel_dir"
  exit 0
fi
pulumi_dir="$arg"

# --- 1. the Python language host ----------------------------------------------------------------
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    fail "building the Python language host needs Go 1.25+ (go is not on PATH)"
  fi
fi
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
case "$pulumi_dir" in
  "$CACHE_ROOT"/*) host_dir="$pulumi_dir" ;;
  *) host_dir="$CACHE_ROOT/python-host-v$HOST_SDK_VERSION/bin" ;;
esac
# What the CLI starts is the launcher (scripts/python/pulumi-language-python: it hands the host
# the program's virtual environment), beside the host it runs (pulumi-language-python-host).
host="$host_dir/pulumi-language-python"
real_host="$host_dir/pulumi-language-python-host"
host_stamp="$host_dir/.pulumi-language-python.version"
exec_wrapper="$root/scripts/python/pulumi-language-python-exec"
launcher="$root/scripts/python/pulumi-language-python"
# The stamp names the built release; the launcher and the executor are compared as files, so a
# change of either is a copy, not a build.
host_want="v$HOST_SDK_VERSION"
host_built() {
  [ -x "$real_host" ] && [ -x "$host_dir/pulumi-language-python-exec.upstream" ] \
    && cmp -s "$exec_wrapper" "$host_dir/pulumi-language-python-exec" \
    && cmp -s "$launcher" "$host" && [ "$(cat "$host_stamp" 2>/dev/null)" = "$host_want" ]
}
# Put in place with a rename: a CLI starting the host meanwhile sees the old file or the new.
put() {
  install -m 0755 "$1" "$2.partial.$$"
  mv -f "$2.partial.$$" "$2"
}
if ! host_built && { [ "$host_dir" = "$pulumi_dir" ] || {
  [ ! -x "$pulumi_dir/pulumi-language-python" ] && ! command -v pulumi-language-python >/dev/null 2>&1
}; }; then
  mkdir -p "$host_dir"
  exec 9>"$CACHE_ROOT/.python-host-build.lock"
  flock 9
  if ! host_built; then
    if [ ! -x "$real_host" ] && [ -x "$host" ] && ! cmp -s "$launcher" "$host" \
      && [ "$(cat "$host_stamp" 2>/dev/null)" = "$host_want" ]; then
      # Built by a setup from before the launcher: the same host, under its new name.
      put "$host" "$real_host"
    elif [ ! -x "$real_host" ] || [ "$(cat "$host_stamp" 2>/dev/null)" != "$host_want" ]; then
      start=$(date +%s)
      say "building pulumi-language-python (sdk/v3 v$HOST_SDK_VERSION) from its Go module"
      module_dir="$(bash "$root/scripts/build-sdk-host.sh" pulumi-language-python \
        python/cmd/pulumi-language-python "$HOST_SDK_VERSION" "$real_host")" \
        || fail "building pulumi-language-python (output above)"
      # The release's executor ships in the same module, beside the host's source; ours runs it.
      install -m 0755 "$module_dir/python/cmd/pulumi-language-python-exec" \
        "$host_dir/pulumi-language-python-exec.upstream"
      say "built pulumi-language-python v$HOST_SDK_VERSION in $(($(date +%s) - start))s ($real_host)"
    fi
    put "$exec_wrapper" "$host_dir/pulumi-language-python-exec"
    put "$launcher" "$host"
    echo "$host_want" >"$host_stamp"
  fi
  flock -u 9
fi
if host_built; then
  found="$host_dir"
elif [ -x "$pulumi_dir/pulumi-language-python" ]; then
  found="$pulumi_dir"
else
  found="$(dirname "$(command -v pulumi-language-python)")"
fi

ensure_wheelhouse
echo "$found"
