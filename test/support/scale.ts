import type { z } from "zod";
import type { InstanceOfferQuery } from "../../provider/client";
import type { instanceInputsSchema } from "../../provider/resources/instance";
import type { LoggedRequest } from "./emulator";

/**
 * Shared by the benchmark (`npm run bench`), the fault soak (`npm run soak`) and its short
 * version in the end-to-end tests: stacks of many resources, their programs, and counting what
 * they sent to the emulator. It runs both under Jest and compiled (the benchmark).
 */

// ---- Programs -----------------------------------------------------------------------------

/** How many of each of our resource types a stack holds. */
export interface Mix {
  readonly secrets: number;
  readonly webhooks: number;
  readonly volumes: number;
  readonly instances: number;
}

/**
 * The resources a mix's stack holds besides the mix: the stack itself, and the stack's instance
 * sweeper when the mix has instances (see provider/resources/instance-sweeper.ts).
 */
export function stackOverhead(mix: Mix | undefined): number {
  return 1 + (mix !== undefined && mix.instances > 0 ? 1 : 0);
}

export const mixTotal = (mix: Mix): number =>
  mix.secrets + mix.webhooks + mix.volumes + mix.instances;

/** The service allows this many webhooks per account (Webhook's check refuses a fifth). */
export const maxWebhooksPerAccount = 4;

/**
 * 20% volumes, 20% instances, 20% webhooks up to the service's four per account, the rest
 * secrets (40% while webhooks fit).
 */
export function mixFor(total: number): Mix {
  const fifth = Math.round(total * 0.2);
  const webhooks = Math.min(fifth, maxWebhooksPerAccount);
  return { secrets: total - 2 * fifth - webhooks, webhooks, volumes: fifth, instances: fifth };
}

/** Fields every instance of a program gets besides how it is rented, image and diskGb. */
export type InstanceOptions = Readonly<
  Pick<z.input<typeof instanceInputsSchema>, "pollIntervalSeconds" | "maxAttempts">
>;

/**
 * A program declaring `mix` of our resources: secrets `S_<n>`, webhooks on distinct URLs,
 * volumes and instances spread over the emulator's seeded asks.
 */
export function mixedProgram(mix: Mix, instance: InstanceOptions = {}): string {
  return `"use strict";\n${mixDeclarations(mix, instance)}`;
}

/**
 * The benchmark's middle stack: {@link mixedProgram}'s resources, declared through our own
 * classes with exactly the properties they register, but each handed a provider that does
 * nothing (create returns its inputs, with every other property the class registers as null;
 * the SDK's default read and delete). What it costs over the no-op floor is what the engine and
 * the SDK charge for our resources' properties; what ours cost over it is our provider's own
 * work (its start, its checks, its requests). Nothing is sent to any API.
 *
 * Like ours, each provider is stored in the state as a `require` of a module under
 * `node_modules` (the program writes one module per set of property names), never code:
 * otherwise its larger state alone would slow every step.
 */
export function shapesProgram(
  mix: Mix,
  instance: InstanceOptions = {},
  options: ShapesOptions = {},
): string {
  return `"use strict";
const fs = require("node:fs");
const path = require("node:path");
const pulumi = require("@pulumi/pulumi");
const shapes = path.join(__dirname, "node_modules", "gpucloud-bench-shapes");
fs.mkdirSync(shapes, { recursive: true });
fs.writeFileSync(
  path.join(shapes, "noop.js"),
  \`"use strict";
module.exports = (names) => ({
  async create(inputs) {
    const outs = Object.fromEntries(names.map((name) => [name, null]));
    return { id: "shape-" + Math.random().toString(36).slice(2), outs: { ...outs, ...inputs } };
  },
});
\`,
);
// One module per shape, whose exports are its provider: __provider requires it by name, as ours.
const providers = new Map();
function providerFor(names) {
  const key = names.join(",");
  if (!providers.has(key)) {
    const file = "shape-" + providers.size + ".js";
    fs.writeFileSync(path.join(shapes, file), 'module.exports = require("./noop.js")(' + JSON.stringify(names) + ");\\n");
    providers.set(key, "gpucloud-bench-shapes/" + file);
  }
  return providers.get(key);
}
${options.everyOutput ? everyOutputNames : "const everyOutput = () => ({});"}
// Each of our resources, as its class registers it, handed the no-op provider of its names
// instead of its own: a transformation, so that the classes are the package's as a user's
// program loads them (its bundled runtime).
const ours = "pulumi-nodejs:dynamic/gpucloud:";
const { providerSource } = require("pulumi-gpucloud/provider/shim");
pulumi.runtime.registerStackTransformation(({ type, props, opts }) => {
  if (!type.startsWith(ours)) return undefined;
  const { __provider, ...own } = props;
  const every = Object.fromEntries(
    (everyOutput()[type.slice(ours.length)] ?? []).map((field) => [field, undefined]),
  );
  const registered = { ...every, ...own };
  return { props: { ...registered, __provider: providerSource(providerFor(Object.keys(registered))) }, opts };
});
${mixDeclarations(mix, instance)}`;
}

