import type { EmulatorArea } from "../shared/emulator-area";
import { registerEndpointRoutes } from "./endpoint-routes";
import { registerRouteRoutes } from "./route-routes";
import { registerWorkerGroupRoutes } from "./worker-group-routes";

/** Serverless routes: endpoints, worker groups (and their older autojobs paths), routing. */
export const area: EmulatorArea = {
  routes: [registerEndpointRoutes, registerWorkerGroupRoutes, registerRouteRoutes],
  documented: {
    "GET /api/v0/endptjobs/": "openapi",
    "POST /api/v0/endptjobs/": "openapi",
    "PUT /api/v0/endptjobs/:id/": "openapi",
    "DELETE /api/v0/endptjobs/:id/": "openapi",
    "GET /api/v0/workergroups/": "openapi",
    "POST /api/v0/workergroups/": "openapi",
    "PUT /api/v0/workergroups/:id/": "openapi",
    "DELETE /api/v0/workergroups/:id/": "openapi",
    // The official client's, which the OpenAPI leaves out.
    "GET /api/v0/autojobs/": "official client (vastai 1.9.1)",
    "POST /api/v0/autojobs/": "official client (vastai 1.9.1)",
    "PUT /api/v0/autojobs/:id/": "official client (vastai 1.9.1)",
    "DELETE /api/v0/autojobs/:id/": "official client (vastai 1.9.1)",
  },
};
