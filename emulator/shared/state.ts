import { z } from "zod";
import type { EmulatorSettings } from "../options";
import { everyAreaRecords, firstIds, idsShape, initialRecords, recordsShape } from "./all-records";

/**
 * The whole of the emulator's state, as the state file holds it: the market's asks and the
 * account's resources, each area's records under one version. Each area defines its own
 * records (`<area>/records.ts`, shared/area-records.ts); this is where they meet, through the list
 * generated from the folders (shared/all-records.ts): adding an area or a record edits nothing
 * here.
 */
export const StateSchema = z.object({
  version: z.literal(1),
  ...recordsShape,
  nextIds: z.object(idsShape),
});
export type State = z.infer<typeof StateSchema>;

/** Empties the account's resources; the user and the asks are the world around it, so they stay. */
export function clearResources(state: State): void {
  for (const records of everyAreaRecords) records.clear(state, { userId: state.user.id });
  state.nextIds = { ...firstIds };
}

export function initialState(settings: EmulatorSettings): State {
  return { version: 1, ...initialRecords(settings), nextIds: { ...firstIds } };
}
