import { z } from "zod";
import { areaRecords } from "../shared/area-records";
import { InvoiceSchema, MeterSchema } from "./billing-state";

/**
 * The bills in the state: a meter per contract (ended ones kept) and the invoices; defaults let
 * state files from before them load (their contracts are metered from their creation).
 */
export const records = areaRecords({
  shape: {
    meters: z.array(MeterSchema).default([]),
    invoices: z.array(InvoiceSchema).default([]),
  },
  firstIds: { invoice: 1 },
  idsSince: ["invoice"],
  initial: () => ({ meters: [], invoices: [] }),
  clear: (bills) => {
    bills.meters = [];
    bills.invoices = [];
  },
});
