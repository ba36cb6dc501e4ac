import type { EmulatorArea } from "../shared/emulator-area";
import { registerTemplateRoutes } from "./template-routes";

/** The templates' routes. */
export const area: EmulatorArea = {
  routes: [registerTemplateRoutes],
  documented: {
    "GET /api/v0/template/": "openapi",
    "POST /api/v0/template/": "openapi",
    "PUT /api/v0/template/": "openapi",
    "DELETE /api/v0/template/": "openapi",
  },
};
