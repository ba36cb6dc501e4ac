# Sourced by the project's commands: puts Node 22+ and the Pulumi CLI on PATH and sets the
# offline Pulumi settings every run of this project uses. Safe to source repeatedly.
_gpucloud_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_gpucloud_cache="${GPUCLOUD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-gpucloud}"

_gpucloud_node_dir="$(bash "$_gpucloud_root/scripts/ensure-node.sh" | tail -n 1)" || return 1
export PATH="$_gpucloud_node_dir:$_gpucloud_root/node_modules/.bin:$PATH"

if [ -z "${GPUCLOUD_SKIP_PULUMI:-}" ]; then
  _gpucloud_pulumi_dir="$(bash "$_gpucloud_root/scripts/ensure-pulumi.sh" | tail -n 1)" || return 1
  export PATH="$_gpucloud_pulumi_dir:$PATH"
  # The YAML language host: beside a CLI we built (where the CLI looks first), else in a cache
  # directory put on PATH. Built on first use when setup has not built it yet.
  _gpucloud_yaml_dir="$(bash "$_gpucloud_root/scripts/ensure-yaml-host.sh" "$_gpucloud_pulumi_dir" | tail -n 1)" || return 1
  [ "$_gpucloud_yaml_dir" = "$_gpucloud_pulumi_dir" ] || export PATH="$PATH:$_gpucloud_yaml_dir"
  # The Go language host (same rule), the Go SDK generator and the Go SDK's compiled dependencies
  # (scripts/ensure-go-tools.sh); built on first use when setup has not built them yet.
  _gpucloud_go_dir="$(bash "$_gpucloud_root/scripts/ensure-go-tools.sh" "$_gpucloud_pulumi_dir" | tail -n 1)" || return 1
  [ "$_gpucloud_go_dir" = "$_gpucloud_pulumi_dir" ] || export PATH="$PATH:$_gpucloud_go_dir"
  # The Python language host (same rule) and the wheelhouse of Pulumi's Python SDK
  # (scripts/ensure-python-tools.sh); built on first use when setup has not built them yet.
  _gpucloud_python_dir="$(bash "$_gpucloud_root/scripts/ensure-python-tools.sh" "$_gpucloud_pulumi_dir" | tail -n 1)" || return 1
  [ "$_gpucloud_python_dir" = "$_gpucloud_pulumi_dir" ] || export PATH="$PATH:$_gpucloud_python_dir"
  # The dynamic-provider plugin is a script at the root of the @pulumi/pulumi package; it finds
  # @pulumi/pulumi from the program's directory, so one copy beside a CLI we built serves every
  # project (the CLI warns about plugins it finds on PATH instead).
  _gpucloud_plugin="$_gpucloud_root/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"
  case "$_gpucloud_pulumi_dir" in
    "$_gpucloud_cache"/*)
      if [ -f "$_gpucloud_plugin" ] && [ ! -x "$_gpucloud_pulumi_dir/pulumi-resource-pulumi-nodejs" ]; then
        cp "$_gpucloud_plugin" "$_gpucloud_pulumi_dir/" && chmod +x "$_gpucloud_pulumi_dir/pulumi-resource-pulumi-nodejs"
      fi ;;
    *) [ -f "$_gpucloud_plugin" ] && export PATH="$PATH:$(dirname "$_gpucloud_plugin")" ;;
  esac
fi

export PULUMI_HOME="${PULUMI_HOME:-$_gpucloud_cache/pulumi-home}"
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE-gpucloud-local-passphrase}"
export PULUMI_BACKEND_URL="${PULUMI_BACKEND_URL:-file://$_gpucloud_root/.pulumi-state}"
export PULUMI_DIY_BACKEND_NO_LEGACY_WARNING=true
mkdir -p "$PULUMI_HOME"
case "$PULUMI_BACKEND_URL" in file://*) mkdir -p "${PULUMI_BACKEND_URL#file://}" ;; esac

# The examples, the demo and the tests import this package by name, as a user's program would,
# from node_modules/pulumi-gpucloud: a copy installed from the packed tarball after each build
# (scripts/install-package.mjs), never a link to the checkout (see that script for why).
