import { readFileSync } from "node:fs";
import path from "node:path";
import { budgetConfig, configOf, noConfig, policyNames } from "../../policy/config";
import type { Market, OfferFacts } from "../../policy/market";
import type { InstanceOffer } from "../../provider/client";
import { priceOf } from "../../policy/pricing";
import {
  allowedGpuViolations,
  budgetViolations,
  lifetimeViolations,
  reliabilityViolations,
  verifiedViolations,
} from "../../policy/rules";
import {
  type AnalyzedResource,
  gpuFields,
  gpuResourceOf,
  type GpuResource,
  unknownSentinels,
} from "../../policy/shapes";

// The policy pack's rules on the resource shapes the analyzer hands it: a TypeScript program's
// dynamic resources and the plugin's typed ones. test/e2e/policy-pack.test.ts runs the pack
// under the real CLI.

const instanceEntry = 'exports.handler = require("pulumi-gpucloud/dynamic/instance");';

function dynamic(name: string, props: Record<string, unknown>, entry = instanceEntry) {
  return {
    type: "pulumi-nodejs:dynamic:Resource",
    name,
    urn: `urn:pulumi:test::p::pulumi-nodejs:dynamic:Resource::${name}`,
    props: { __provider: entry, ...props },
  } satisfies AnalyzedResource;
}

function gpu(resource: AnalyzedResource): GpuResource {
  const found = gpuResourceOf(resource);
  if (found === undefined) throw new Error(`${resource.name} is not a GPU resource`);
  return found;
}

const instance = (props: Record<string, unknown>, name = "trainer") =>
  gpu(dynamic(name, { image: "img", diskGb: 20, ...props }));
const group = (props: Record<string, unknown>, name = "cluster") =>
  gpu({
    type: "gpucloud:index:NodeGroup",
    name,
    urn: `urn:pulumi:test::p::gpucloud:index:NodeGroup::${name}`,
    props: { nodeCount: 2, image: "img", ...props },
  });

const offer = (askId: number, facts: Partial<OfferFacts> = {}): OfferFacts => ({
  askId,
  gpuName: "RTX 4090",
  dollarsPerHour: 0.5,
  reliability: 0.99,
  verified: true,
  ...facts,
});

describe("the pack's folder", () => {
  it("carries the package's version, which @pulumi/policy reports as the pack's", () => {
    const root = path.resolve(__dirname, "..", "..");
    const version = (file: string) =>
      (JSON.parse(readFileSync(path.join(root, file), "utf8")) as { version: string }).version;
    expect(version("policy/package.json")).toBe(version("package.json"));
  });
});

describe("the rules' config", () => {
  it("takes each rule's settings and its enforcement level, and refuses any other key", () => {
    const raw = { maxDollarsPerHour: 12.5, enforcementLevel: "advisory" };
    expect(configOf(policyNames.budget, budgetConfig, raw)).toEqual(raw);
    expect(configOf(policyNames.lifetime, noConfig, undefined)).toEqual({});
    const misspelt = () => configOf(policyNames.budget, budgetConfig, { maxDollarPerHour: 12.5 });
    const line =
      'policy pack config of gpucloud-stack-budget: no setting "maxDollarPerHour" ' +
      "(its settings: enforcementLevel, maxDollarsPerHour)";
    // @pulumi/policy prints a rule's error by its stack: that one line, no trace.
    let thrown: unknown;
    try {
      misspelt();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ message: line, stack: line });
  });
});

