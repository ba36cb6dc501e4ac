import type { EmulatorArea } from "../shared/emulator-area";
import { registerVolumeRoutes } from "./volume-routes";

/** The volumes' routes: local volumes and network volumes. */
export const area: EmulatorArea = {
  routes: [registerVolumeRoutes],
  documented: {
    "GET /api/v0/volumes/": "openapi",
    "PUT /api/v0/volumes/": "openapi",
    "DELETE /api/v0/volumes/": "openapi",
    "PUT /api/v0/network_volumes/": "official client (vastai 1.9.1)",
  },
};