/** How the shapes program declares our resources. */
export interface ShapesOptions {
  /**
   * Register every field of an Instance's and a Volume's outputs schema, inputs left out
   * included, as the classes did before they registered only the inputs given and what the
   * service reports: what those names cost the engine and the SDK (the bench's `every` stack).
   */
  readonly everyOutput?: boolean;
}

/**
 * The shapes program's table of every output name of the resources that register fewer, read
 * when the first resource is declared.
 */
const everyOutputNames = `let everyOutputTable;
const everyOutput = () =>
  (everyOutputTable ??= {
    Instance: Object.keys(
      require("pulumi-gpucloud/provider/renting/instance-inputs").instanceOutputsSchema.shape,
    ).filter((field) => !["owner", "stackToken", "replaceOnChanges"].includes(field)),
    Volume: Object.keys(
      require("pulumi-gpucloud/provider/resources/volume").volumeOutputsSchema.shape,
    ),
  });`;

function mixDeclarations(mix: Mix, instance: InstanceOptions): string {
  const instanceArgs = JSON.stringify({ pollIntervalSeconds: 0.05, ...instance });
  return `const gpucloud = require("pulumi-gpucloud");
const mix = ${JSON.stringify(mix)};
const instanceArgs = ${instanceArgs};
for (let n = 0; n < mix.secrets; n++) {
  new gpucloud.Secret("s" + n, { key: "S_" + n, value: "value-" + n });
}
for (let n = 0; n < mix.webhooks; n++) {
  new gpucloud.Webhook("w" + n, {
    url: "https://hooks.example.com/" + n,
    eventTypes: ["client:low_credit"],
  });
}
for (let n = 0; n < mix.volumes; n++) {
  new gpucloud.Volume("v" + n, { askId: 21001 + (n % 3) });
}
for (let n = 0; n < mix.instances; n++) {
  new gpucloud.Instance("i" + n, { askId: 31001 + (n % 4), image: "img", diskGb: 10, ...instanceArgs });
}
`;
}

/**
 * A program declaring `queries.length` instances `q<n>`, each rented by its `offerQuery` (the
 * best match its search answers) rather than a fixed ask: for an emulator with a market.
 */
export function byQueryProgram(
  queries: readonly (InstanceOfferQuery | string)[],
  instance: InstanceOptions = {},
): string {
  const instanceArgs = JSON.stringify({ pollIntervalSeconds: 0.05, ...instance });
  return `"use strict";
const gpucloud = require("pulumi-gpucloud");
const queries = ${JSON.stringify(queries)};
const instanceArgs = ${instanceArgs};
queries.forEach((offerQuery, n) => {
  new gpucloud.Instance("q" + n, { offerQuery, image: "img", diskGb: 10, ...instanceArgs });
});
`;
}

/**
 * The engine's floor: `count` dynamic resources whose provider does nothing but return its
 * inputs, so every cost left is Pulumi's own (engine, plugin, state).
 */
export function noopProgram(count: number): string {
  return `"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = {
  async create(inputs) {
    return { id: "noop-" + inputs.index, outs: inputs };
  },
};
for (let n = 0; n < ${count}; n++) {
  new pulumi.dynamic.Resource(provider, "n" + n, { index: n, value: "value-" + n });
}
`;
}

// ---- Requests -----------------------------------------------------------------------------

export type CreateKind = "secret" | "webhook" | "volume" | "instance";

/** A request's path without its query string and trailing slash: `/api/v0/asks/40001`. */
export const routeOf = (path: string): string => (path.split("?")[0] ?? "").replace(/\/+$/, "");

/** Which of our resources a request creates, by method and path, if any. */
export function createKind(
  request: Pick<LoggedRequest, "method" | "path">,
): CreateKind | undefined {
  const route = routeOf(request.path);
  if (request.method === "POST" && route === "/api/v0/secrets") return "secret";
  if (request.method === "POST" && route === "/api/v0/webhooks") return "webhook";
  if (request.method === "PUT" && route === "/api/v0/volumes") return "volume";
  if (request.method === "PUT" && /^\/api\/v0\/asks\/\d+$/.test(route)) return "instance";
  return undefined;
}

