import {
  type Condition,
  type Kind,
  type Market,
  OfferQueryError,
  type Operator,
  operatorsOf,
  type Scalar,
  shown,
} from "./offer-query-language";

// ---- The official client's string syntax ---------------------------------------------------

const STRING_OPERATORS: ReadonlyArray<readonly [string, Operator]> = [
  [">=", "gte"],
  ["<=", "lte"],
  ["!=", "neq"],
  ["==", "eq"],
  [">", "gt"],
  ["<", "lt"],
  ["=", "eq"],
];

/** Splits at spaces outside brackets: `geolocation in [US, CA]` stays one list. */
function tokensOf(text: string): string[] {
  const tokens: string[] = [];
  let current = "";
  let depth = 0;
  for (const char of text) {
    if (char === "[") depth++;
    if (char === "]") depth--;
    if (/\s/.test(char) && depth === 0) {
      if (current !== "") tokens.push(current);
      current = "";
    } else current += char;
  }
  if (current !== "") tokens.push(current);
  return tokens;
}

function valueOf(token: string, text: string, kind: Kind): Scalar {
  if (kind === "number") {
    const number = Number(text);
    if (text.trim() === "" || !Number.isFinite(number)) {
      throw new OfferQueryError(`"${token}": ${shown(text)} is not a number`);
    }
    return number;
  }
  if (kind === "boolean") {
    if (text === "true" || text === "True") return true;
    if (text === "false" || text === "False") return false;
    throw new OfferQueryError(`"${token}": ${shown(text)} is not true or false`);
  }
  // The official client writes spaces in values as underscores: RTX_4090.
  return text.replaceAll("_", " ");
}

/**
 * Parses the official client's query syntax (`gpu_name=RTX_4090 num_gpus>=2 dph<0.6
 * geolocation in [US,CA]`) into a typed query. RAM fields are in GB there too.
 */
export function parseQueryString(market: Market<unknown>, text: string): Record<string, unknown> {
  const byAlias = new Map<string, string>();
  for (const [name, spec] of Object.entries(market.fields)) {
    for (const alias of spec.aliases) byAlias.set(alias, name);
  }
  // `field in [a,b]` and `field notin [a,b]` are written with spaces: join them first.
  const raw = tokensOf(text.trim());
  const tokens: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const next = raw[i + 1];
    if ((next === "in" || next === "notin" || next === "nin") && raw[i + 2] !== undefined) {
      tokens.push(`${raw[i] ?? ""} ${next} ${raw[i + 2] ?? ""}`);
      i += 2;
    } else tokens.push(raw[i] ?? "");
  }
  const query: Record<string, Condition> = {};
  for (const token of tokens) {
    let fieldText: string;
    let op: Operator;
    let valueText: string;
    const listMatch = /^(\w+) (in|notin|nin) \[(.*)\]$/.exec(token);
    if (listMatch) {
      fieldText = listMatch[1] ?? "";
      op = listMatch[2] === "in" ? "in" : "notin";
      valueText = listMatch[3] ?? "";
    } else {
      const match = /^(\w+)(>=|<=|!=|==|>|<|=)(.+)$/.exec(token);
      if (!match) {
        throw new OfferQueryError(
          `"${token}": not a condition; write field, operator, value with no spaces ` +
            `(gpu_name=RTX_4090, num_gpus>=2, dph<0.6) or field in [a,b]`,
        );
      }
      fieldText = match[1] ?? "";
      op = STRING_OPERATORS.find(([symbol]) => symbol === match[2])?.[1] ?? "eq";
      valueText = match[3] ?? "";
    }
    const name = byAlias.get(fieldText);
    const spec = name === undefined ? undefined : market.fields[name];
    if (name === undefined || spec === undefined) {
      throw new OfferQueryError(
        `"${token}": unknown field ${fieldText}; the fields are ${[...byAlias.keys()].join(", ")}`,
      );
    }
    if (!operatorsOf[spec.kind].includes(op)) {
      throw new OfferQueryError(
        `"${token}": ${fieldText} takes ${operatorsOf[spec.kind].join(", ")}, not ${op}`,
      );
    }
    const condition = (query[name] ??= {});
    condition[op] =
      op === "in" || op === "notin"
        ? valueText
            .split(",")
            .map((item) => item.trim())
            .filter((item) => item !== "")
            .map((item) => valueOf(token, item, spec.kind))
        : spec.nullable && (op === "eq" || op === "neq") && /^(None|null)$/.test(valueText)
          ? // The service's own guides write "in no cluster" as cluster_id=None.
            null
          : valueOf(token, valueText, spec.kind);
  }
  return query;
}
