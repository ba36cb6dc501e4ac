import type { EmulatorArea } from "../shared/emulator-area";
import { registerOfferRoutes } from "./offer-routes";

/** The market's routes: the offer searches. */
export const area: EmulatorArea = {
  routes: [registerOfferRoutes],
  documented: {
    "POST /api/v0/bundles/": "openapi",
    "POST /api/v0/volumes/search/": "openapi",
    "POST /api/v0/network_volumes/search/": "official client (vastai 1.9.1)",
    "GET /api/v0/gpu_names/unique/": "official client (vast.py 0.5.0)",
  },
};
