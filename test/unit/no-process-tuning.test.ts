import Module from "node:module";
import path from "node:path";
import v8 from "node:v8";
import * as pulumi from "@pulumi/pulumi";
import { beforeCall, configure } from "../../provider/provider-runtime";
import { ApiKey } from "../../provider/resources/api-key";
import { Instance } from "../../provider/resources/instance";
import { provider as secretProvider, Secret } from "../../provider/resources/secret";
import { SshKey } from "../../provider/resources/ssh-key";
import { Volume } from "../../provider/resources/volume";
import { Webhook } from "../../provider/resources/webhook";

// A library does not tune the processes it runs in: the program (the user's process) and the
// dynamic-provider process (shared with the user's own dynamic resources) are left as they
// were found. No V8 flag, no garbage collection or `gc` global, no compile cache of the process
// (the bundled runtime caches its own code only, through its own script:
// provider/dynamic-runtime.ts), no stack-trace formatter swapped in, not even for a moment.

type Formatter = NonNullable<ErrorConstructor["prepareStackTrace"]>;

describe("the package leaves the process as it found it", () => {
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const jestFormatter = Error.prepareStackTrace;
  let formatterWrites = 0;
  let formatter: Formatter | undefined;
  // The SDK sets V8 flags of its own (to inspect functions it serializes): only calls made
  // from this package's code count.
  const ours = path.resolve(__dirname, "..", "..", "provider") + path.sep;
  const fromPackage = (calls: string[]) => calls.filter((stack) => stack.includes(ours));
  const flagCalls: string[] = [];
  const cacheCalls: string[] = [];
  // Plain replacements, not Jest spies (a spy's records would be kept for the whole file).

  const setFlagsFromString = v8.setFlagsFromString;

  const enableCompileCache = Module.enableCompileCache;
  v8.setFlagsFromString = (flag: string) => {
    flagCalls.push(new Error().stack ?? "");
    setFlagsFromString(flag);
  };
  Module.enableCompileCache = () => {
    cacheCalls.push(new Error().stack ?? "");
    return { status: Module.constants.compileCacheStatus.DISABLED };
  };

  beforeAll(async () => {
    // A formatter of the program's own, as ts-node's source-map support is in a Pulumi
    // program; every write of it is counted, a swap restored at once included.
    formatter = (error, frames) => [String(error), ...frames.map(String)].join("\n    at ");
    Object.defineProperty(Error, "prepareStackTrace", {
      configurable: true,
      get: () => formatter,
      set: (next: Formatter | undefined) => {
        formatterWrites += 1;
        formatter = next;
      },
    });
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => ({
          id: `${args.name}-id`,
          state: args.inputs as Record<string, unknown>,
        }),
        call: () => ({}),
      },
      "project",
      "stack",
      true,
    );
  });
  afterAll(() => {
    Object.defineProperty(Error, "prepareStackTrace", {
      configurable: true,
      writable: true,
      value: jestFormatter,
    });
    v8.setFlagsFromString = setFlagsFromString;
    Module.enableCompileCache = enableCompileCache;
  });

  it("in the program: declaring every resource", async () => {
    const resources: pulumi.Resource[] = [
      new Secret("secret", { key: "K", value: "v" }),
      new Webhook("hook", { url: "https://example.com/h", eventTypes: ["client:low_credit"] }),
      new Volume("volume", { askId: 21001 }),
      new Instance("instance", { askId: 31001, image: "img", diskGb: 10 }),
      new SshKey("key", { publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB test" }),
      new ApiKey("api", { name: "ci", permissions: { api: { instance_read: {} } } }),
    ];
    await Promise.all(
      resources.map((resource) => new Promise((resolve) => resource.urn.apply(resolve))),
    );
    expect(formatterWrites).toBe(0);
    expect(fromPackage(flagCalls)).toEqual([]);
    expect(fromPackage(cacheCalls)).toEqual([]);
  });

  it("in the provider process: configure and the calls, as every entry makes them", async () => {
    const config = { get: () => undefined, require: () => "" };
    configure({ config });
    // What the forwarders of the release before this one, copied by value, still call.
    configure({ config }, "at-first-call");
    for (const call of ["check", "diff", "create", "read", "update", "delete"] as const) {
      beforeCall(call);
    }
    const checked = await secretProvider.check?.(
      { key: "K", value: "v" },
      { key: "K", value: "v" },
    );
    expect(checked?.failures?.[0]?.reason).toMatch(/is not set/);
    expect(fromPackage(flagCalls)).toEqual([]);
    expect(fromPackage(cacheCalls)).toEqual([]);
    expect(Reflect.get(globalThis, "gc")).toBeUndefined();
    expect(formatterWrites).toBe(0);
  });
});
