import * as pulumi from "@pulumi/pulumi";
import * as gpucloud from "../../provider";
import { instanceSummaryOf } from "../../provider/client/instance-summaries";
import { instanceOfferSchema, volumeOfferSchema } from "../../provider/client/offer-query";
import { templateSummaryOf } from "../../provider/client/templates";
import { nativeFunctions } from "../../provider/native/functions";
import { nativeResources } from "../../provider/native/resources";
import { packageSchema, type PropertySpec, secretOutputs } from "../../provider/native/schema";

/** A property's type alone, without its description. */
const typeOf = (
  property: PropertySpec | undefined,
): Omit<PropertySpec, "description"> | undefined => {
  if (property === undefined) return undefined;
  const { description: _description, ...type } = property;
  return type;
};

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
    expect(typeOf(volume?.inputProperties["sizeGb"])).toEqual({ type: "integer", default: 15 });
    expect(typeOf(volume?.inputProperties["askId"])).toEqual({ type: "integer" });
    const instance = schema.resources["gpucloud:index:Instance"];
    expect(typeOf(instance?.inputProperties["env"])).toEqual({
      type: "object",
      additionalProperties: { type: "string" },
    });
    expect(typeOf(instance?.inputProperties["sshKeyIds"])).toEqual({
      type: "array",
      items: { type: "integer" },
    });
    expect(typeOf(instance?.inputProperties["volume"])).toEqual({
      $ref: "#/types/gpucloud:index:InstanceVolume",
    });
    const volumeType = schema.types["gpucloud:index:InstanceVolume"];
    expect(typeOf(volumeType?.properties["volumeId"])).toEqual({ type: "integer" });
    expect(typeOf(volumeType?.properties["mountPath"])).toEqual({ type: "string" });
    expect(volumeType?.required).toEqual(["volumeId", "mountPath"]);
    // Whole numbers (zod's .int()) are integers, so typed SDKs (Go) get int, not float64;
    // fractional quantities stay numbers.
    for (const field of ["instanceId", "sshPort", "gpuRamMb", "askId", "maxAttempts"]) {
      expect(instance?.properties[field]).toEqual(expect.objectContaining({ type: "integer" }));
    }
    for (const field of ["diskGb", "maxDollarsPerHour", "pollIntervalSeconds"]) {
      expect(instance?.properties[field]).toEqual(expect.objectContaining({ type: "number" }));
    }
    // What an instance rented; not getOffers' InstanceOffer, which carries every field.
    expect(typeOf(instance?.properties["offer"])).toEqual({
      $ref: "#/types/gpucloud:index:InstanceRentedOffer",
    });
    for (const token of ["InstanceRentedOffer", "InstanceOffer"]) {
      const properties = schema.types[`gpucloud:index:${token}`]?.properties ?? {};
      expect(typeOf(properties["askId"])).toEqual({ type: "integer" });
      expect(typeOf(properties["numGpus"])).toEqual({ type: "integer" });
      expect(typeOf(properties["machineId"])).toEqual({ type: "integer" });
      expect(typeOf(properties["dollarsPerHour"])).toEqual({ type: "number" });
    }
    const attempt = schema.types["gpucloud:index:InstanceAttemptsItem"]?.properties ?? {};
    expect(typeOf(attempt["askId"])).toEqual({ type: "integer" });
    expect(typeOf(attempt["instanceId"])).toEqual({ type: "integer" });
    const workerGroup = schema.resources["gpucloud:index:WorkerGroup"];
    expect(typeOf(workerGroup?.inputProperties["coldWorkers"])).toEqual({ type: "integer" });
    // A function without outputs has an empty result object (a plain struct in Go).
    expect(schema.functions["gpucloud:index:cancelRsyncCopy"]?.outputs).toEqual({
      type: "object",
      properties: {},
    });
    // A transform's output has no JSON form: the input side types it.
    expect(typeOf(schema.resources["gpucloud:index:Secret"]?.properties["key"])).toEqual({
      type: "string",
    });
    // Every reference resolves.
    const refs = JSON.stringify(schema).match(/#\/types\/[^"]+/g) ?? [];
    for (const ref of refs) expect(schema.types[ref.slice("#/types/".length)]).toBeDefined();
  });

  it("describes every property: resources' inputs and outputs, object types, functions", () => {
    // A description comes from the zod definition (`.describe(...)`, after any transform): it is
    // what every SDK's docs and the reference pages show. A new field needs one.
    const undescribed: string[] = [];
    let checked = 0;
    const check = (where: string, properties: Record<string, PropertySpec> | undefined) => {
      for (const [name, property] of Object.entries(properties ?? {})) {
        checked += 1;
        if (!property.description?.trim()) undescribed.push(`${where}.${name}`);
      }
    };
    for (const [token, resource] of Object.entries(schema.resources)) {
      check(`${token} input`, resource.inputProperties);
      check(`${token} output`, resource.properties);
    }
    for (const [token, type] of Object.entries(schema.types)) check(token, type.properties);
    for (const [token, fn] of Object.entries(schema.functions)) {
      check(`${token} argument`, fn.inputs.properties);
      check(`${token} result`, fn.outputs.properties);
    }
    check("config", schema.config.variables);
    expect(undescribed).toEqual([]);
    expect(checked).toBeGreaterThan(250);
  });

  it("types the functions' lists with named object types", () => {
    const items = (fn: string, list: string) =>
      schema.functions[`gpucloud:index:${fn}`]?.outputs.properties[list]?.items;
    expect(items("getOffers", "offers")).toEqual({ $ref: "#/types/gpucloud:index:InstanceOffer" });
    expect(items("getVolumeOffers", "offers")).toEqual({
      $ref: "#/types/gpucloud:index:VolumeOffer",
    });
    expect(items("getInstances", "instances")).toEqual({
      $ref: "#/types/gpucloud:index:InstanceSummary",
    });
    expect(items("getTemplates", "templates")).toEqual({
      $ref: "#/types/gpucloud:index:TemplateSummary",
    });
    const offer = schema.types["gpucloud:index:InstanceOffer"];
    expect(offer?.description).toEqual(expect.stringContaining("getOffers"));
    expect(typeOf(offer?.properties["gpuName"])).toEqual({ type: "string" });
    expect(typeOf(offer?.properties["verified"])).toEqual({ type: "boolean" });
    // Nullable fields are optional: a typed SDK must be able to hold the null.
    expect(offer?.required).toEqual([
      "askId",
      "gpuName",
      "numGpus",
      "gpuRamMb",
      "gpuTotalRamMb",
      "dollarsPerHour",
    ]);
    expect(schema.types["gpucloud:index:InstanceSummary"]?.required).toEqual(["instanceId"]);
    expect(schema.types["gpucloud:index:TemplateSummary"]?.required).toEqual([
      "templateId",
      "env",
      "ports",
    ]);
    expect(schema.functions["gpucloud:index:getCurrentUser"]?.outputs.required).toEqual([
      "id",
      "email",
      "credit",
      "hasSshKey",
    ]);
    expect(schema.resources["gpucloud:index:Instance"]?.required).not.toContain("sshHost");
  });

  it("types every field the functions answer, and no other", () => {
    const fieldsOf = (token: string) =>
      Object.keys(schema.types[`gpucloud:index:${token}`]?.properties ?? {}).sort();
    const instanceOffer = instanceOfferSchema.parse({
      id: 1,
      gpu_name: "RTX 4090",
      num_gpus: 1,
      gpu_ram: 24564,
      dph_total: 0.35,
    });
    expect(Object.keys(instanceOffer).sort()).toEqual(fieldsOf("InstanceOffer"));
    const volumeOffer = volumeOfferSchema.parse({ id: 2, disk_space: 100 });
    expect(Object.keys(volumeOffer).sort()).toEqual(fieldsOf("VolumeOffer"));
    expect(Object.keys(instanceSummaryOf({ id: 3 })).sort()).toEqual(fieldsOf("InstanceSummary"));
    expect(Object.keys(templateSummaryOf({ id: 4 })).sort()).toEqual(fieldsOf("TemplateSummary"));
  });
});
