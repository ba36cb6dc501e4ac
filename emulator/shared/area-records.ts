import { z } from "zod";
import type { EmulatorSettings } from "../options";

/**
 * An area's records in the state file, which its `records.ts` exports as `records` (see
 * shared/emulator-area.ts): the state (shared/state.ts) is made from every area's, through the generated
 * list shared/all-records.ts.
 */
/** An area's records in the state file, as it declares them. */
export interface AreaRecordsSpec<Shape extends z.ZodRawShape, Ids extends string> {
  /** Its fields of the state, each with the default that lets older state files load. */
  readonly shape: Shape;
  /** Its counters in the state's `nextIds`, by their first value (a reset starts them again). */
  readonly firstIds: Readonly<Record<Ids, number>>;
  /** Its counters that state files from before them lack: those start at their first value. */
  readonly idsSince?: readonly NoInfer<Ids>[];
  /** A new account's records. */
  initial(settings: EmulatorSettings): z.output<z.ZodObject<Shape>>;
  /** Empties the account's records (what is the world around the account, such as asks, stays). */
  clear(records: z.output<z.ZodObject<Shape>>, account: { readonly userId: number }): void;
}

/** An area's records, with its counters' definitions in the state's `nextIds`. */
export interface AreaRecords<
  Shape extends z.ZodRawShape,
  Ids extends string,
> extends AreaRecordsSpec<Shape, Ids> {
  readonly ids: Readonly<Record<Ids, z.ZodInt | z.ZodDefault<z.ZodInt>>>;
}

/** An area's records, typed by their shape. */
export function areaRecords<Shape extends z.ZodRawShape, Ids extends string = never>(
  spec: AreaRecordsSpec<Shape, Ids>,
): AreaRecords<Shape, Ids> {
  const since = new Set<string>(spec.idsSince ?? []);
  const entries = Object.entries<number>(spec.firstIds).map(([name, first]) => [
    name,
    since.has(name) ? z.int().default(first) : z.int(),
  ]);
  return { ...spec, ids: Object.fromEntries(entries) as Record<Ids, z.ZodInt> };
}
