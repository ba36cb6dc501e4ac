import * as pulumi from "@pulumi/pulumi";
import { Instance } from "../../provider/resources/instance";
import { Volume } from "../../provider/resources/volume";

// The TypeScript classes register the inputs a program gives and what the service reports; an
// input left out is an output made when first read (shared/class-outputs.ts), holding what
// check applies for it. Each registered name costs the SDK four promises per resource.

/** What a provider's create records besides its inputs, by resource name. */
const recorded: Record<string, Record<string, unknown>> = {
  i: { instanceId: 1000001, actualStatus: "running", state: "running", sshPort: 20001 },
  t: { instanceId: 1000002, actualStatus: "running", state: "running" },
  v: { volumeName: "V.5001", volumeId: 5001, sizeGb: 20 },
};

beforeAll(async () => {
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => ({
        id: `${args.name}-id`,
        state: { ...(args.inputs as Record<string, unknown>), ...recorded[args.name] },
      }),
      call: () => ({}),
    },
    "project",
    "stack",
    false,
  );
});

const valueOf = <T>(output: pulumi.Output<T>): Promise<T> =>
  new Promise((resolve) => output.apply(resolve));

/** The names the SDK made an output for at construction: those registered with the engine. */
const registeredNames = (resource: pulumi.CustomResource): string[] =>
  Object.entries(Object.getOwnPropertyDescriptors(resource))
    .filter(([, descriptor]) => pulumi.Output.isInstance(descriptor.value))
    .map(([name]) => name)
    .filter((name) => !["urn", "id", "__provider"].includes(name))
    .sort();

describe("an Instance's outputs", () => {
  let instance: Instance;
  let fromTemplate: Instance;
  beforeAll(() => {
    instance = new Instance("i", { askId: 31001, image: "img", diskGb: 10 });
    fromTemplate = new Instance("t", { askId: 31001, templateHashId: "abc" });
  });

  it("registers the inputs given and what the service reports, not the inputs left out", () => {
    const names = registeredNames(instance);
    expect(names).toEqual(expect.arrayContaining(["askId", "image", "diskGb", "instanceId"]));
    expect(names).toEqual(expect.arrayContaining(["sshHost", "dollarsPerHour", "label", "state"]));
    for (const leftOut of ["onstart", "maxAttempts", "env", "readiness", "askIds", "runtype"]) {
      expect(names).not.toContain(leftOut);
    }
  });

  it("reads the inputs given and the reported outputs from the state", async () => {
    expect(await valueOf(instance.diskGb)).toBe(10);
    expect(await valueOf(instance.instanceId)).toBe(1000001);
    expect(await valueOf(instance.sshPort)).toBe(20001);
    expect(await valueOf(instance.state)).toBe("running");
  });

  it("reads an input left out as the value check applies: its default, or undefined", async () => {
    expect(await valueOf(instance.maxAttempts)).toBe(3);
    expect(await valueOf(instance.createTimeoutSeconds)).toBe(1200);
    expect(await valueOf(instance.pollIntervalSeconds)).toBe(3);
    expect(await valueOf(instance.runtype)).toBe("ssh");
    expect(await valueOf(instance.onstart)).toBeUndefined();
    expect(await valueOf(instance.askIds)).toBeUndefined();
    // A template's own runtype applies: the instance records none.
    expect(await valueOf(fromTemplate.runtype)).toBeUndefined();
    expect(await valueOf(fromTemplate.image)).toBeUndefined();
  });

  it("makes such an output once, when first read", () => {
    expect(instance.maxAttempts).toBe(instance.maxAttempts);
  });

  it("keeps the engine's value of an input a transformation added", async () => {
    const transformed = new Instance(
      "x",
      { askId: 31001, image: "img", diskGb: 10 },
      {
        transformations: [({ props, opts }) => ({ props: { ...props, maxAttempts: 5 }, opts })],
      },
    );
    expect(registeredNames(transformed)).toContain("maxAttempts");
    expect(await valueOf(transformed.maxAttempts)).toBe(5);
  });
});

describe("a Volume's outputs", () => {
  it("registers its size (a refresh records the service's) and reads its reported outputs", async () => {
    const volume = new Volume("v", { askId: 21001 });
    expect(registeredNames(volume)).toEqual(
      expect.arrayContaining(["askId", "sizeGb", "volumeId", "volumeName", "dollarsPerHour"]),
    );
    expect(registeredNames(volume)).not.toContain("forInstance");
    expect(await valueOf(volume.sizeGb)).toBe(20);
    expect(await valueOf(volume.volumeName)).toBe("V.5001");
    expect(await valueOf(volume.forInstance)).toBeUndefined();
  });
});