/** What an instance create by query sends, by kind (see `instanceRequestKind`). */
export const instanceRequestKinds = [
  "instanceList",
  "offerSearch",
  "create",
  "statusRead",
  "handOver",
  "destroy",
  "other",
] as const;
export type InstanceRequestKind = (typeof instanceRequestKinds)[number];

/**
 * The kind of a request an instance's life sends: the list looking for this stack's leftovers
 * of interrupted runs (filtered by label), an offer search, the create itself (POST or PUT on an
 * ask), a status read (a shared round's list of the instances waited on, filtered by id, or a
 * show by id), its hand-over (the relabel that ends its being-created label), its destroy, or
 * anything else (the user, for example).
 */
export function instanceRequestKind(
  request: Pick<LoggedRequest, "method" | "path">,
): InstanceRequestKind {
  const route = routeOf(request.path);
  if (request.method === "GET" && route === "/api/v1/instances") {
    return decodeURIComponent(request.path).includes('"label"') ? "instanceList" : "statusRead";
  }
  if (request.method === "POST" && route === "/api/v0/bundles") return "offerSearch";
  if (createKind(request) === "instance") return "create";
  if (request.method === "GET" && /^\/api\/v0\/instances\/\d+$/.test(route)) return "statusRead";
  if (request.method === "PUT" && /^\/api\/v0\/instances\/\d+$/.test(route)) return "handOver";
  if (request.method === "DELETE" && /^\/api\/v0\/instances\/\d+$/.test(route)) return "destroy";
  return "other";
}

/** Requests by `instanceRequestKind`; with `status`, only those the emulator answered so. */
export function countInstanceRequests(
  requests: readonly Pick<LoggedRequest, "method" | "path" | "status">[],
  status?: (code: number | null) => boolean,
): Record<InstanceRequestKind, number> {
  const counts = Object.fromEntries(instanceRequestKinds.map((kind) => [kind, 0])) as Record<
    InstanceRequestKind,
    number
  >;
  for (const request of requests) {
    if (status === undefined || status(request.status)) counts[instanceRequestKind(request)] += 1;
  }
  return counts;
}

const succeeded = (request: LoggedRequest): boolean =>
  request.status !== null && request.status >= 200 && request.status < 300;

/** Creates that the emulator answered with 2xx, by kind. */
export function successfulCreates(requests: readonly LoggedRequest[]): Record<CreateKind, number> {
  const counts: Record<CreateKind, number> = { secret: 0, webhook: 0, volume: 0, instance: 0 };
  for (const request of requests) {
    const kind = createKind(request);
    if (kind !== undefined && succeeded(request)) counts[kind] += 1;
  }
  return counts;
}

/** Instance deletes (DELETE /api/v0/instances/{id}/) that the emulator answered with 2xx. */
export function successfulInstanceDeletes(requests: readonly LoggedRequest[]): number {
  return requests.filter(
    (request) =>
      request.method === "DELETE" &&
      /^\/api\/v0\/instances\/\d+$/.test(routeOf(request.path)) &&
      succeeded(request),
  ).length;
}

export interface TrafficSummary {
  readonly requests: number;
  readonly gets: number;
  /** Answered 429 by an injected fault. */
  readonly tooManyRequests: number;
  /** Answered 5xx by an injected fault. */
  readonly serverErrors: number;
  /** Faulted requests that a later request with the same method and path followed. */
  readonly retriesObserved: number;
  /** Non-2xx answers that were not injected faults (404s of deletes and reads, for example). */
  readonly otherFailures: number;
}

export function summarizeTraffic(requests: readonly LoggedRequest[]): TrafficSummary {
  let tooManyRequests = 0;
  let serverErrors = 0;
  let retriesObserved = 0;
  let otherFailures = 0;
  // Walking backwards, `later` holds each method and path seen after the current request.
  const later = new Set<string>();
  for (let index = requests.length - 1; index >= 0; index--) {
    const request = requests[index];
    if (request === undefined) continue;
    const route = `${request.method} ${request.path}`;
    if (request.fault === "too_many_requests") tooManyRequests += 1;
    else if (request.fault === "server_error") serverErrors += 1;
    else if (!succeeded(request)) otherFailures += 1;
    if (request.fault !== undefined && later.has(route)) retriesObserved += 1;
    later.add(route);
  }
  return {
    requests: requests.length,
    gets: requests.filter((request) => request.method === "GET").length,
    tooManyRequests,
    serverErrors,
    retriesObserved,
    otherFailures,
  };
}
