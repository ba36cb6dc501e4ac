#!/usr/bin/env bash
# Provides the schema fuzzer the emulator's answers are checked with against the service's
# OpenAPI (test/emulator/openapi-fuzz.test.ts): schemathesis and everything it needs, pinned
# (scripts/schemathesis/requirements.lock), in a virtual environment of its own in the project's
# cache, through pip, the Python package index's ordinary client. Nothing is installed globally.
#
#   bash scripts/ensure-schemathesis.sh   # prints the schemathesis executable on its last line
#
# Reused while the lock and the Python version are unchanged; quiet on success (one line on
# stderr when it installs); on failure, pip's output and the step that failed on stderr.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"
lock="$root/scripts/schemathesis/requirements.lock"
fail() {
  printf '[ensure-schemathesis] failed: %s\n' "$*" >&2
  exit 1
}
command -v python3 >/dev/null 2>&1 || fail "the schema fuzzer needs Python 3.10+ (python3 is not on PATH)"
python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || fail "the schema fuzzer needs Python 3.10+ (python3 is $(python3 --version 2>&1))"
want="$(cat "$lock" <(python3 --version) | sha256sum | cut -c1-16)"
venv="$CACHE_ROOT/schemathesis-$want"
if [ ! -f "$venv/.complete" ]; then
  mkdir -p "$CACHE_ROOT"
  # One installer at a time: setup and a test run may start together.
  exec 9>"$CACHE_ROOT/.schemathesis.lock"
  flock 9
  if [ ! -f "$venv/.complete" ]; then
    start=$(date +%s)
    log="$(mktemp)"
    trap 'rm -f "$log"' EXIT
    rm -rf "$venv"
    if ! { python3 -m venv "$venv" \
      && "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$lock"; } >"$log" 2>&1; then
      cat "$log" >&2
      rm -rf "$venv"
      fail "installing scripts/schemathesis/requirements.lock (output above)"
    fi
    touch "$venv/.complete"
    printf '[ensure-schemathesis] installed schemathesis in %ss (%s)\n' "$(($(date +%s) - start))" "$venv" >&2
  fi
  flock -u 9
fi
echo "$venv/bin/schemathesis"
