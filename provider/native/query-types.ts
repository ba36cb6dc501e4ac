import { z } from "zod";
import {
  instanceMarket,
  instanceOfferQuerySchema,
  volumeMarket,
  volumeOfferQuerySchema,
} from "../client/offer-query-language";
import type { QueryMarket } from "../shared/input-fields";

/** The JSON Schema of a query object, as `z.toJSONSchema` writes it (the part read here). */
interface QueryJson {
  properties: Record<string, { description?: string }>;
  [key: string]: unknown;
}

/**
 * What an offer query input is in the schema: the query language's object as a named type
 * (OfferQuery, VolumeOfferQuery: one property per field, each a value or a condition object) or
 * the official client's string. The wire form is the same object either way (camelCase fields;
 * the plugin also takes the snake_case a Python dict may hold, provider/client/offer-query.ts).
 */
export function queryJsonSchema(market: QueryMarket): { anyOf: object[] } {
  const [schema, fields, pulumiType, what] =
    market === "instance"
      ? [instanceOfferQuerySchema, instanceMarket.fields, "OfferQuery", "instance offer"]
      : [volumeOfferQuerySchema, volumeMarket.fields, "VolumeOfferQuery", "volume offer"];
  // `$schema` would be a stray field of the property.
  const { $schema: _schema, ...object } = z.toJSONSchema(schema, { io: "input" }) as QueryJson;
  for (const [field, property] of Object.entries(object.properties)) {
    const spec = fields[field];
    property.description =
      spec !== undefined
        ? `The offers whose ${field} (the service's \`${spec.api}\`) is this value or meets ` +
          "these conditions."
        : (queryOptionDescriptions[field] ?? property.description);
  }
  return {
    anyOf: [
      { type: "string" },
      {
        ...object,
        pulumiType,
        description:
          `An ${what} query: each field a value (meaning eq) or conditions on it, all to hold ` +
          '(docs/guides/renting.md, "The query").',
      },
    ],
  };
}

const queryOptionDescriptions: Record<string, string> = {
  order:
    "Sort keys, first first: a list of [field, direction] pairs, direction asc or desc " +
    "(cheapest first when absent).",
  limit: "At most this many offers.",
  type: "on-demand (the default) or interruptible (prices are then the minimum bids).",
};
