import * as pulumi from "@pulumi/pulumi";
import * as gpucloud from "../../provider";
import { nativeFunctions } from "../../provider/native/functions";
import { nativeResources } from "../../provider/native/resources";
import { packageSchema, secretOutputs } from "../../provider/native/schema";

describe("the native plugin's schema", () => {
  const schema = packageSchema("1.2.3");

  it("serves every resource class of the package as gpucloud:index:<Class>", () => {
    const classes = Object.entries(gpucloud)
      .filter(
        ([, value]) =>
          typeof value === "function" &&
          (value as { prototype?: unknown }).prototype instanceof pulumi.CustomResource,
      )
      .map(([name]) => name);
    expect(classes).toEqual(expect.arrayContaining(["Secret", "Volume", "Instance"]));
    expect(Object.keys(schema.resources).sort()).toEqual(
      classes.map((name) => `gpucloud:index:${name}`).sort(),
    );
    expect(nativeResources.map((resource) => resource.type).sort()).toEqual(classes.sort());
  });

  it("serves every function of the package", () => {
    const functions = ["getOffers", "getVolumeOffers", "getCurrentUser", "cancelRsyncCopy"];
    for (const name of ["getTemplates", "getInstances"]) {
      if (name in gpucloud) functions.push(name);
    }
    expect(Object.keys(schema.functions).sort()).toEqual(
      functions.map((name) => `gpucloud:index:${name}`).sort(),
    );
    expect(nativeFunctions).toHaveLength(functions.length);
  });

  it("marks the provider's apiKey secret, and baseUrl plain", () => {
    expect(schema.config.variables["apiKey"]).toMatchObject({ type: "string", secret: true });
    expect(schema.config.variables["baseUrl"]).toMatchObject({ type: "string" });
    expect(schema.config.variables["baseUrl"]?.secret).toBeUndefined();
    expect(schema.provider.inputProperties["apiKey"]?.secret).toBe(true);
  });

  it.each([
    ["Secret", ["value"], ["value"]],
    ["Webhook", ["webhookSecret"], []],
    ["ApiKey", ["key"], []],
    ["Template", ["dockerLogin"], ["dockerLogin"]],
    ["WorkerGroup", ["launchArgs"], ["launchArgs"]],
    ["Volume", [], []],
    ["Instance", [], []],
    ["SshKey", [], []],
    ["Endpoint", [], []],
  ])("marks %s's secrets: outputs %j, inputs %j", (type, outputs, inputs) => {
    const resource = schema.resources[`gpucloud:index:${type}`];
    if (resource === undefined) throw new Error(`no ${type}`);
    const secretOf = (properties: Record<string, { secret?: boolean }>) =>
      Object.entries(properties)
        .filter(([, property]) => property.secret === true)
        .map(([name]) => name)
        .sort();
    expect(secretOf(resource.properties)).toEqual([...outputs].sort());
    expect(secretOf(resource.inputProperties)).toEqual([...inputs].sort());
    expect(secretOutputs(schema, `gpucloud:index:${type}`).sort()).toEqual([...outputs].sort());
  });

  it("keeps what the classes set themselves out of the inputs", () => {
    const instance = schema.resources["gpucloud:index:Instance"];
    expect(Object.keys(instance?.inputProperties ?? {})).not.toEqual(
      expect.arrayContaining(["owner"]),
    );
    for (const hidden of ["owner", "stackToken", "replaceOnChanges"]) {
      expect(instance?.inputProperties[hidden]).toBeUndefined();
      expect(instance?.properties[hidden]).toBeUndefined();
    }
    // The ApiKey class defaults the name to the resource's: optional here too.
    expect(schema.resources["gpucloud:index:ApiKey"]?.requiredInputs).toEqual(["permissions"]);
  });

  it("types inputs from the zod definitions: defaults, lists, maps and named objects", () => {
    const volume = schema.resources["gpucloud:index:Volume"];
    expect(volume?.inputProperties["sizeGb"]).toEqual({ type: "integer", default: 15 });
    expect(volume?.inputProperties["askId"]).toEqual({ type: "integer" });
    const instance = schema.resources["gpucloud:index:Instance"];
    expect(instance?.inputProperties["env"]).toEqual({
      type: "object",
      additionalProperties: { type: "string" },
    });
    expect(instance?.inputProperties["sshKeyIds"]).toEqual({
      type: "array",
      items: { type: "integer" },
    });
    expect(instance?.inputProperties["volume"]).toEqual({
      $ref: "#/types/gpucloud:index:InstanceVolume",
    });
    expect(schema.types["gpucloud:index:InstanceVolume"]).toEqual({
      type: "object",
      properties: { volumeId: { type: "integer" }, mountPath: { type: "string" } },
      required: ["volumeId", "mountPath"],
    });
    // Whole numbers (zod's .int()) are integers, so typed SDKs (Go) get int, not float64;
    // fractional quantities stay numbers.
    for (const field of ["instanceId", "sshPort", "gpuRamMb", "askId", "maxAttempts"]) {
      expect(instance?.properties[field]).toEqual(expect.objectContaining({ type: "integer" }));
    }
    for (const field of ["diskGb", "maxDollarsPerHour", "pollIntervalSeconds"]) {
      expect(instance?.properties[field]).toEqual(expect.objectContaining({ type: "number" }));
    }
    expect(schema.types["gpucloud:index:InstanceOffer"]?.properties).toEqual(
      expect.objectContaining({
        askId: { type: "integer" },
        numGpus: { type: "integer" },
        machineId: { type: "integer" },
        dollarsPerHour: { type: "number" },
      }),
    );
    expect(schema.types["gpucloud:index:InstanceAttemptsItem"]?.properties).toEqual(
      expect.objectContaining({ askId: { type: "integer" }, instanceId: { type: "integer" } }),
    );
    const workerGroup = schema.resources["gpucloud:index:WorkerGroup"];
    expect(workerGroup?.inputProperties["coldWorkers"]).toEqual({ type: "integer" });
    // A function without outputs has an empty result object (a plain struct in Go).
    expect(schema.functions["gpucloud:index:cancelRsyncCopy"]?.outputs).toEqual({
      type: "object",
      properties: {},
    });
    // A transform's output has no JSON form: the input side types it.
    expect(schema.resources["gpucloud:index:Secret"]?.properties["key"]).toEqual({
      type: "string",
    });
    // Every reference resolves.
    const refs = JSON.stringify(schema).match(/#\/types\/[^"]+/g) ?? [];
    for (const ref of refs) expect(schema.types[ref.slice("#/types/".length)]).toBeDefined();
  });
});