describe("which resources the policy pack looks at", () => {
  it("finds Instance and NodeGroup in both doors, and nothing else", () => {
    expect(gpuResourceOf(dynamic("a", {}))?.kind).toBe("Instance");
    const older = 'require("pulumi-gpucloud/provider/resources/node-group").provider';
    expect(gpuResourceOf(dynamic("b", {}, older))?.kind).toBe("NodeGroup");
    const sweeper = 'require("pulumi-gpucloud/dynamic/instance-sweeper")';
    expect(gpuResourceOf(dynamic("c", {}, sweeper))).toBeUndefined();
    const volume = 'require("pulumi-gpucloud/dynamic/volume")';
    expect(gpuResourceOf(dynamic("d", {}, volume))).toBeUndefined();
    const named = {
      type: "pulumi-nodejs:dynamic/gpucloud:NodeGroup",
      name: "f",
      urn: "u",
      props: {},
    };
    expect(gpuResourceOf(named)?.kind).toBe("NodeGroup");
    const sweeperType = "pulumi-nodejs:dynamic/gpucloud:InstanceSweeper";
    expect(gpuResourceOf({ ...named, type: sweeperType })).toBeUndefined();
    const plugin = { type: "gpucloud:index:Instance", name: "e", urn: "u", props: {} };
    expect(gpuResourceOf(plugin)?.kind).toBe("Instance");
    expect(gpuResourceOf({ ...plugin, type: "gpucloud:index:Volume" })).toBeUndefined();
  });

  it("reads values unknown at preview as unknown, with @pulumi/policy's sentinels", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const proxy = require("@pulumi/policy/proxy") as Record<string, unknown>;
    const theirs = Object.entries(proxy)
      .filter(([name]) => /^unknown[A-Z]\w*Value$/.test(name))
      .map(([, value]) => value);
    expect(new Set(theirs)).toEqual(unknownSentinels);
    const fields = gpuFields(instance({ askId: "3eeb2bf0-c639-47a8-9e75-3b44932eb421" }));
    expect(typeof fields.asks).toBe("symbol");
  });
});

describe("allowed GPU models", () => {
  const allowed = ["RTX 4090", "A100 PCIE"];

  it("passes a query naming allowed models, in either spelling", () => {
    expect(
      allowedGpuViolations(...args(instance({ offerQuery: { gpuName: "RTX 4090" } }))),
    ).toEqual([]);
    const either = instance({ offerQuery: { gpuName: { in: ["RTX 4090", "A100 PCIE"] } } });
    expect(allowedGpuViolations(...args(either))).toEqual([]);
    const text = instance({ offerQuery: "gpu_name=RTX_4090 num_gpus=1" });
    expect(allowedGpuViolations(...args(text))).toEqual([]);
  });

  it("refuses another model, or a query that allows any, in one line naming the resource and the fix", () => {
    const h100 = group({ offerQuery: { gpuName: "H100 SXM" } });
    expect(allowedGpuViolations(...args(h100))).toEqual([
      'NodeGroup "cluster": GPU model H100 SXM is not allowed (allowed: RTX 4090, A100 PCIE); ' +
        "set offerQuery.gpuName to an allowed model",
    ]);
    const any = instance({ offerQuery: { numGpus: 1 } });
    expect(allowedGpuViolations(...args(any))).toEqual([
      expect.stringMatching(
        /^Instance "trainer": offerQuery allows any GPU model.*set offerQuery\.gpuName/,
      ),
    ]);
  });

  it("checks an ask by the service's offer, and says so when it cannot", () => {
    const byAsk = instance({ askId: 7 });
    const facts = new Map([[7, offer(7, { gpuName: "H100 SXM" })]]);
    expect(allowedGpuViolations(...args(byAsk), facts)).toEqual([
      'Instance "trainer": ask 7 is a H100 SXM, not an allowed GPU model (allowed: RTX 4090, ' +
        "A100 PCIE); rent an ask of an allowed model",
    ]);
    expect(allowedGpuViolations(...args(byAsk), new Map([[7, offer(7)]]))).toEqual([]);
    expect(allowedGpuViolations(...args(byAsk))).toEqual([
      expect.stringContaining("give the policy pack GPUCLOUD_API_KEY and GPUCLOUD_BASE_URL"),
    ]);
    expect(
      allowedGpuViolations(...args(byAsk), { unavailable: "the offer search failed" }),
    ).toEqual([
      'Instance "trainer" rents ask 7, whose GPU model the policy pack cannot tell: the offer ' +
        "search failed; preview again, or rent by offerQuery",
    ]);
    expect(allowedGpuViolations(...args(byAsk), new Map())).toEqual([
      expect.stringContaining("rents ask 7, which the service does not list"),
    ]);
  });

  function args(resource: GpuResource) {
    return [resource, gpuFields(resource), allowed] as const;
  }
});

