// The stack's sweeper, as the TypeScript classes declare theirs (provider/renting/stack-sweeper.ts),
// added to the generated SDK by scripts/gen-sdks/sweeper/add-sweeper.mjs. The engine calls the
// plugin for nothing whose create was still pending when `pulumi up` was killed: `pulumi destroy`
// of such a stack never starts it. The sweeper is a resource of the state, made before any
// instance is rented (every Instance and NodeGroup depends on it) and deleted after all of them;
// its delete destroys what this stack's interrupted creates left (the plugin's
// gpucloud:index:InstanceSweeper, docs/maintainers/ownership.md).

import * as pulumi from "@pulumi/pulumi";
import * as utilities from "./utilities";

/** What this SDK reads of a provider beyond its public face: its name. */
type Named = { __name?: string };

class StackSweeper extends pulumi.CustomResource {
    constructor(name: string, opts: pulumi.CustomResourceOptions) {
        super("gpucloud:index:InstanceSweeper", name, { stackToken: undefined }, opts);
    }
}

/** One per provider: each provider has its own stack token, which its instances carry. */
const sweepers = new Map<pulumi.ProviderResource | undefined, StackSweeper>();

/** The resource's provider: its own, else its parent's (a component's `providers`). */
function providerOf(opts: pulumi.CustomResourceOptions): pulumi.ProviderResource | undefined {
    return opts.provider ?? opts.parent?.getProvider("gpucloud:index:Instance");
}

/** The options of a resource that rents, with the stack's sweeper among its dependencies. */
export function withStackSweeper(opts: pulumi.CustomResourceOptions): pulumi.CustomResourceOptions {
    if (opts.id !== undefined) {
        // A `get` reads an instance: it rents nothing.
        return opts;
    }
    const provider = providerOf(opts);
    let sweeper = sweepers.get(provider);
    if (sweeper === undefined) {
        const name = provider === undefined
            ? "gpucloud-instance-sweeper"
            : `gpucloud-instance-sweeper-${(provider as unknown as Named).__name ?? ""}`;
        sweeper = new StackSweeper(
            name,
            pulumi.mergeOptions(utilities.resourceOptsDefaults(), { provider }),
        );
        sweepers.set(provider, sweeper);
    }
    return pulumi.mergeOptions(opts, { dependsOn: [sweeper] });
}
