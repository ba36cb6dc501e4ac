import type { EmulatorArea } from "../shared/emulator-area";
import { registerBillingRoutes } from "./billing-routes";

/** The bills' routes: charges and invoices. */
export const area: EmulatorArea = {
  routes: [registerBillingRoutes],
  documented: {
    "GET /api/v0/charges/": "openapi",
    "GET /api/v1/invoices/": "openapi",
  },
};
