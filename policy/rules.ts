import { compileInstanceOfferQuery, type InstanceOfferQuery } from "../provider/client";
import type { OfferFacts } from "./market";
import { type GpuFields, type GpuResource, isUnknown, shownName } from "./shapes";

// The rules, on one GPU resource's fields and what the service says of its asks. Each returns
// the violations it finds, one line each: the resource, what is wrong (the rule) and the fix.
// They never echo a value the program could have made secret: only GPU names, numbers of the
// query and ask ids, which no input of these resources takes as a secret.

/**
 * What the service says of the resource's explicit asks: their offers, why it could not be asked
 * (its search failed), or undefined when the pack has no credentials to ask it.
 */
export type AskFacts =
  ReadonlyMap<number, OfferFacts> | { readonly unavailable: string } | undefined;

const askFix =
  "give the policy pack GPUCLOUD_API_KEY and GPUCLOUD_BASE_URL, or rent by offerQuery instead";

type Condition = Partial<
  Record<"eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "in" | "notin", unknown>
>;

/** The query's condition on a field, in the query's units; undefined when it names none. */
function conditionOf(query: InstanceOfferQuery | string, name: string): Condition | undefined {
  try {
    const { filters } = compileInstanceOfferQuery(query).normalized;
    return filters.find(([field]) => field === name)?.[1];
  } catch {
    // A malformed query fails the resource's own check at preview, with the field named.
    return undefined;
  }
}

/** `RTX_4090` (the query string's spelling) and `rtx 4090` are `RTX 4090`. */
function sameGpu(a: string, b: string): boolean {
  const norm = (name: string) => name.replace(/_/g, " ").trim().toLowerCase();
  return norm(a) === norm(b);
}

/** The values a condition admits when it lists them (eq, in); undefined when it admits any. */
function listed(condition: Condition | undefined): unknown[] | undefined {
  if (condition === undefined) return undefined;
  if (condition.eq !== undefined) return [condition.eq];
  if (Array.isArray(condition.in)) return condition.in as unknown[];
  return undefined;
}

/** How the resource chooses its offer: by query, by asks, or not knowable at preview. */
type Choice =
  | { readonly by: "query"; readonly query: InstanceOfferQuery | string }
  | { readonly by: "asks"; readonly asks: readonly number[] }
  | { readonly by: "unknown"; readonly field: string }
  | { readonly by: "none" };

function choiceOf(fields: GpuFields): Choice {
  if (isUnknown(fields.offerQuery)) return { by: "unknown", field: "offerQuery" };
  if (fields.offerQuery !== undefined) {
    return { by: "query", query: fields.offerQuery as InstanceOfferQuery | string };
  }
  if (isUnknown(fields.asks)) return { by: "unknown", field: "askId" };
  if (fields.asks.length > 0) return { by: "asks", asks: fields.asks };
  return { by: "none" };
}

/**
 * Runs `check` on each ask's offer; an ask the service was not asked about, or did not list, is
 * said once.
 */
function perAsk(
  resource: GpuResource,
  asks: readonly number[],
  facts: AskFacts,
  rule: string,
  check: (offer: OfferFacts) => string | undefined,
): string[] {
  const name = shownName(resource);
  return asks.flatMap((ask) => {
    if (facts === undefined) {
      return [`${name} rents ask ${ask}, whose ${rule} the policy pack cannot tell: ${askFix}`];
    }
    if ("unavailable" in facts) {
      return [
        `${name} rents ask ${ask}, whose ${rule} the policy pack cannot tell: ` +
          `${facts.unavailable}; preview again, or rent by offerQuery`,
      ];
    }
    const offer = facts.get(ask);
    if (offer === undefined) {
      return [
        `${name} rents ask ${ask}, which the service does not list, so its ${rule} is ` +
          `unknown; rent a listed ask, or by offerQuery`,
      ];
    }
    const problem = check(offer);
    return problem === undefined ? [] : [`${name}: ask ${ask} ${problem}`];
  });
}

// ---- allowed GPU models ---------------------------------------------------------------------

export function allowedGpuViolations(
  resource: GpuResource,
  fields: GpuFields,
  allowed: readonly string[],
  facts?: AskFacts,
): string[] {
  const name = shownName(resource);
  const allowedText = allowed.join(", ");
  const choice = choiceOf(fields);
  switch (choice.by) {
    case "none":
      return [];
    case "unknown":
      return [
        `${name}: its ${choice.field} is not known at preview, so its GPU model cannot be ` +
          `checked against the allowed ones (${allowedText}); give it as a literal value`,
      ];
    case "query": {
      const names = listed(conditionOf(choice.query, "gpuName"));
      if (names === undefined) {
        return [
          `${name}: offerQuery allows any GPU model, not only the allowed ones (${allowedText}); ` +
            `set offerQuery.gpuName to one of them (or { in: [...] })`,
        ];
      }
      const refused = names.filter(
        (gpu) => typeof gpu !== "string" || !allowed.some((ok) => sameGpu(ok, gpu)),
      );
      return refused.length === 0
        ? []
        : [
            `${name}: GPU model ${refused.map(String).join(", ")} is not allowed (allowed: ` +
              `${allowedText}); set offerQuery.gpuName to an allowed model`,
          ];
    }
    case "asks":
      return perAsk(resource, choice.asks, facts, "GPU model", (offer) =>
        allowed.some((ok) => sameGpu(ok, offer.gpuName))
          ? undefined
          : `is a ${offer.gpuName}, not an allowed GPU model (allowed: ${allowedText}); rent ` +
            `an ask of an allowed model`,
      );
  }
}

