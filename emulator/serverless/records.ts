import { z } from "zod";
import { areaRecords } from "../shared/area-records";
import { EndpointSchema, WorkerGroupSchema } from "./serverless-state";

/** The account's endpoints and worker groups in the state; defaults let older files load. */
export const records = areaRecords({
  shape: {
    endpoints: z.array(EndpointSchema).default([]),
    workerGroups: z.array(WorkerGroupSchema).default([]),
  },
  firstIds: { endpoint: 7001, workerGroup: 9001 },
  idsSince: ["endpoint", "workerGroup"],
  initial: () => ({ endpoints: [], workerGroups: [] }),
  clear: (serverless) => {
    serverless.endpoints = [];
    serverless.workerGroups = [];
  },
});
