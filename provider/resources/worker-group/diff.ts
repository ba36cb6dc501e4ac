import { isDeepStrictEqual } from "node:util";
import type * as pulumi from "@pulumi/pulumi";
import { compileInstanceOfferQuery, type InstanceOfferQuery } from "../../client";
import { containsUnknown } from "../../shared/validation";
import type { WorkerGroupInputs, WorkerGroupOutputs } from "./inputs";

// ---- Diff rules ---------------------------------------------------------------------------

/** Fields PUT /api/v0/workergroups/{id}/ does not take: a change replaces the group. */
export const replacingFields = ["coldWorkers", "maxWorkers"] as const;

/** Fields PUT /api/v0/workergroups/{id}/ takes (the query is compared as sent, below). */
const inPlaceFields = [
  "endpointId",
  "templateHashId",
  "templateId",
  "offerQuery",
  "launchArgs",
  "minLoad",
  "targetUtil",
  "coldMult",
  "testWorkers",
  "gpuRamGb",
] as const;

/** Parts of an offer query that choose among offers: the service's engine does that itself. */
export const choosingOptions = ["order", "limit", "type"] as const;

/**
 * The query object sent as `search_params`: `{field: {op: value}}` in the API's names and units
 * (the offer search's body without its order, limit and type), the default market filters
 * (verified, rentable, not rented) included unless the query says otherwise.
 */
export function searchQueryOf(
  offerQuery: InstanceOfferQuery | string | undefined,
): Record<string, unknown> {
  const body = compileInstanceOfferQuery(offerQuery ?? {}).body;
  return Object.fromEntries(
    Object.entries(body).filter(([key]) => !(choosingOptions as readonly string[]).includes(key)),
  );
}

/** The service's query differs from the one declared (changed in the program or outside). */
function queryChanged(olds: WorkerGroupOutputs, news: WorkerGroupInputs): boolean {
  if (containsUnknown(news.offerQuery)) return true;
  return !isDeepStrictEqual(olds.searchQuery, searchQueryOf(news.offerQuery));
}

/** The fields the service holds that differ: those the PUT must send. */
export function serviceChanges(olds: WorkerGroupOutputs, news: WorkerGroupInputs): string[] {
  return inPlaceFields.filter((field) =>
    field === "offerQuery"
      ? queryChanged(olds, news)
      : !isDeepStrictEqual(olds[field], news[field]),
  );
}

/**
 * coldWorkers and maxWorkers replace the group (the service's PUT does not take them); every
 * other field changes in place.
 */
export function diffWorkerGroup(
  olds: WorkerGroupOutputs,
  news: WorkerGroupInputs,
): pulumi.dynamic.DiffResult {
  const replaces = replacingFields.filter((field) => !isDeepStrictEqual(olds[field], news[field]));
  const changes =
    replaces.length > 0 ||
    serviceChanges(olds, news).length > 0 ||
    !isDeepStrictEqual(olds.offerQuery, news.offerQuery) ||
    olds.deleteTimeoutSeconds !== news.deleteTimeoutSeconds;
  return { changes, replaces: [...replaces] };
}