// ---- minimum reliability --------------------------------------------------------------------

/** The least reliability the condition admits; undefined when it sets no lower bound. */
function lowerBound(condition: Condition | undefined): number | undefined {
  if (condition === undefined) return undefined;
  const numbers = (values: unknown[]) =>
    values.every((value) => typeof value === "number") ? Math.min(...values) : undefined;
  const list = listed(condition);
  if (list !== undefined && list.length > 0) return numbers(list);
  const bounds = [condition.gte, condition.gt].filter((value) => typeof value === "number");
  return bounds.length === 0 ? undefined : Math.max(...bounds);
}

export function reliabilityViolations(
  resource: GpuResource,
  fields: GpuFields,
  minimum: number,
  facts?: AskFacts,
): string[] {
  const name = shownName(resource);
  const fix = `set offerQuery.reliability to { gte: ${minimum} } or more`;
  const choice = choiceOf(fields);
  switch (choice.by) {
    case "none":
      return [];
    case "unknown":
      return [
        `${name}: its ${choice.field} is not known at preview, so its reliability cannot be ` +
          `checked against the minimum ${minimum}; give it as a literal value`,
      ];
    case "query": {
      const bound = lowerBound(conditionOf(choice.query, "reliability"));
      if (bound === undefined) {
        return [`${name}: offerQuery sets no reliability bound (minimum ${minimum}); ${fix}`];
      }
      return bound >= minimum
        ? []
        : [`${name}: offerQuery admits reliability ${bound}, under the minimum ${minimum}; ${fix}`];
    }
    case "asks":
      return perAsk(resource, choice.asks, facts, "reliability", (offer) =>
        offer.reliability !== null && offer.reliability >= minimum
          ? undefined
          : `has reliability ${offer.reliability ?? "unknown"}, under the minimum ${minimum}; ` +
            `rent a more reliable ask, or by offerQuery with reliability { gte: ${minimum} }`,
      );
  }
}

// ---- verified hosts only --------------------------------------------------------------------

/** Whether the condition admits only verified machines; a query that names none does. */
function onlyVerified(condition: Condition | undefined): boolean {
  // The service's default, which the client sends explicitly: verified machines only.
  if (condition === undefined) return true;
  if (condition.eq !== undefined) return condition.eq === true;
  if (condition.neq !== undefined && condition.neq === false) return true;
  if (Array.isArray(condition.in))
    return condition.in.length > 0 && condition.in.every((v) => v === true);
  if (Array.isArray(condition.notin)) return condition.notin.includes(false);
  return false;
}

export function verifiedViolations(
  resource: GpuResource,
  fields: GpuFields,
  facts?: AskFacts,
): string[] {
  const name = shownName(resource);
  const choice = choiceOf(fields);
  switch (choice.by) {
    case "none":
      return [];
    case "unknown":
      return [
        `${name}: its ${choice.field} is not known at preview, so whether its host is ` +
          `verified cannot be checked; give it as a literal value`,
      ];
    case "query":
      return onlyVerified(conditionOf(choice.query, "verified"))
        ? []
        : [
            `${name}: offerQuery admits unverified hosts (verified hosts only); remove ` +
              `offerQuery.verified or set it to true`,
          ];
    case "asks":
      return perAsk(resource, choice.asks, facts, "verification", (offer) =>
        offer.verified === true
          ? undefined
          : `is on an unverified host (verified hosts only); rent an ask of a verified host`,
      );
  }
}

// ---- a lifetime on every instance -----------------------------------------------------------

export function lifetimeViolations(resource: GpuResource, fields: GpuFields): string[] {
  if (fields.maxLifetime !== undefined) return []; // set (or known only at create: still set)
  return [
    `${shownName(resource)} has no maxLifetime (a lifetime is required on every ` +
      `${resource.kind}); set maxLifetime, e.g. "8h", so that it stops billing when forgotten`,
  ];
}

// ---- the stack budget -----------------------------------------------------------------------

/** A resource's expected price: dollars per hour and how it was found, or why there is none. */
export type Price =
  { readonly dollarsPerHour: number; readonly basis: string } | { readonly unbounded: string };

export interface Priced {
  readonly resource: GpuResource;
  readonly price: Price;
}

const dollars = (value: number) => `$${value.toFixed(2)}/hour`;

export function budgetViolations(
  priced: readonly Priced[],
  budget: number,
): Array<{ readonly urn?: string; readonly message: string }> {
  const violations: Array<{ urn?: string; message: string }> = [];
  let total = 0;
  const parts: Array<{ resource: GpuResource; dollarsPerHour: number; basis: string }> = [];
  for (const { resource, price } of priced) {
    if ("unbounded" in price) {
      violations.push({
        urn: resource.urn,
        message:
          `${shownName(resource)}: its price cannot be bounded (${price.unbounded}), so the ` +
          `stack budget of ${dollars(budget)} cannot be checked; set maxDollarsPerHour on it`,
      });
    } else {
      total += price.dollarsPerHour;
      parts.push({ resource, ...price });
    }
  }
  if (total > budget + 1e-9) {
    const largest = [...parts]
      .sort((a, b) => b.dollarsPerHour - a.dollarsPerHour)
      .slice(0, 3)
      .map((part) => `${shownName(part.resource)} ${dollars(part.dollarsPerHour)} (${part.basis})`)
      .join(", ");
    violations.push({
      message:
        `the plan costs ${dollars(total)}, over the stack budget of ${dollars(budget)}: ` +
        `${largest}; rent fewer or cheaper GPUs (maxDollarsPerHour), or raise the budget in ` +
        `the policy pack config`,
    });
  }
  return violations;
}
