import {
  type EnforcementLevel,
  PolicyPack,
  type ResourceValidationArgs,
  type ReportViolation,
} from "@pulumi/policy";
import {
  budgetConfig,
  configOf,
  gpusConfig,
  noConfig,
  policyNames,
  reliabilityConfig,
} from "./config";
import { type Market, marketFromEnv } from "./market";
import { priceOf } from "./pricing";
import {
  allowedGpuViolations,
  type AskFacts,
  budgetViolations,
  lifetimeViolations,
  reliabilityViolations,
  verifiedViolations,
} from "./rules";
import { type GpuFields, gpuFields, gpuResourceOf, type GpuResource, isUnknown } from "./shapes";

// The GPU spend policy pack (docs/guides/policy.md): `pulumi preview --policy-pack <pack>
// --policy-pack-config <file>`. The budget and the allowed GPU models are mandatory unless the
// config says otherwise (`enforcementLevel`); the other rules advise. A rule whose setting the
// config leaves out (no budget, no allowed models, no minimum) does not apply.

/** The resource's GPU facts, when the policy pack looks at it at all. */
function gpuOf(args: ResourceValidationArgs): GpuResource | undefined {
  return gpuResourceOf({ type: args.type, name: args.name, urn: args.urn, props: args.props });
}

/**
 * What the service says of the resource's explicit asks, when it rents by ask and the pack has
 * credentials; undefined otherwise (the rules then say they cannot tell). Asked once per rule.
 */
async function askFactsOf(fields: GpuFields): Promise<AskFacts> {
  if (fields.offerQuery !== undefined || isUnknown(fields.asks) || fields.asks.length === 0) {
    return undefined;
  }
  const market = marketFromEnv();
  if (market === undefined) return undefined;
  try {
    return await market.askOffers(fields.asks);
  } catch {
    // Said as "cannot tell", never as a pass; the error itself is not shown (it may hold
    // whatever the service answered).
    return { unavailable: "the offer search failed" };
  } finally {
    await market.close();
  }
}

/**
 * Reports a resource rule's violations for the resource being validated, when it is a GPU one;
 * the rule is handed what the service says of its asks on demand.
 */
async function checkResource(
  args: ResourceValidationArgs,
  report: ReportViolation,
  check: (
    resource: GpuResource,
    fields: GpuFields,
    facts: () => Promise<AskFacts>,
  ) => Promise<string[]> | string[],
): Promise<void> {
  const resource = gpuOf(args);
  if (resource === undefined) return;
  const fields = gpuFields(resource);
  for (const message of await check(resource, fields, () => askFactsOf(fields))) {
    report(message);
  }
}

const mandatory: EnforcementLevel = "mandatory";
const advisory: EnforcementLevel = "advisory";

new PolicyPack("gpucloud-policy", {
  policies: [
    {
      name: policyNames.budget,
      description:
        "The plan's expected GPU price, in dollars per hour, stays within the stack budget " +
        "(maxDollarsPerHour).",
      enforcementLevel: mandatory,
      configSchema: {
        properties: {
          maxDollarsPerHour: { type: "number", exclusiveMinimum: 0 },
        },
      },
      validateStack: async (args, report) => {
        const { maxDollarsPerHour } = configOf(policyNames.budget, budgetConfig, args.getConfig());
        if (maxDollarsPerHour === undefined) {
          return args.notApplicable("no budget: set maxDollarsPerHour in the policy pack config");
        }
        const resources = args.resources.flatMap((resource) => gpuResourceOf(resource) ?? []);
        let market: Market | undefined;
        try {
          market = marketFromEnv();
          const priced = [];
          for (const resource of resources) {
            const fields = gpuFields(resource);
            priced.push({ resource, price: await priceOf(resource, fields, market) });
          }
          for (const violation of budgetViolations(priced, maxDollarsPerHour)) {
            report(violation.message, violation.urn);
          }
        } finally {
          await market?.close();
        }
      },
    },
    {
      name: policyNames.gpus,
      description: "Instances and node groups rent only the allowed GPU models (allowed).",
      enforcementLevel: mandatory,
      configSchema: {
        properties: { allowed: { type: "array", items: { type: "string" } } },
      },
      validateResource: (args, report) => {
        const { allowed } = configOf(policyNames.gpus, gpusConfig, args.getConfig());
        if (allowed === undefined || allowed.length === 0) {
          return args.notApplicable("no allowed GPU models: set allowed in the policy pack config");
        }
        return checkResource(args, report, async (resource, fields, facts) =>
          allowedGpuViolations(resource, fields, allowed, await facts()),
        );
      },
    },
    {
      name: policyNames.reliability,
      description:
        "Instances and node groups rent machines at least as reliable as minReliability.",
      enforcementLevel: advisory,
      configSchema: {
        properties: { minReliability: { type: "number", minimum: 0, maximum: 1 } },
      },
      validateResource: (args, report) => {
        const { minReliability } = configOf(
          policyNames.reliability,
          reliabilityConfig,
          args.getConfig(),
        );
        if (minReliability === undefined) {
          return args.notApplicable("no minimum: set minReliability in the policy pack config");
        }
        return checkResource(args, report, async (resource, fields, facts) =>
          reliabilityViolations(resource, fields, minReliability, await facts()),
        );
      },
    },
    {
      name: policyNames.verified,
      description: "Instances and node groups rent verified hosts only.",
      enforcementLevel: advisory,
      validateResource: (args, report) => {
        configOf(policyNames.verified, noConfig, args.getConfig());
        return checkResource(args, report, async (resource, fields, facts) =>
          verifiedViolations(resource, fields, await facts()),
        );
      },
    },
    {
      name: policyNames.lifetime,
      description: "Every Instance and NodeGroup has a maxLifetime.",
      enforcementLevel: advisory,
      validateResource: (args, report) => {
        configOf(policyNames.lifetime, noConfig, args.getConfig());
        return checkResource(args, report, (resource, fields) =>
          lifetimeViolations(resource, fields),
        );
      },
    },
  ],
});
