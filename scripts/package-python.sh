#!/usr/bin/env bash
# `npm run package-python`: the Python SDK's platform wheel, in dist/packages/: pulumi_gpucloud
# with the standalone plugin and emulator (scripts/python/platform-wheel.py), so that `pip
# install` of it is all a Python program needs. Makes the standalone executables first
# (scripts/package-plugin.mjs, reused when unchanged). Prints the wheel's path.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
version="$(node -p 'require("./package.json").version')"
node scripts/package-plugin.mjs >/dev/null
# Offline: the wheelhouse holds setuptools, which builds sdk/python.
wheelhouse="$(bash scripts/ensure-python-tools.sh --wheelhouse | tail -n 1)"
PIP_NO_INDEX=1 PIP_FIND_LINKS="$wheelhouse" python3 scripts/python/platform-wheel.py sdk/python \
  "dist/packages/pulumi-resource-gpucloud-v$version-linux-amd64.tar.gz" \
  "dist/packages/gpucloud-emulator-v$version-linux-amd64.tar.gz" dist/packages