describe("minimum reliability, verified hosts, lifetime", () => {
  const check = (props: Record<string, unknown>) => {
    const resource = instance(props);
    return reliabilityViolations(resource, gpuFields(resource), 0.98, undefined);
  };

  it("wants the query's reliability bounded at or above the minimum", () => {
    expect(check({ offerQuery: { reliability: { gte: 0.99 } } })).toEqual([]);
    expect(check({ offerQuery: "reliability>=0.98" })).toEqual([]);
    expect(check({ offerQuery: { reliability: { gte: 0.9 } } })).toEqual([
      'Instance "trainer": offerQuery admits reliability 0.9, under the minimum 0.98; set ' +
        "offerQuery.reliability to { gte: 0.98 } or more",
    ]);
    expect(check({ offerQuery: { gpuName: "RTX 4090" } })).toEqual([
      expect.stringContaining("sets no reliability bound"),
    ]);
  });

  it("wants verified hosts: the query's default, or true", () => {
    const verified = (props: Record<string, unknown>) => {
      const resource = instance(props);
      return verifiedViolations(resource, gpuFields(resource), undefined);
    };
    expect(verified({ offerQuery: { gpuName: "RTX 4090" } })).toEqual([]);
    expect(verified({ offerQuery: { verified: true } })).toEqual([]);
    expect(verified({ offerQuery: { verified: false } })).toEqual([
      'Instance "trainer": offerQuery admits unverified hosts (verified hosts only); remove ' +
        "offerQuery.verified or set it to true",
    ]);
    expect(verified({ offerQuery: "verified=False" })).toHaveLength(1);
    expect(verified({ offerQuery: { verified: { in: [true, false] } } })).toHaveLength(1);
  });

  it("wants a maxLifetime on every Instance and NodeGroup", () => {
    const bare = group({ offerQuery: {} });
    expect(lifetimeViolations(bare, gpuFields(bare))).toEqual([
      'NodeGroup "cluster" has no maxLifetime (a lifetime is required on every NodeGroup); set ' +
        'maxLifetime, e.g. "8h", so that it stops billing when forgotten',
    ]);
    const kept = instance({ askId: 1, maxLifetime: "8h" });
    expect(lifetimeViolations(kept, gpuFields(kept))).toEqual([]);
  });
});

