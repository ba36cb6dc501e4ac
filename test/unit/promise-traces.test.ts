import * as pulumi from "@pulumi/pulumi";
import { ApiKey } from "../../provider/resources/api-key";
import { Instance } from "../../provider/resources/instance";
import { Secret } from "../../provider/resources/secret";
import { SshKey } from "../../provider/resources/ssh-key";
import { Volume } from "../../provider/resources/volume";
import { Webhook } from "../../provider/resources/webhook";

// A program's process formats stack traces with ts-node's source-map support, which the SDK
// registers. This stands in for it and records the top frame of each trace it formats.
type Formatter = NonNullable<ErrorConstructor["prepareStackTrace"]>;
let formattedTops: string[] = [];
const countingFormatter: Formatter = (error, frames) => {
  formattedTops.push(frames[0]?.getFunctionName() ?? "");
  const lines = frames.map(
    (frame) => `    at ${frame.getFileName() ?? "?"}:${frame.getLineNumber()}`,
  );
  return [String(error), ...lines].join("\n");
};

// A dynamic resource declared directly, as a program without this package does.
class PlainDynamicResource extends pulumi.dynamic.Resource {}

/** The formatter in place now (read without calling it). */
function currentFormatter(): unknown {
  return Reflect.get(Error, "prepareStackTrace");
}

// Each resource's registration, done: the SDK serializes the provider after the constructor.
const declared: pulumi.Resource[] = [];
function registered<T extends pulumi.Resource>(resource: T): T {
  declared.push(resource);
  return resource;
}

function promiseTraces(): number {
  return formattedTops.filter((top) => top === "debuggablePromise").length;
}

describe("registering a resource in a program", () => {
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const jestFormatter = Error.prepareStackTrace;
  beforeAll(async () => {
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
  beforeEach(() => {
    formattedTops = [];
    Error.prepareStackTrace = countingFormatter;
  });
  afterEach(async () => {
    Error.prepareStackTrace = jestFormatter;
    await Promise.all(
      declared.splice(0).map((resource) => new Promise((resolve) => resource.urn.apply(resolve))),
    );
  });

  it("has the SDK's promises record no trace through the program's formatter", () => {
    // The control: the SDK records one for each property of a plain dynamic resource. Should
    // the SDK stop doing so (or rename the function), this says the package's work is moot.
    registered(
      new PlainDynamicResource(
        { create: () => Promise.resolve({ id: "x" }) },
        "plain",
        { a: "1", b: "2", c: undefined },
        {},
      ),
    );
    expect(promiseTraces()).toBeGreaterThanOrEqual(3);

    formattedTops = [];
    // Every resource class of the package (the Instance declares the stack's InstanceSweeper).
    registered(new Secret("secret", { key: "TOKEN", value: "abc" }));
    registered(new Volume("volume", { askId: 21001 }));
    registered(new Instance("instance", { askId: 31001, image: "img", diskGb: 10 }));
    registered(new Webhook("webhook", { url: "https://hooks.example.com/x", eventTypes: [] }));
    registered(new SshKey("ssh-key", { publicKey: "ssh-ed25519 AAAA" }));
    registered(new ApiKey("api-key", { permissions: { api: { instance_read: {} } } }));
    expect(promiseTraces()).toBe(0);
    // The declaration's position the SDK sends the engine is still formatted by the formatter
    // the program has, so that a TypeScript program's lines are still its own.
    expect(formattedTops.filter((top) => top === "callsites").length).toBeGreaterThanOrEqual(7);
    expect(currentFormatter()).toBe(countingFormatter);
  });

  it("leaves an error thrown while registering with its full stack, and the formatter as it was", () => {
    let thrown: unknown;
    try {
      new Secret("", { key: "TOKEN", value: "abc" });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/Missing resource name/);
    expect((thrown as Error).stack).toContain("promise-traces.test.ts");
    expect(currentFormatter()).toBe(countingFormatter);
  });

  it("changes nothing in a process without a formatter of its own", () => {
    Reflect.set(Error, "prepareStackTrace", undefined);
    const seenWhileRegistering: unknown[] = [];
    registered(
      new Secret("plain-process", {
        get key() {
          seenWhileRegistering.push(currentFormatter());
          return "TOKEN";
        },
        value: "abc",
      }),
    );
    expect(seenWhileRegistering).toEqual([undefined]);
    expect(currentFormatter()).toBeUndefined();
  });
});
