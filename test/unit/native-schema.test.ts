import * as pulumi from "@pulumi/pulumi";
import * as gpucloud from "../../provider";
import { chargeRowSchema, invoiceRowSchema } from "../../provider/client/billing";
import { chargeSummaryOf, invoiceSummaryOf } from "../../provider/client/charge-summaries";
import { instanceSummaryOf } from "../../provider/client/instance-summaries";
import {
  instanceOfferQuerySchema,
  volumeOfferQuerySchema,
} from "../../provider/client/offer-query-language";
import { instanceOfferSchema, volumeOfferSchema } from "../../provider/client/offer-schemas";
import { templateSummaryOf } from "../../provider/client/templates";
import { nativeFunctions } from "../../provider/native/functions";
import { nativeResources } from "../../provider/native/resources";
import {
  packageSchema,
  type PackageSpec,
  type PropertySpec,
  secretOutputs,
  type TypeSpec,
} from "../../provider/native/schema";
import { templateInputsSchema } from "../../provider/resources/template/inputs";
import { searchQueryOf } from "../../provider/resources/worker-group/diff";
import { Run } from "../../provider/run/run";

/** A property's type alone, without its description or what a change of it does. */
const typeOf = (
  property: PropertySpec | undefined,
): Omit<PropertySpec, "description" | "willReplaceOnChanges" | "language"> | undefined => {
  if (property === undefined) return undefined;
  const {
    description: _description,
    willReplaceOnChanges: _willReplaceOnChanges,
    language: _language,
    ...type
  } = property;
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
    // And the stack's sweeper, an overlay: the SDKs declare it, YAML programs by hand.
    expect(Object.keys(schema.resources).sort()).toEqual(
      [...classes, "InstanceSweeper"].map((name) => `gpucloud:index:${name}`).sort(),
    );
    expect(schema.resources["gpucloud:index:InstanceSweeper"]).toMatchObject({
      isOverlay: true,
      inputProperties: {},
    });
    expect(nativeResources.map((resource) => resource.type).sort()).toEqual(classes.sort());
  });

  it("serves every function of the package", () => {
    const functions = ["getOffers", "getVolumeOffers", "getCurrentUser", "cancelRsyncCopy"];
    for (const name of ["getTemplates", "getInstances", "getCharges", "getInvoices"]) {
      if (name in gpucloud) functions.push(name);
    }
    expect(Object.keys(schema.functions).sort()).toEqual(
      functions.map((name) => `gpucloud:index:${name}`).sort(),
    );
    expect(nativeFunctions).toHaveLength(functions.length);
  });

  it("marks the provider's apiKey secret, and baseUrl and serverlessUrl plain", () => {
    expect(schema.config.variables["apiKey"]).toMatchObject({ type: "string", secret: true });
    expect(schema.config.variables["baseUrl"]).toMatchObject({ type: "string" });
    expect(schema.config.variables["baseUrl"]?.secret).toBeUndefined();
    expect(schema.config.variables["serverlessUrl"]).toMatchObject({ type: "string" });
    expect(schema.config.variables["serverlessUrl"]?.secret).toBeUndefined();
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
    ["Endpoint", ["apiKey"], []],
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
    // A function that answers nothing has no outputs: its SDK functions return nothing (Go's
    // an error alone), rather than a map they would take one value out of.
    expect(schema.functions["gpucloud:index:cancelRsyncCopy"]).not.toHaveProperty("outputs");
    // A transform's output has no JSON form: the input side types it.
    expect(typeOf(schema.resources["gpucloud:index:Secret"]?.properties["key"])).toEqual({
      type: "string",
    });
    // Every reference resolves.
    const refs = JSON.stringify(schema).match(/#\/types\/[^"]+/g) ?? [];
    for (const ref of refs) expect(schema.types[ref.slice("#/types/".length)]).toBeDefined();
  });

  it("types every offer query input as the query language's object or a string", () => {
    const query = (token: string) => ({
      oneOf: [{ type: "string" }, { $ref: `#/types/gpucloud:index:${token}` }],
    });
    const inputs = (resource: string) =>
      schema.resources[`gpucloud:index:${resource}`]?.inputProperties ?? {};
    for (const resource of ["Instance", "NodeGroup", "WorkerGroup"]) {
      expect({ resource, type: typeOf(inputs(resource)["offerQuery"]) }).toEqual({
        resource,
        type: query("OfferQuery"),
      });
    }
    expect(typeOf(inputs("Volume")["volumeOfferQuery"])).toEqual(query("VolumeOfferQuery"));
    expect(typeOf(inputs("NetworkVolume")["offerQuery"])).toEqual(query("VolumeOfferQuery"));
    expect(
      typeOf(schema.types["gpucloud:index:VolumeForInstance"]?.properties["offerQuery"]),
    ).toEqual(query("OfferQuery"));
    expect(
      typeOf(schema.functions["gpucloud:index:getOffers"]?.inputs.properties["query"]),
    ).toEqual(query("OfferQuery"));
    expect(
      typeOf(schema.functions["gpucloud:index:getVolumeOffers"]?.inputs.properties["query"]),
    ).toEqual(query("VolumeOfferQuery"));
    // One property per field of the query language, each a value or a named condition object.
    const offerQuery = schema.types["gpucloud:index:OfferQuery"]?.properties ?? {};
    expect(Object.keys(offerQuery).sort()).toEqual(
      Object.keys(instanceOfferQuerySchema.shape).sort(),
    );
    expect(typeOf(offerQuery["gpuRamGb"])).toEqual({
      oneOf: [{ type: "number" }, { $ref: "#/types/gpucloud:index:QueryNumber" }],
    });
    expect(typeOf(offerQuery["gpuName"])).toEqual({
      oneOf: [{ type: "string" }, { $ref: "#/types/gpucloud:index:QueryText" }],
    });
    expect(typeOf(offerQuery["verified"])).toEqual({
      oneOf: [{ type: "boolean" }, { $ref: "#/types/gpucloud:index:QueryBoolean" }],
    });
    expect(typeOf(offerQuery["limit"])).toEqual({ type: "integer" });
    const volumeQuery = schema.types["gpucloud:index:VolumeOfferQuery"]?.properties ?? {};
    expect(Object.keys(volumeQuery).sort()).toEqual(
      Object.keys(volumeOfferQuerySchema.shape).sort(),
    );
    expect(Object.keys(schema.types["gpucloud:index:QueryNumber"]?.properties ?? {})).toEqual([
      "eq",
      "neq",
      "gt",
      "gte",
      "lt",
      "lte",
      "in",
      "notin",
    ]);
    expect(Object.keys(schema.types["gpucloud:index:QueryText"]?.properties ?? {})).toContain("in");
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
      check(`${token} result`, fn.outputs?.properties ?? {});
    }
    check("config", schema.config.variables);
    expect(undescribed).toEqual([]);
    expect(checked).toBeGreaterThan(250);
  });

  it("types the functions' lists with named object types", () => {
    const items = (fn: string, list: string) =>
      schema.functions[`gpucloud:index:${fn}`]?.outputs?.properties[list]?.items;
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
    expect(items("getCharges", "charges")).toEqual({
      $ref: "#/types/gpucloud:index:ChargeSummary",
    });
    expect(schema.types["gpucloud:index:ChargeSummary"]?.properties["items"]?.items).toEqual({
      $ref: "#/types/gpucloud:index:ChargeItem",
    });
    expect(items("getInvoices", "invoices")).toEqual({
      $ref: "#/types/gpucloud:index:InvoiceSummary",
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
    expect(schema.functions["gpucloud:index:getCurrentUser"]?.outputs?.required).toEqual([
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
    const charge = chargeSummaryOf(
      chargeRowSchema.parse({
        start: 86_400,
        end: 86_400,
        type: "instance",
        source: "instance-5",
        amount: 1,
        items: [{ start: 86_400, end: 86_400, type: "gpu", amount: 1 }],
      }),
    );
    expect(Object.keys(charge).sort()).toEqual(fieldsOf("ChargeSummary"));
    expect(Object.keys(charge.items[0] ?? {}).sort()).toEqual(fieldsOf("ChargeItem"));
    const invoice = invoiceSummaryOf(
      invoiceRowSchema.parse({ start: 86_400, end: null, type: "credit", amount: -5 }),
    );
    expect(Object.keys(invoice ?? {}).sort()).toEqual(fieldsOf("InvoiceSummary"));
  });
});

// ---- What a change of an input does: the schema's marks against the diff rules ------------

/** A recorded resource (its outputs), and changes of one input each, beyond the generic one. */
interface Recorded {
  olds: Record<string, unknown>;
  /** Values of one input to try instead of (for "sometimes" inputs: besides) the generic change. */
  changes?: Record<string, unknown[]>;
}

const instanceRecorded = {
  image: "img",
  diskGb: 20,
  runtype: "ssh",
  state: "running",
  createTimeoutSeconds: 1200,
  maxAttempts: 3,
  pollIntervalSeconds: 3,
  instanceId: 7,
  actualStatus: "running",
  sshHost: null,
  sshPort: null,
  publicIp: null,
  gpuRamMb: null,
  statusMessage: null,
  attempts: [{ askId: 31001, instanceId: 7 }],
};

/** The offer an instance by query was rented on, as the search answered it. */
const rentedOffer = {
  askId: 31001,
  gpuName: "RTX 4090",
  numGpus: 1,
  dollarsPerHour: 0.5,
  machineId: 9,
  verified: true,
  rentable: true,
  rented: false,
  external: false,
};

/**
 * Recorded resources of every type: each input is changed alone, from each of its type's
 * recordings that has it or leaves it out. An input marked "sometimes" needs changes that
 * replace and changes that do not.
 */
const recordings: Record<string, Recorded[]> = {
  Secret: [{ olds: { key: "API_TOKEN", value: "v1" } }],
  Volume: [
    { olds: { askId: 1, sizeGb: 15, volumeName: "V.5", volumeId: 5 } },
    {
      olds: {
        volumeOfferQuery: { geolocation: "US" },
        sizeGb: 15,
        volumeName: "V.5",
        volumeId: 5,
        offer: { askId: 1, diskSpaceGb: 100, geolocation: "US", reliability: 0.99 },
      },
      changes: {
        volumeOfferQuery: [{ geolocation: "US", reliability: { gte: 0.9 } }, { geolocation: "CA" }],
      },
    },
  ],
  Webhook: [
    {
      olds: {
        url: "https://a.example/",
        eventTypes: ["client:low_credit"],
        name: "n",
        webhookId: 1,
        webhookSecret: "s",
      },
    },
  ],
  SshKey: [
    {
      olds: {
        publicKey: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 a",
        sshKeyId: 1,
        fingerprint: "SHA256:x",
      },
    },
  ],
  ApiKey: [
    {
      olds: { name: "ci", permissions: { api: { instance_read: {} } }, apiKeyId: 3, key: "k" },
    },
  ],
  Template: [
    {
      olds: {
        ...templateDefaults(),
        name: "vllm",
        image: "vllm/vllm-openai",
        templateId: 1,
        hashId: "a".repeat(32),
      },
    },
  ],
  Endpoint: [
    {
      olds: {
        endpointName: "e",
        minLoad: 10,
        targetUtil: 0.9,
        coldMult: 2.5,
        coldWorkers: 5,
        maxWorkers: 20,
        deleteTimeoutSeconds: 600,
        endpointId: 4,
      },
    },
  ],
  WorkerGroup: [
    {
      olds: {
        endpointId: 1,
        minLoad: 1,
        targetUtil: 0.9,
        coldMult: 3,
        testWorkers: 3,
        gpuRamGb: 24,
        deleteTimeoutSeconds: 600,
        workerGroupId: 2,
        searchQuery: searchQueryOf(undefined),
      },
    },
  ],
  NodeGroup: [
    {
      olds: {
        nodeCount: 2,
        offerQuery: { gpuName: "H100 SXM" },
        image: "img",
        diskGb: 40,
        createTimeoutSeconds: 1200,
        pollIntervalSeconds: 3,
        clusterId: 102,
        overlayName: "trainers-0123456789-abcdef",
        overlayId: 1,
        subnet: "10.100.0.0/24",
        masterAddr: "10.100.0.1",
        networkVolumeId: null,
        nodes: [0, 1].map((rank) => ({
          rank,
          instanceId: 1000 + rank,
          askId: 40000 + rank,
          machineId: 500 + rank,
          sshHost: "ssh1",
          sshPort: 20000 + rank,
          localIp: `10.100.0.${String(rank + 1)}`,
          actualStatus: "running",
        })),
      },
      // Fewer nodes: in place. More than the cluster holds replaces, which only the service can
      // say (the diff searches the cluster's offers): test/contract/node-groups.test.ts.
      changes: {
        nodeCount: [1],
        maxLifetime: ["8h"],
        onExpiry: ["stop"],
      },
    },
    // With a lifetime: another duration replaces, the same one written otherwise does not.
    {
      olds: {
        nodeCount: 2,
        offerQuery: { gpuName: "H100 SXM" },
        image: "img",
        diskGb: 40,
        createTimeoutSeconds: 1200,
        pollIntervalSeconds: 3,
        maxLifetime: "3d",
        idleShutdown: { after: "30m" },
        clusterId: 102,
        overlayName: "trainers-0123456789-abcdef",
        overlayId: 1,
        subnet: "10.100.0.0/24",
        masterAddr: "10.100.0.1",
        networkVolumeId: null,
        nodes: [0, 1].map((rank) => ({
          rank,
          instanceId: 1000 + rank,
          askId: 40000 + rank,
          machineId: 500 + rank,
          sshHost: "ssh1",
          sshPort: 20000 + rank,
          localIp: `10.100.0.${String(rank + 1)}`,
          actualStatus: "running",
          expiresAt: "2999-01-01T00:00:00Z",
        })),
        expiresAt: "2999-01-01T00:00:00Z",
      },
      changes: {
        nodeCount: [1],
        maxLifetime: ["72h", "4d"],
        onExpiry: ["destroy", "stop"],
        // Another idle rule replaces (each node's onstart holds it); the same one written
        // otherwise does not.
        idleShutdown: [{ after: "1800s", action: "destroy" }, { after: "1h" }],
      },
    },
  ],
  Overlay: [
    {
      olds: {
        clusterId: 7,
        name: "train-net",
        overlayId: 1,
        subnet: "10.100.0.0/24",
        instanceIds: [],
      },
    },
  ],
  NetworkVolume: [
    {
      olds: {
        askId: 25001,
        sizeGb: 100,
        name: "data",
        volumeId: 5001,
        volumeName: "V.5001",
        clusterId: 7,
        offerAskId: 25001,
      },
    },
    // By query: kept while its offer matches the query.
    {
      olds: {
        offerQuery: { clusterId: 7 },
        sizeGb: 100,
        volumeId: 5001,
        volumeName: "V.5001",
        clusterId: 7,
        offerAskId: 25001,
        offer: { askId: 25001, diskSpaceGb: 1000, clusterId: 7, storageCostPerGbMonth: 0.12 },
      },
      changes: {
        offerQuery: [{ clusterId: 7, storageCostPerGbMonth: { lte: 1 } }, { clusterId: 101 }],
      },
    },
  ],
  Instance: [
    // Rented from an ask: a new list keeps it while the list still holds that ask.
    {
      olds: { ...instanceRecorded, askId: 31001 },
      changes: { askIds: [[31001, 31002], [31002]] },
    },
    // On demand: adding a bid replaces; interruptible: a new bid does not.
    { olds: { ...instanceRecorded, askId: 31001 }, changes: { price: [0.5] } },
    { olds: { ...instanceRecorded, askId: 31001, price: 0.2 }, changes: { price: [0.3] } },
    // By query: kept while its offer matches the query and the price cap.
    {
      olds: {
        ...instanceRecorded,
        offerQuery: { gpuName: "RTX 4090" },
        maxDollarsPerHour: 1,
        offer: rentedOffer,
      },
      changes: {
        offerQuery: [{ gpuName: "RTX 4090", numGpus: 1 }, { gpuName: "RTX 3090" }],
        maxDollarsPerHour: [2, 0.4],
      },
    },
    // With a lifetime: another duration or onExpiry replaces (the deadline is in the onstart);
    // the same duration written otherwise, or the default written out, does not.
    {
      olds: {
        ...instanceRecorded,
        askId: 31001,
        maxLifetime: "8h",
        expiresAt: "2999-01-01T00:00:00Z",
      },
      changes: {
        maxLifetime: ["480m", "9h"],
        onExpiry: ["destroy", "stop"],
        // A new idle rule, added or changed, rebuilds the container in place.
        idleShutdown: [{ after: "30m" }, { after: "2h", action: "stop" }],
      },
    },
    // A VM: what runs replaces it (the service rebuilds containers in place, not VMs).
    { olds: { ...instanceRecorded, askId: 31001, runtype: "vm" } },
  ],
};

/** A template's recorded inputs at their defaults (the zod definition's). */
function templateDefaults(): Record<string, unknown> {
  return templateInputsSchema.partial({ name: true, image: true }).parse({});
}

/**
 * Another value of the same type, for an input a recording leaves as `old`: whatever the value,
 * a "yes" input replaces and a "no" input does not.
 */
function anotherValue(spec: PackageSpec, property: PropertySpec | TypeSpec, old: unknown): unknown {
  const ref = property.$ref?.replace("#/types/", "");
  const type = ref === undefined ? undefined : spec.types[ref];
  if (type !== undefined) {
    const required = type.required ?? [];
    const fresh = Object.fromEntries(
      Object.entries(type.properties)
        .filter(([name]) => required.includes(name))
        .map(([name, inner]) => [name, anotherValue(spec, inner, undefined)]),
    );
    return JSON.stringify(fresh) === JSON.stringify(old) ? { ...fresh, changed: 1 } : fresh;
  }
  // A query (a string or the query language's object): an empty one, or a field more.
  if (property.oneOf?.some((option) => /Query$/.test(option.$ref ?? "")) === true) {
    return old === undefined ? {} : { ...(old as object), numGpus: 1 };
  }
  if (property.oneOf?.[0] !== undefined) return anotherValue(spec, property.oneOf[0], old);
  switch (property.type) {
    case "string":
      return typeof old === "string" ? `${old}-changed` : "changed";
    case "integer":
    case "number":
      return typeof old === "number" ? old + 1 : 1;
    case "boolean":
      return old !== true;
    case "array":
      return [
        ...(Array.isArray(old) ? (old as unknown[]) : []),
        anotherValue(spec, property.items ?? {}, undefined),
      ];
    case "object":
      return { ...(typeof old === "object" ? old : {}), CHANGED: "x" };
    default:
      return old === undefined ? {} : { ...(old as object), changed: 1 };
  }
}

/** Inputs whose change replaces only when the service says so (a diff's search). */
const serviceDecides: Record<string, readonly string[]> = { NodeGroup: ["nodeCount"] };

describe("the schema's marks of what a change does", () => {
  const schema = packageSchema("1.2.3");
  type Outcome = "replaces" | "in place";
  /** A run with no configuration: a diff that would ask the service decides without it. */
  const run = new Run();

  /** What each change of each input of a type does, by the diff's own answer. */
  async function outcomesOf(type: string): Promise<Map<string, Set<Outcome>>> {
    const native = nativeResources.find((resource) => resource.type === type);
    const spec = schema.resources[`gpucloud:index:${type}`];
    if (native === undefined || spec === undefined) throw new Error(`no ${type}`);
    const outcomes = new Map<string, Set<Outcome>>();
    for (const { olds, changes = {} } of recordings[type] ?? []) {
      const news = Object.fromEntries(
        Object.keys(spec.inputProperties)
          .filter((field) => field in olds)
          .map((field) => [field, olds[field]]),
      );
      // The recording itself is no change: what follows is each input's alone.
      expect(await native.implementation.diff(run, "id", olds, news)).toMatchObject({
        changes: false,
      });
      for (const [field, property] of Object.entries(spec.inputProperties)) {
        const values = changes[field] ?? [anotherValue(schema, property, news[field])];
        for (const value of values) {
          const result = await native.implementation.diff(run, "id", olds, {
            ...news,
            [field]: value,
          });
          // Each value is a change, or the case says nothing.
          expect({ field, value, changes: result.changes }).toEqual({
            field,
            value,
            changes: true,
          });
          const outcome: Outcome = (result.replaces ?? []).length > 0 ? "replaces" : "in place";
          outcomes.set(field, new Set([...(outcomes.get(field) ?? []), outcome]));
        }
      }
    }
    return outcomes;
  }

  it.each(nativeResources.map((resource) => resource.type))(
    "%s: yes (willReplaceOnChanges) when every change replaces, sometimes when some do, no when none",
    async (type) => {
      const spec = schema.resources[`gpucloud:index:${type}`];
      const outcomes = await outcomesOf(type);
      const marked = Object.entries(spec?.inputProperties ?? {}).map(([field, property]) => [
        field,
        property.willReplaceOnChanges === true
          ? ["replaces"]
          : property.language?.docs.replacement === "sometimes"
            ? ["in place", "replaces"]
            : ["in place"],
      ]);
      const observed = Object.keys(spec?.inputProperties ?? {}).map((field) => [
        field,
        // Replacements only the service can decide are shown by the contract tests.
        serviceDecides[type]?.includes(field) === true
          ? ["in place", "replaces"]
          : [...(outcomes.get(field) ?? [])].sort(),
      ]);
      expect(Object.fromEntries(observed)).toEqual(Object.fromEntries(marked));
    },
  );

  it("marks only resources' inputs, never outputs, nested types or functions", () => {
    const marked = (properties: Record<string, PropertySpec>) =>
      Object.values(properties).filter(
        (property) =>
          property.willReplaceOnChanges !== undefined || property.language !== undefined,
      );
    for (const resource of Object.values(schema.resources)) {
      expect(marked(resource.properties)).toEqual([]);
    }
    for (const type of Object.values(schema.types)) expect(marked(type.properties)).toEqual([]);
    for (const fn of Object.values(schema.functions)) {
      expect(marked({ ...fn.inputs.properties, ...fn.outputs?.properties })).toEqual([]);
    }
    // A secret's value is optional in the schema for `pulumi import` alone.
    expect(schema.resources["gpucloud:index:Secret"]?.inputProperties["value"]?.language).toEqual({
      docs: { requiredToCreate: true },
    });
  });
});
