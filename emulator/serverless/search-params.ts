import { BUNDLE_SEARCH } from "../market/offer-search";
import { ApiError, invalidArgs } from "../shared/http";
import { parseQuery } from "../shared/query";

export type SearchQuery = Record<string, Record<string, unknown>>;

/** What a worker group searches when it is given no search_params (the OpenAPI's default). */
export const DEFAULT_SEARCH_PARAMS = "verified=true rentable=true rented=false";

// The official client's query language (vast.py parse_query): `field op value` words.
const WORD =
  /([a-zA-Z0-9_]+)( *[=><!]+| +(?:[lg]te?|nin|neq|eq|not ?eq|not ?in|in) )?( *)(\[[^\]]+\]|"[^"]+"|[^ ]+)?( *)/g;
const OPS: Readonly<Record<string, string>> = {
  ">=": "gte",
  ">": "gt",
  gt: "gt",
  gte: "gte",
  "<=": "lte",
  "<": "lt",
  lt: "lt",
  lte: "lte",
  "!=": "neq",
  "==": "eq",
  "=": "eq",
  eq: "eq",
  neq: "neq",
  noteq: "neq",
  "not eq": "neq",
  notin: "notin",
  "not in": "notin",
  nin: "notin",
  in: "in",
};
/** The client's field aliases and unit multipliers (GB → MB, days → seconds) for offers. */
const ALIASES: Readonly<Record<string, string>> = {
  cuda_vers: "cuda_max_good",
  display_active: "gpu_display_active",
  dlperf_usd: "dlperf_per_dphtotal",
  dph: "dph_total",
  flops_usd: "flops_per_dphtotal",
};
const MULTIPLIERS: Readonly<Record<string, number>> = {
  cpu_ram: 1000,
  gpu_ram: 1000,
  gpu_total_ram: 1000,
  duration: 86_400,
};

const invalid = (msg: string) => invalidArgs(`search_params: ${msg}`);

function scalar(text: string): unknown {
  const value = text.replaceAll("_", " ").replace(/^"|"$/g, "");
  if (value === "true" || value === "True") return true;
  if (value === "false" || value === "False") return false;
  if (value === "None" || value === "null") return null;
  return value;
}

/** `gpu_name=RTX_3090 num_gpus>=2 rentable=true` as the query object the client would build. */
function fromWords(text: string): SearchQuery {
  const query = new Map<string, Record<string, unknown>>();
  let consumed = "";
  for (const match of text.matchAll(WORD)) {
    if (match[0] === "") break;
    consumed += match[0];
    const [, rawField = "", rawOp = "", , rawValue = ""] = match;
    const field = ALIASES[rawField] ?? rawField;
    const op = OPS[rawOp.trim()];
    if (op === undefined) throw invalid(`unknown operator in "${match[0].trim()}"`);
    const value = rawValue.replace(/^[,[\]]+|[,[\]]+$/g, "");
    if (value === "") throw invalid(`no value for ${field}`);
    if (["?", "*", "any"].includes(value)) {
      query.delete(field);
      continue;
    }
    const multiplier = MULTIPLIERS[field];
    const operand =
      op === "in" || op === "notin"
        ? value
            .split(",")
            .map((item) => item.trim())
            .filter((item) => item !== "")
            .map(scalar)
        : multiplier !== undefined && Number.isFinite(Number(value))
          ? Number(value) * multiplier
          : scalar(value);
    query.set(field, { ...query.get(field), [op]: operand });
  }
  if (consumed !== text) throw invalid("could not read it; quote values with spaces");
  return Object.fromEntries(query);
}

/**
 * A worker group's search_params: a JSON-encoded query object (the bundles search's own form,
 * units as there: gpu_ram in MB) or the official client's `key=value key>=value` form (read as
 * the client reads it: GB for gpu_ram, RTX_3090 for "RTX 3090"). Either is checked as a bundles
 * query; the object is returned.
 */
export function parseSearchParams(raw: string | null | undefined): SearchQuery {
  const text = (raw ?? "").trim() || DEFAULT_SEARCH_PARAMS;
  let query: SearchQuery;
  if (text.startsWith("{")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalid("is not valid JSON");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw invalid("must be a query object");
    }
    query = parsed as SearchQuery;
  } else {
    query = fromWords(text);
  }
  try {
    parseQuery(query, BUNDLE_SEARCH);
  } catch (error) {
    if (error instanceof ApiError) throw invalid(error.message);
    throw error;
  }
  return query;
}
