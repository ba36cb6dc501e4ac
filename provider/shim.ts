import type * as pulumi from "@pulumi/pulumi";

/**
 * A resource's real provider, as its module exports it. Unlike the SDK's type, `read` returns
 * the resource's inputs typed as inputs (the SDK types them as outputs).
 */
export interface DynamicProvider<Inputs, Outputs> extends Omit<
  pulumi.dynamic.ResourceProvider<Inputs, Outputs>,
  "read"
> {
  read(id: string, props?: Outputs): Promise<{ id?: string; props?: Outputs; inputs?: Inputs }>;
}

/**
 * The provider object Pulumi serializes into every resource's state. It is deliberately thin:
 * each method `require`s the implementation by package name in the provider process, so the
 * state holds forwarding code and the module path (about 2.8 KB, stored in both inputs and
 * outputs), never the implementation, its dependencies or any configuration.
 *
 * `implementation` is a package subpath such as `pulumi-gpucloud/provider/resources/secret`
 * whose module exports `provider` (the real ResourceProvider). One shim serves every resource
 * of a type: the SDK serializes a provider object once and reuses the text.
 */
const shims = new Map<string, pulumi.dynamic.ResourceProvider>();

export function providerShim(implementation: string): pulumi.dynamic.ResourceProvider {
  let shim = shims.get(implementation);
  if (!shim) {
    shim = forwardingProvider(implementation);
    shims.set(implementation, shim);
  }
  return shim;
}

function forwardingProvider(implementation: string): pulumi.dynamic.ResourceProvider {
  // `require` is resolved by the provider process from the program's node_modules; the
  // closure serializer never captures it, and a static import here would be captured by value.
  /* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call */
  return {
    async configure(request) {
      require("pulumi-gpucloud/provider/provider-runtime").configure(request);
    },
    async check(olds, news) {
      return require(implementation).provider.check(olds, news);
    },
    async diff(id, olds, news) {
      return require(implementation).provider.diff(id, olds, news);
    },
    async create(inputs) {
      return require(implementation).provider.create(inputs);
    },
    async read(id, props) {
      return require(implementation).provider.read(id, props);
    },
    async update(id, olds, news) {
      return require(implementation).provider.update(id, olds, news);
    },
    async delete(id, props) {
      return require(implementation).provider.delete(id, props);
    },
  };
  /* eslint-enable */
}