describe("the stack budget", () => {
  // The service's offers as the provider's pricing reads them (storage included at 8 GB).
  const market = (offers: OfferFacts[], machines: Record<number, number> = {}): Market => ({
    askOffers: (asks) =>
      Promise.resolve(
        new Map(offers.filter((o) => asks.includes(o.askId)).map((o) => [o.askId, o])),
      ),
    reads: {
      asks: (asks) =>
        Promise.resolve(
          offers
            .filter((o) => asks.includes(o.askId))
            .map((o) => ({
              id: o.askId,
              gpu_name: o.gpuName,
              num_gpus: 1,
              gpu_ram: 24_000,
              dph_total: o.dollarsPerHour,
            })),
        ),
      instances: () =>
        Promise.resolve({
          offers: offers.map(
            (o) =>
              ({ ...o, storageCostPerGbMonth: null, clusterId: 1 }) as unknown as InstanceOffer,
          ),
          rejected: [],
        }),
      volumes: () => Promise.resolve(undefined),
    },
    volumeMachine: (volumeId) => Promise.resolve(machines[volumeId]),
    close: () => Promise.resolve(),
  });
  const price = (resource: GpuResource, using?: Market) =>
    priceOf(resource, gpuFields(resource), using);

  it("prices what the state recorded, a bid, an ask, a query's first offer or its cap", async () => {
    const recorded = instance({
      askId: 1,
      offer: { askId: 1, gpuName: "x", dollarsPerHour: 1.25 },
    });
    expect(await price(recorded)).toEqual({
      dollarsPerHour: 1.25,
      basis: "the rented offer's $1.25/h",
    });
    expect(
      await price(instance({ askId: 1, dollarsPerHour: 2, offer: { dollarsPerHour: 1 } })),
    ).toEqual({ dollarsPerHour: 2, basis: "as recorded" });
    // A deployed group at what its nodes are rented for, as the provider reads its state.
    const nodes3 = [{ dollarsPerHour: 2.4 }, { dollarsPerHour: 2.4 }, { dollarsPerHour: 2.4 }];
    const deployed = group({ offerQuery: {}, nodeCount: 3, dollarsPerHour: 7.2, nodes: nodes3 });
    expect(await price(deployed)).toEqual({ dollarsPerHour: 7.2, basis: "3 nodes: as recorded" });
    expect(await price(instance({ askId: 1, price: 0.3 }))).toEqual({
      dollarsPerHour: 0.3,
      basis: "its bid",
    });
    // The first ask on offer, as create rents it.
    const asks = instance({ askIds: [1, 2], diskGb: 8 });
    expect(await price(asks, market([offer(1), offer(2, { dollarsPerHour: 0.8 })]))).toEqual({
      dollarsPerHour: 0.5,
      basis: "ask 1 at $0.50/h + 8 GB disk at $0.00/GB-month (the first of askIds on offer)",
    });
    const nodes = group({ offerQuery: { gpuName: "RTX 4090" }, maxDollarsPerHour: 3, diskGb: 8 });
    expect(
      await price(
        nodes,
        market([offer(9, { dollarsPerHour: 1.5 }), offer(8, { dollarsPerHour: 1 })]),
      ),
    ).toEqual({
      dollarsPerHour: 2.5,
      basis: "2 nodes ($1.50 + $1.00) in cluster 1, 8 GB disk each",
    });
    expect(await price(nodes)).toEqual({ dollarsPerHour: 6, basis: "2 × its cap" });
  });

  it("prices an instance on its volume's machine", async () => {
    const onVolume = instance({
      offerQuery: { gpuName: "RTX 4090" },
      volume: { volumeId: 5, mountPath: "/data" },
      diskGb: 8,
    });
    const found = await price(onVolume, market([offer(1)], { 5: 70 }));
    expect(found).toMatchObject({ dollarsPerHour: 0.5 });
    expect("basis" in found ? found.basis : "").toContain("on machine 70 (where volume V.5 lives)");
  });

  it("cannot bound an ask without the service, nor a query with neither offers nor a cap", async () => {
    const why = async (resource: GpuResource) => {
      const found = await price(resource);
      return "unbounded" in found ? found.unbounded : `priced ${found.dollarsPerHour}`;
    };
    expect(await why(instance({ askId: 1 }))).toContain("GPUCLOUD_API_KEY");
    expect(await why(instance({ offerQuery: { gpuName: "RTX 4090" } }))).toContain(
      "no maxDollarsPerHour",
    );
    expect(await price(instance({ askId: 4 }), market([]))).toEqual({
      unbounded: "the service does not list its ask (ask 4 not on offer now: not priced)",
    });
    const down: Market = {
      ...market([]),
      reads: {
        asks: () => Promise.reject(new Error("503")),
        instances: () => Promise.reject(new Error("503")),
        volumes: () => Promise.reject(new Error("503")),
      },
    };
    expect(await price(instance({ askId: 4 }), down)).toEqual({
      unbounded: "the offer search failed and no maxDollarsPerHour",
    });
    const capped = instance({ offerQuery: { gpuName: "RTX 4090" }, maxDollarsPerHour: 0.7 });
    expect(await price(capped, down)).toEqual({ dollarsPerHour: 0.7, basis: "its cap" });
  });

  it("reports the total over budget with the dearest parts, and each unbounded resource", () => {
    const a = instance({}, "a");
    const b = group({}, "b");
    const violations = budgetViolations(
      [
        { resource: a, price: { dollarsPerHour: 2, basis: "ask 1" } },
        { resource: b, price: { dollarsPerHour: 9, basis: "2 × its cap" } },
        { resource: instance({}, "c"), price: { unbounded: "no offer search" } },
      ],
      10,
    );
    expect(violations).toEqual([
      {
        urn: "urn:pulumi:test::p::pulumi-nodejs:dynamic:Resource::c",
        message:
          'Instance "c": its price cannot be bounded (no offer search), so the stack budget of ' +
          "$10.00/hour cannot be checked; set maxDollarsPerHour on it",
      },
      {
        message:
          'the plan costs $11.00/hour, over the stack budget of $10.00/hour: NodeGroup "b" ' +
          '$9.00/hour (2 × its cap), Instance "a" $2.00/hour (ask 1); rent fewer or cheaper ' +
          "GPUs (maxDollarsPerHour), or raise the budget in the policy pack config",
      },
    ]);
    expect(
      budgetViolations([{ resource: a, price: { dollarsPerHour: 10, basis: "x" } }], 10),
    ).toEqual([]);
  });
});
