// The stack's sweeper, as the TypeScript classes declare theirs (provider/renting/stack-sweeper.ts),
// added to the generated SDK by scripts/gen-sdks/sweeper/add-sweeper.mjs. The engine calls the
// plugin for nothing whose create was still pending when `pulumi up` was killed: `pulumi destroy`
// of such a stack never starts it. The sweeper is a resource of the state, made before any
// instance is rented (every Instance and NodeGroup depends on it) and deleted after all of them;
// its delete destroys what this stack's interrupted creates left (the plugin's
// gpucloud:index:InstanceSweeper, docs/maintainers/ownership.md).

package gpucloud

import (
	"sync"

	"github.com/pulumi-gpucloud/pulumi-gpucloud/sdk/go/gpucloud/internal"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

type stackSweeper struct {
	pulumi.CustomResourceState
}

// One per program run and provider: each provider has its own stack token, which its instances
// carry.
type sweeperKey struct {
	ctx      *pulumi.Context
	provider pulumi.ProviderResource
}

var (
	sweepersLock sync.Mutex
	sweepers     = map[sweeperKey]*stackSweeper{}
)

// withStackSweeper returns the options of a resource that rents, with the stack's sweeper among
// its dependencies.
func withStackSweeper(ctx *pulumi.Context, opts []pulumi.ResourceOption) ([]pulumi.ResourceOption, error) {
	options, err := pulumi.NewResourceOptions(opts...)
	if err != nil {
		return nil, err
	}
	provider := options.Provider
	for _, candidate := range options.Providers {
		if provider == nil && candidate.PulumiResourceType() == "pulumi:providers:gpucloud" {
			provider = candidate
		}
	}
	if parent, ok := options.Parent.(interface {
		GetProvider(token string) pulumi.ProviderResource
	}); provider == nil && ok {
		provider = parent.GetProvider("gpucloud:index:Instance")
	}
	sweepersLock.Lock()
	defer sweepersLock.Unlock()
	key := sweeperKey{ctx: ctx, provider: provider}
	sweeper, found := sweepers[key]
	if !found {
		name := "gpucloud-instance-sweeper"
		sweeperOpts := internal.PkgResourceDefaultOpts(nil)
		if provider != nil {
			name += "-" + provider.PulumiResourceName()
			sweeperOpts = append(sweeperOpts, pulumi.Provider(provider))
		}
		sweeper = &stackSweeper{}
		inputs := pulumi.Map{"stackToken": pulumi.Any(nil)}
		err := ctx.RegisterResource("gpucloud:index:InstanceSweeper", name, inputs, sweeper, sweeperOpts...)
		if err != nil {
			return nil, err
		}
		sweepers[key] = sweeper
	}
	return append(opts, pulumi.DependsOn([]pulumi.Resource{sweeper})), nil
}
