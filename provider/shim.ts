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
 * What Pulumi serializes into every resource's state (`__provider`, once in the inputs and once
 * in the outputs) is the provider object handed to `dynamic.Resource`. The SDK's closure
 * serializer writes an object that *is* a module's exports, from a package under
 * `node_modules`, as a `require` of that module by name: about 270 bytes, less than a no-op
 * provider's own code. So each resource type has an entry module, `provider/dynamic/<name>`,
 * whose exports are its provider, and the resource passes that module's exports to `super`:
 * the state then holds `require("pulumi-gpucloud/dynamic/<name>")` and nothing else. The
 * serializer names a module by the package's `exports` entry that matches its file most
 * narrowly: `./dynamic/*` (9 bytes shorter than `./provider/*`, in both copies of every
 * resource), which exists for that.
 *
 * A new resource type follows the pattern: its module `provider/resources/<name>` exports
 * `provider`, its class passes `providerShim("pulumi-gpucloud/provider/resources/<name>")` to
 * `super`, and `provider/dynamic/<name>.ts`, which `npm run gen-registry` writes, holds
 * `export = forwardingProvider("<name>")` (docs/maintainers/adding-a-resource.md).
 * test/unit/provider-entry.test.ts checks that every resource module has its entry.
 *
 * The entry's methods `require` the implementation by package name when called, so:
 * - the provider process loads only the resource's module, the client and their dependencies
 *   (never `provider/index`, the emulator or its server framework);
 * - should the package be loaded through a symlink (an `npm link`ed checkout), the serializer
 *   copies the entry by value instead, and that copy still works: it holds forwarding code and
 *   the module path, never the implementation or any configuration.
 *
 * Every module path a state has named is part of the state's contract: stacks written by 0.1.0
 * hold a forwarding object that requires `pulumi-gpucloud/provider/resources/<name>` (and calls
 * its `provider`) and `pulumi-gpucloud/provider/provider-runtime` (and calls `configure`), and
 * stacks written before the `./dynamic/*` export hold `pulumi-gpucloud/provider/dynamic/<name>`.
 * Those modules must keep those exports, and the entries must keep their paths and both names.
 * A copy by value of the entries of the release before this one also calls the runtime's
 * `beforeCall` and passes `"at-first-call"` to its `configure` (and enables Node.js's compile
 * cache itself): the runtime keeps both, as no-ops.
 */
export function providerShim(implementation: string): pulumi.dynamic.ResourceProvider {
  const name = implementationPrefix.exec(implementation)?.[1];
  if (name === undefined) {
    throw new Error(`providerShim: ${implementation} is not ${implementationPrefix.source}`);
  }
  try {
    // The entry's exports, as `require` caches them: the serializer recognises them by identity.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(`./dynamic/${name}`) as pulumi.dynamic.ResourceProvider;
  } catch (error) {
    throw new Error(
      `no provider entry module for ${implementation}: add provider/dynamic/${name}.ts ` +
        `(see provider/shim.ts): ${String(error)}`,
    );
  }
}

const implementationPrefix = /^pulumi-gpucloud\/provider\/resources\/([a-z][a-z0-9-]*)$/;

/**
 * The provider an entry module exports: each method requires the resource's module by package
 * name in the provider process and calls its `provider`. `configure` hands the stack's
 * configuration to the process's one run (provider/provider-runtime.ts), so no configuration
 * is ever part of the state.
 *
 * The entries change nothing of the process they run in (it is shared with the user's own
 * dynamic resources). (Comments inside the methods would be copied into the state along with a
 * copy by value: they live here.)
 */
export function forwardingProvider(name: string): pulumi.dynamic.ResourceProvider {
  const implementation = `pulumi-gpucloud/provider/resources/${name}`;
  const runtime = "pulumi-gpucloud/provider/provider-runtime";
  // `require` is resolved in the provider process; this function captures nothing but the two
  // module names, so that a copy by value (see above) stays small.
  /* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call */
  return {
    async configure(request) {
      require(runtime).configure(request);
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
