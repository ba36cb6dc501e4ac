import type { EmulatorArea } from "../shared/emulator-area";
import { registerBidRoutes } from "./bid-routes";
import { registerCommandRoutes } from "./command-routes";
import { registerContainerRoutes } from "./container-routes";
import { registerInstanceRoutes } from "./instance-routes";
import { registerLogRoutes } from "./log-routes";
import { registerOverlayRoutes } from "./overlay-routes";
import { registerPrepayRoutes } from "./prepay-routes";

/**
 * The instances' routes: create, list, lifecycle, bids, prepays, containers, copies, logs and
 * overlays.
 */
export const area: EmulatorArea = {
  routes: [
    registerInstanceRoutes,
    registerLogRoutes,
    registerCommandRoutes,
    registerBidRoutes,
    registerPrepayRoutes,
    registerContainerRoutes,
    registerOverlayRoutes,
  ],
  documented: {
    "PUT /api/v0/asks/:id/": "openapi",
    "GET /api/v0/instances/:id/": "openapi",
    "PUT /api/v0/instances/:id/": "openapi",
    "DELETE /api/v0/instances/:id/": "openapi",
    "PUT /api/v0/instances/request_logs/:id/": "openapi",
    "PUT /api/v0/instances/bid_price/:id/": "openapi",
    "PUT /api/v0/instances/prepay/:id/": "openapi",
    "PUT /api/v0/instances/reboot/:id/": "openapi",
    "PUT /api/v0/instances/recycle/:id/": "openapi",
    "GET /api/v1/instances/": "openapi",
    "PUT /api/v0/commands/copy_direct/": "openapi",
    "DELETE /api/v0/commands/copy_direct/": "openapi",
    // The specification describes it in full; the OpenAPI has no entry for it.
    "DELETE /api/v0/commands/rsync/": "specification 4.5",
    // The official client's, which the OpenAPI leaves out.
    "PUT /api/v0/instances/": "official client (vastai 1.9.1)",
    "DELETE /api/v0/instances/": "official client (vastai 1.9.1)",
    "GET /api/v0/instances/filters/": "official client (vastai 1.9.1)",
    "PUT /api/v0/instances/update_template/:id/": "official client (vastai 1.9.1)",
    "GET /api/v0/overlay/": "official client (vastai 1.9.1)",
    "POST /api/v0/overlay/": "official client (vastai 1.9.1)",
    "PUT /api/v0/overlay/": "official client (vastai 1.9.1)",
    "DELETE /api/v0/overlay/": "official client (vastai 1.9.1)",
  },
  lenient: {
    // The specification's one-line summary (4.7) says POST; the service's operation, its guides
    // and its official client use PUT. Older scripts of users may still POST.
    "POST /api/v0/asks/:id/": "the service creates instances with PUT /api/v0/asks/{id}/",
  },
};
