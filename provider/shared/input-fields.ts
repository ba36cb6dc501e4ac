import { z } from "zod";
import {
  camelCaseQuery,
  compileInstanceOfferQuery,
  compileVolumeOfferQuery,
  OfferQueryError,
} from "../client";

// Input fields that several resources declare alike (their descriptions are each resource's).

/** Which query language an input speaks, for the plugin's schema (`.meta({ pulumiQuery })`). */
export type QueryMarket = "instance" | "volume";

/**
 * An offer query in either form, an object or the official client's string; checked by
 * compiling it, so the failure names the field or token. `error` says what is expected when it
 * is neither.
 */
function queryInputSchema(
  compile: (query: string | Record<string, unknown>) => unknown,
  error: string,
  market: QueryMarket,
) {
  return (
    z
      .union([z.string(), z.record(z.string(), z.unknown())], { error })
      .superRefine((query, ctx) => {
        try {
          compile(query);
        } catch (thrown) {
          if (!(thrown instanceof OfferQueryError)) throw thrown;
          ctx.addIssue({ code: "custom", message: thrown.message });
        }
      })
      // Kept in the query language's names: `gpu_ram_gb` from Python is stored as `gpuRamGb`,
      // so that the state and every diff see one spelling.
      .transform((query) => camelCaseQuery(query))
      // The plugin's schema types it as the query language's object (or a string), not as the
      // loose record checked here: see provider/native/schema.ts.
      .meta({ pulumiQuery: market })
  );
}

/** An instance offer query (Instance and NodeGroup `offerQuery`, WorkerGroup's). */
export const offerQueryInputSchema = queryInputSchema(
  compileInstanceOfferQuery,
  "offerQuery must be a query object (fields such as gpuName and gpuRamGb) or a query string",
  "instance",
);

/** A volume offer query (Volume `volumeOfferQuery`, NetworkVolume `offerQuery`). */
export function volumeOfferQueryInputSchema(error: string) {
  return queryInputSchema(compileVolumeOfferQuery, error, "volume");
}

/**
 * An overlay's name, as `field` (an Overlay's `name`, an Instance's `overlay`). Instances join
 * by name (`-n NAME` in the create's env), and the official client passes only names of
 * lowercase letters, digits and `-` there (it drops any other silently); the service takes at
 * most 64 characters.
 */
export function overlayNameSchema(field: string) {
  return z
    .string({ error: `${field} is an overlay's name: lowercase letters, digits and -` })
    .min(1, `${field} must not be empty`)
    .max(64, `${field} must be at most 64 characters`)
    .regex(
      /^[a-z0-9-]+$/,
      `${field} may hold only lowercase letters, digits and - (instances join an overlay by ` +
        "its name, and the official client drops any other)",
    );
}
