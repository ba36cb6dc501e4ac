import type { EmulatorArea } from "../shared/emulator-area";
import { registerControlRoutes } from "./control-routes";

/** The test controls (/_emulator/): none of them is the service's. */
export const area: EmulatorArea = {
  routes: [registerControlRoutes],
  documented: {},
};
