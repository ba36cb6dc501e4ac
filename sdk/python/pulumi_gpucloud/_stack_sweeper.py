# The stack's sweeper, as the TypeScript classes declare theirs (provider/renting/stack-sweeper.ts),
# added to the generated SDK by scripts/gen-sdks/sweeper/add-sweeper.mjs. The engine calls the
# plugin for nothing whose create was still pending when `pulumi up` was killed: `pulumi destroy`
# of such a stack never starts it. The sweeper is a resource of the state, made before any
# instance is rented (every Instance and NodeGroup depends on it) and deleted after all of
# them; its delete destroys what this stack's interrupted creates left (the plugin's
# gpucloud:index:InstanceSweeper, docs/maintainers/ownership.md).
from typing import Dict, Optional

import pulumi

from . import _utilities

_TYPE = "gpucloud:index:InstanceSweeper"

# One per provider: each provider has its own stack token, which its instances carry.
_sweepers: Dict[Optional[int], pulumi.CustomResource] = {}


def _provider_of(opts: pulumi.ResourceOptions) -> Optional[pulumi.ProviderResource]:
    if opts.provider is not None:
        return opts.provider
    providers = opts.providers
    if isinstance(providers, dict):
        return providers.get("gpucloud")
    for provider in providers or []:
        if getattr(provider, "package", None) == "gpucloud":
            return provider
    if opts.parent is not None:
        return opts.parent.get_provider("gpucloud:index:Instance")
    return None


def with_stack_sweeper(opts: pulumi.ResourceOptions) -> pulumi.ResourceOptions:
    """The options of a resource that rents, with the stack's sweeper among its dependencies."""
    if opts.id is not None:
        # A `get` reads an instance: it rents nothing.
        return opts
    provider = _provider_of(opts)
    key = None if provider is None else id(provider)
    sweeper = _sweepers.get(key)
    if sweeper is None:
        name = "gpucloud-instance-sweeper"
        if provider is not None:
            name += f"-{provider._name}"
        sweeper = pulumi.CustomResource(
            _TYPE,
            name,
            {"stackToken": None},
            pulumi.ResourceOptions.merge(
                _utilities.get_resource_opts_defaults(), pulumi.ResourceOptions(provider=provider)
            ),
        )
        _sweepers[key] = sweeper
    return pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[sweeper]))
