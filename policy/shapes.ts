import { z } from "zod";

// The GPU resources of a plan, as the analyzer sees them. A TypeScript program's resources are
// dynamic ones typed `pulumi-nodejs:dynamic/gpucloud:<Kind>` (the classes name their module and
// type); a plain `pulumi-nodejs:dynamic:Resource` is one of ours when its `__provider` input, the
// provider's reference, requires `pulumi-gpucloud/dynamic/<name>` (or, in older states,
// `pulumi-gpucloud/provider/dynamic/<name>` or `.../provider/resources/<name>`; see
// provider/shim.ts). The plugin's resources (Python, Go, YAML) are typed `gpucloud:index:<Kind>`.
// All carry the same camelCase properties.

/** The resources the rules look at: those that rent GPUs by the hour. */
export type GpuKind = "Instance" | "NodeGroup";

/** A resource of the plan as @pulumi/policy gives it, unknown values included. */
export interface AnalyzedResource {
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  readonly props: Record<string, unknown>;
}

/**
 * What a value not known at preview is: the sentinels @pulumi/policy deserializes unknowns to (its
 * internal proxy module; test/unit/policy-rules.test.ts holds them against it).
 */
export const unknownSentinels: ReadonlySet<unknown> = new Set([
  "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7", // boolean
  "3eeb2bf0-c639-47a8-9e75-3b44932eb421", // number
  "04da6b54-80e4-46f7-96ec-b56ff0331ba9", // string
  "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2", // array
  "030794c1-ac77-496b-92df-f27374a8bd58", // asset
  "e48ece36-62e2-4504-bad9-02848725956a", // archive
  "dd056dcd-154b-4c76-9bd3-c8f88648b5ff", // object
]);

/** A value the plan does not know yet (it depends on another resource's outputs). */
export const unknown: unique symbol = Symbol("unknown at preview");
export type Unknown = typeof unknown;

export function isUnknown(value: unknown): value is Unknown {
  return value === unknown;
}

/**
 * The props as plain values, each unknown one (at any depth) replaced by `unknown`. @pulumi/policy
 * wraps props in a proxy that throws on reading an unknown value, which would turn a whole stack
 * policy advisory ("can't run during preview"): the rules read the proxy's target instead and
 * decide what an unknown means for each of them.
 */
export function plainProps(props: Record<string, unknown>): Record<string, unknown> {
  const target = props["__getSpecialProxyTarget"] ?? props;
  const walk = (value: unknown): unknown => {
    if (unknownSentinels.has(value)) return unknown;
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item)]));
    }
    return value;
  };
  return walk(target) as Record<string, unknown>;
}

/** A GPU resource of the plan, its props plain (see plainProps). */
export interface GpuResource {
  readonly kind: GpuKind;
  readonly name: string;
  readonly urn: string;
  readonly props: Record<string, unknown>;
}

const knownTypes: Readonly<Record<string, GpuKind>> = {
  "gpucloud:index:Instance": "Instance",
  "gpucloud:index:NodeGroup": "NodeGroup",
  "pulumi-nodejs:dynamic/gpucloud:Instance": "Instance",
  "pulumi-nodejs:dynamic/gpucloud:NodeGroup": "NodeGroup",
};
const dynamicModules: Readonly<Record<string, GpuKind>> = {
  instance: "Instance",
  "node-group": "NodeGroup",
};
// `instance` must not match `instance-sweeper`: the name ends where the module path does.
const dynamicEntry =
  /pulumi-gpucloud\/(?:dynamic|provider\/dynamic|provider\/resources)\/([a-z][a-z0-9-]*)(?![a-z0-9-])/;

/** The resource as a GPU resource, or undefined when it rents no GPU. */
export function gpuResourceOf(resource: AnalyzedResource): GpuResource | undefined {
  const props = plainProps(resource.props);
  let kind = knownTypes[resource.type];
  if (kind === undefined && resource.type === "pulumi-nodejs:dynamic:Resource") {
    const provider = props["__provider"];
    const module = typeof provider === "string" ? dynamicEntry.exec(provider)?.[1] : undefined;
    kind = module === undefined ? undefined : dynamicModules[module];
  }
  return kind === undefined ? undefined : { kind, name: resource.name, urn: resource.urn, props };
}

/** `Instance "trainer"`: how every message names the resource. */
export function shownName(resource: GpuResource): string {
  return `${resource.kind} "${resource.name}"`;
}

// ---- The fields the rules read ------------------------------------------------------------

const askIdsSchema = z.array(z.number());
const offerQuerySchema = z.union([z.string(), z.record(z.string(), z.unknown())]);
const recordedOfferSchema = z.looseObject({ dollarsPerHour: z.number().nullish() });

/** A field: its value when well-formed, `unknown` when not known at preview, else undefined. */
function field<T>(
  props: Record<string, unknown>,
  name: string,
  schema: z.ZodType<T>,
): T | Unknown | undefined {
  const value = props[name];
  if (isUnknown(value)) return unknown;
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The fields of an Instance or NodeGroup the rules read (NodeGroup has no asks nor bid). */
export interface GpuFields {
  readonly asks: readonly number[] | Unknown;
  readonly offerQuery: string | Record<string, unknown> | Unknown | undefined;
  readonly maxDollarsPerHour: number | Unknown | undefined;
  /** An Instance's bid: what it pays at most, interruptible. */
  readonly bid: number | Unknown | undefined;
  readonly maxLifetime: string | Unknown | undefined;
  /** How many instances it rents: a NodeGroup's nodeCount, else 1. */
  readonly count: number | Unknown | undefined;
  /**
   * The price the state recorded, in a stack policy (whose props are outputs): what is paid now.
   * A resource policy sees inputs only, never this.
   */
  readonly recordedDollarsPerHour: number | undefined;
}

export function gpuFields(resource: GpuResource): GpuFields {
  const { props } = resource;
  const askId = field(props, "askId", z.number());
  const askIds = field(props, "askIds", askIdsSchema);
  const asks: number[] | Unknown =
    isUnknown(askId) || isUnknown(askIds)
      ? unknown
      : (askIds ?? (askId === undefined ? [] : [askId]));
  const offer = field(props, "offer", recordedOfferSchema);
  const recorded = field(props, "dollarsPerHour", z.number());
  return {
    asks,
    offerQuery: field(props, "offerQuery", offerQuerySchema),
    maxDollarsPerHour: field(props, "maxDollarsPerHour", z.number()),
    bid: field(props, "price", z.number()),
    maxLifetime: field(props, "maxLifetime", z.string()),
    count: resource.kind === "NodeGroup" ? field(props, "nodeCount", z.number()) : 1,
    recordedDollarsPerHour: isUnknown(recorded)
      ? undefined
      : (recorded ?? (isUnknown(offer) ? undefined : (offer?.dollarsPerHour ?? undefined))),
  };
}
