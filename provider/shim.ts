import type * as pulumi from "@pulumi/pulumi";
// The SDK's module itself, not its index: a provider process loads this file too, and the index
// (with the Automation API) is no part of what it needs.
import { CustomResource, type CustomResourceOptions } from "@pulumi/pulumi/resource";
import {
  bundledRuntime,
  ranInBundle,
  insideTheBundle,
  resourceIn,
  type ResourceProviderLike,
} from "./dynamic-runtime";

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
 * What every resource class extends: a dynamic resource (type
 * `pulumi-nodejs:dynamic/gpucloud:<type>`, served by the SDK's dynamic-provider process), whose
 * provider, `__provider` in the state (once in the inputs and once in the outputs), is the
 * module `entry` required by name and nothing else: `exports.handler = () =>
 * require("pulumi-gpucloud/dynamic/<name>");`, about 70 bytes.
 *
 * The SDK's `dynamic.Resource` would write it with its closure serializer instead: an inspector
 * session and a parse of the provider's code in every program run (about 0.3 s of CPU for each
 * `preview` and `up`), for a text that, for an object that is a module's exports, amounts to the
 * same `require`. The dynamic-provider process reads `__provider` the same way whichever wrote
 * it (`require-from-string`, then `handler()`), and the type, inputs and options are the
 * `CustomResource`'s that `dynamic.Resource` registers.
 *
 * Each resource type has an entry module, `provider/dynamic/<name>`, whose exports are its
 * provider (`forwardingProvider`, below): the class passes
 * `providerEntry("pulumi-gpucloud/provider/resources/<name>")`, which names it by the package's
 * `exports` entry that matches its file most narrowly, `./dynamic/*` (9 bytes shorter than
 * `./provider/*`, in both copies of every resource). `npm run gen-registry` writes the entry
 * (docs/maintainers/adding-a-resource.md); test/unit/provider-entry.test.ts checks that every
 * resource module has one. The provider process then loads the entries and the bundled runtime
 * (provider/dynamic-runtime.ts: every resource's module, the client, the package's API and zod,
 * compiled from its code cache; never the emulator or its server framework), and the state
 * holds no code, configuration or dependency of ours. A state written by 0.1.0 (below) makes
 * the process load the modules too, whose copies hand their calls to the bundle.
 *
 * Every module path a state has named is part of the state's contract: stacks written by 0.1.0
 * hold a forwarding object copied by value that requires
 * `pulumi-gpucloud/provider/resources/<name>` (and calls its `provider`) and
 * `pulumi-gpucloud/provider/provider-runtime` (and calls `configure`); stacks written before the
 * `./dynamic/*` export hold the serializer's `require("pulumi-gpucloud/provider/dynamic/<name>")`,
 * and those written before this class the serializer's `require("pulumi-gpucloud/dynamic/<name>")`.
 * Those modules must keep those exports, and the entries must keep their paths and both names.
 * A copy by value of the entries of the release before this one also calls the runtime's
 * `beforeCall` and passes `"at-first-call"` to its `configure` (and enables Node.js's compile
 * cache itself): the runtime keeps both, as no-ops.
 */
export class DynamicResource extends CustomResource {
  constructor(
    entry: string,
    name: string,
    props: pulumi.Inputs,
    opts: CustomResourceOptions | undefined,
    type: string,
  ) {
    super(
      `pulumi-nodejs:dynamic/gpucloud:${type}`,
      name,
      { ...props, __provider: providerSource(entry) },
      opts,
    );
  }
}

/** What `__provider` holds: a module whose `handler` returns the provider `entry` exports. */
export const providerSource = (entry: string): string =>
  `exports.handler = () => require(${JSON.stringify(entry)});`;

/**
 * The entry module a resource class names for its implementation
 * (`pulumi-gpucloud/provider/resources/<name>` → `pulumi-gpucloud/dynamic/<name>`), once it is
 * sure the entry exists: a resource without one fails at construction, saying what to add.
 */
export function providerEntry(implementation: string): string {
  providerShim(implementation);
  return `pulumi-gpucloud/dynamic/${entryName(implementation)}`;
}

/** The provider an entry module exports, as the provider process gets it (tests call it). */
export function providerShim(implementation: string): pulumi.dynamic.ResourceProvider {
  const name = entryName(implementation);
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    // The bundle holds the entries as a table of their files, named with their extension.
    return (
      insideTheBundle ? require(`./dynamic/${name}.js`) : require(`./dynamic/${name}`)
    ) as pulumi.dynamic.ResourceProvider;
    /* eslint-enable @typescript-eslint/no-require-imports */
  } catch (error) {
    throw new Error(
      `no provider entry module for ${implementation}: add provider/dynamic/${name}.ts ` +
        `(see provider/shim.ts): ${String(error)}`,
    );
  }
}

const implementationPrefix = /^pulumi-gpucloud\/provider\/resources\/([a-z][a-z0-9-]*)$/;

/** `<name>` of `pulumi-gpucloud/provider/resources/<name>`: its entry's name too. */
function entryName(implementation: string): string {
  const name = implementationPrefix.exec(implementation)?.[1];
  if (name === undefined) {
    throw new Error(`providerShim: ${implementation} is not ${implementationPrefix.source}`);
  }
  return name;
}

/**
 * The provider an entry module exports. Where the package ships the bundled runtime
 * (provider/dynamic-runtime.ts), each method calls the resource's `provider` in it; elsewhere
 * (the tests, from the sources) it requires the resource's module by package name and calls
 * its `provider`. `configure` hands the stack's configuration to the process's one run
 * (provider/provider-runtime.ts), so no configuration is ever part of the state.
 *
 * The entries change nothing of the process they run in (it is shared with the user's own
 * dynamic resources).
 */
export function forwardingProvider(name: string): pulumi.dynamic.ResourceProvider {
  const implementation = `pulumi-gpucloud/provider/resources/${name}`;
  const runtime = "pulumi-gpucloud/provider/provider-runtime";
  // Resolved in the provider process, when a method is first called.
  /* eslint-disable @typescript-eslint/no-require-imports, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call */
  const resource = (): ResourceProviderLike => {
    const bundle = bundledRuntime();
    return bundle === undefined
      ? require(implementation).provider
      : resourceIn(bundle, name).provider;
  };
  // A call answered: its code is compiled, for the bundle's code cache to keep. Not a failed
  // one, which may have run none of what succeeding runs.
  const call = async <T>(method: string, work: () => Promise<T>): Promise<T> => {
    const answer = await work();
    ranInBundle(`${name}.${method}`);
    return answer;
  };
  return {
    async configure(request) {
      const bundle = bundledRuntime();
      if (bundle !== undefined) bundle.runtime.configure(request);
      else require(runtime).configure(request);
    },
    async check(olds, news) {
      return call("check", () => resource().check(olds, news));
    },
    async diff(id, olds, news) {
      return call("diff", () => resource().diff(id, olds, news));
    },
    async create(inputs) {
      return call("create", () => resource().create(inputs));
    },
    async read(id, props) {
      return call("read", () => resource().read(id, props));
    },
    async update(id, olds, news) {
      return call("update", () => resource().update(id, olds, news));
    },
    async delete(id, props) {
      return call("delete", () => resource().delete(id, props));
    },
  };
  /* eslint-enable */
}
