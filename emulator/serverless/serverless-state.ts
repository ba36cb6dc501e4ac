import { z } from "zod";

/** A serverless endpoint (the service's "endptjob"): scaling parameters for its worker groups. */
export const EndpointSchema = z.object({
  id: z.int(),
  name: z.string(),
  minLoad: z.number(),
  minColdLoad: z.number(),
  targetUtil: z.number(),
  coldMult: z.number(),
  coldWorkers: z.int(),
  maxWorkers: z.int(),
  createdAtMs: z.number(),
  /** The endpoint's own key, shown in its rows (a credential). */
  apiKey: z.string(),
});
export type Endpoint = z.infer<typeof EndpointSchema>;

/** A worker group (the service's "autojob"): which template runs, on which offers. */
export const WorkerGroupSchema = z.object({
  id: z.int(),
  endpointId: z.int(),
  templateHash: z.string().nullable(),
  templateId: z.int().nullable(),
  /** As given (the JSON text or the client's `key=value` form)… */
  searchParams: z.string(),
  /** …and as the query object it was read as. */
  searchQuery: z.record(z.string(), z.record(z.string(), z.unknown())),
  launchArgs: z.string().nullable(),
  minLoad: z.number(),
  targetUtil: z.number(),
  coldMult: z.number(),
  /** null: the endpoint's. */
  coldWorkers: z.int().nullable(),
  /** null: only the endpoint's cap. */
  maxWorkers: z.int().nullable(),
  testWorkers: z.int(),
  /** GB */
  gpuRam: z.number(),
  createdAtMs: z.number(),
  apiKey: z.string(),
});
export type WorkerGroup = z.infer<typeof WorkerGroupSchema>;
