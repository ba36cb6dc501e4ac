import { z } from "zod";

// The scaling parameters endpoints and worker groups share (see the service's guides to
// endpoint and worker-group parameters), with their units and bounds. The defaults are the
// service's (its API's create defaults), sent explicitly so that the state records them.

// The descriptions (the native plugin's schema) are the endpoint's and the worker group's:
// `owner` names which ("endpoint" or "group").

/** Load is the cost of requests in perf units; `minLoad` is a floor, per second. */
export const minLoadSchema = (defaultValue: number, owner: string) =>
  z
    .number({ error: "a load in perf units per second (tokens/s for LLMs), 0 or more" })
    .nonnegative("minLoad is a load per second: 0 or more")
    .describe(
      `The floor load the ${owner} keeps capacity for, in perf units per second (tokens per ` +
        `second for LLMs); 0 or more, default ${defaultValue}. Changes in place.`,
    )
    .default(defaultValue);

export const targetUtilSchema = (owner: string) =>
  z
    .number({ error: "a fraction of capacity in (0, 1], e.g. 0.9" })
    .gt(0, "targetUtil is a fraction of capacity, more than 0 and at most 1")
    .max(1, "targetUtil is a fraction of capacity, more than 0 and at most 1 (1 keeps no headroom)")
    .describe(
      `Target capacity utilization of the ${owner}: the anticipated load over the active ` +
        "capacity, more than 0 and at most 1 (0.9 keeps 11% headroom); default 0.9. Changes in " +
        "place.",
    )
    .default(0.9);

export const coldMultSchema = (defaultValue: number) =>
  z
    .number({ error: "a multiple of the active capacity target, 0 or more, e.g. 2.5" })
    .nonnegative("coldMult is a multiple of the active capacity target: 0 or more")
    .describe(
      "Inactive (cold) capacity as a multiple of the active capacity target; 0 or more, " +
        `default ${defaultValue}. Changes in place.`,
    )
    .default(defaultValue);

/** A count of workers (instances): whole and not negative. */
export const workerCountSchema = (field: string) =>
  z
    .number({ error: `${field} is a number of workers (instances): a whole number, 0 or more` })
    .int(`${field} is a number of workers (instances): a whole number`)
    .nonnegative(`${field} is a number of workers (instances): 0 or more`);

/** The rule both resources share: the cold workers kept fit within the workers allowed. */
export function coldWithinMax(
  coldWorkers: number | undefined,
  maxWorkers: number | undefined,
  /** coldWorkers is the default, not the program's: say so, and to set it. */
  defaulted = false,
): string | undefined {
  if (coldWorkers === undefined || maxWorkers === undefined || coldWorkers <= maxWorkers) {
    return undefined;
  }
  return defaulted
    ? `coldWorkers (default ${coldWorkers}) must be at most maxWorkers (${maxWorkers}): set ` +
        `coldWorkers to ${maxWorkers} or less`
    : `coldWorkers (${coldWorkers}) must be at most maxWorkers (${maxWorkers}): the service ` +
        `never keeps more workers than maxWorkers`;
}

/** Default seconds a delete waits for the workers it releases to be gone from the account. */
export const defaultDeleteTimeoutSeconds = 600;

export const deleteTimeoutSchema = (owner: string) =>
  z
    .number({ error: "seconds, e.g. 600" })
    .positive("deleteTimeoutSeconds must be positive (seconds)")
    .max(3600, "deleteTimeoutSeconds must be at most 3600 (seconds)")
    .describe(
      `How long delete waits until every worker instance of the ${owner} is gone from the ` +
        `account, in seconds: at most 3600, default ${defaultDeleteTimeoutSeconds}. Only this ` +
        "provider's own setting: changing it changes nothing on the service.",
    )
    .default(defaultDeleteTimeoutSeconds);
