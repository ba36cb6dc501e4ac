#!/usr/bin/env bash
# Installs what this project needs on a fresh machine: Node 22+ (Node 24 from the npm registry
# when the system's is older), the npm dependencies from the lockfile, and the Pulumi CLI with
# its YAML, Go and Python language hosts and the SDK generator (built offline from their Go
# modules when no suitable ones are installed), a wheelhouse of Pulumi's Python SDK, and the
# schema fuzzer the emulator's tests run (schemathesis).
# Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
node_dir="$(bash scripts/ensure-node.sh | tail -n 1)"
export PATH="$node_dir:$PATH"
echo "setup: node $(node --version), npm $(npm --version)"
# The npm dependencies include @pulumi/policy, all the policy pack (policy/) needs beside Node.js:
# the CLI starts the pack's executable itself (docs/maintainers/toolchain.md, "Policy packs").
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
pulumi_dir="$(bash scripts/ensure-pulumi.sh | tail -n 1)"
# The YAML language host, for programs with `runtime: yaml` (examples/yaml-workspace).
bash scripts/ensure-yaml-host.sh "$pulumi_dir" >/dev/null \
  || { echo "setup: building the Pulumi YAML language host failed (see above)" >&2; exit 1; }
# The Go language host, the Go SDK generator and the Go SDK's compiled dependencies (Go programs,
# examples/go-workspace; scripts/ensure-go-tools.sh).
bash scripts/ensure-go-tools.sh "$pulumi_dir" >/dev/null \
  || { echo "setup: building the Go language host and the Go SDK generator failed (see above)" >&2; exit 1; }
# The same compiled with -trimpath, as the documentation's tests build Go programs
# (test/support/docs-commands.ts): there a package's build-cache entry does not name its folder, so
# the Go SDK of each scratch clone is compiled once, not once per clone. Seconds once cached.
go_warm="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}/go-warm"
(cd "$go_warm" && GOFLAGS="${GOFLAGS:-} -mod=readonly -trimpath" go build -o /dev/null .) \
  || { echo "setup: compiling Pulumi's Go SDK with -trimpath failed (see above)" >&2; exit 1; }
# The Python language host and a wheelhouse of Pulumi's Python SDK, pinned (Python programs,
# examples/python-workspace; scripts/ensure-python-tools.sh).
bash scripts/ensure-python-tools.sh "$pulumi_dir" >/dev/null \
  || { echo "setup: building the Python language host or the Python wheelhouse failed (see above)" >&2; exit 1; }
# The schema fuzzer the emulator's answers are checked with against the service's OpenAPI,
# pinned, in a virtual environment of its own (test/emulator/openapi-fuzz.test.ts;
# scripts/ensure-schemathesis.sh).
bash scripts/ensure-schemathesis.sh >/dev/null \
  || { echo "setup: installing the schema fuzzer (schemathesis) failed (see above)" >&2; exit 1; }
echo "setup: $("$pulumi_dir/pulumi" version | sed 's/^/pulumi /') ready after $(( $(date +%s) - start ))s"
# Nothing above changed this shell's PATH: say how to get what was built.
echo "setup: to use them in this shell, run: source scripts/toolchain-env.sh"
echo "setup:   it puts node ($node_dir) and pulumi ($pulumi_dir) with its language hosts on PATH,"
echo "setup:   and, unless already set, a file backend in .pulumi-state/ and a local passphrase"
