import type { FastifyInstance } from "fastify";
import type { EmulatorContext } from "./context";

/**
 * How an area of the emulator (a folder: accounts/, instances/, ...) takes its part, in two
 * places of its own: its records in the state (`records.ts` exports `records`: shared/area-records.ts) and its routes (`area.ts` exports `area`). The lists of areas the state and the
 * app are made from (emulator/areas.ts, emulator/shared/area-records.ts) are generated from the
 * folders by `npm run gen-registry`: a new area, or a new resource in one, edits no shared list.
 * Two places, as the routes read the whole state, whose type is made from every area's records.
 */

/**
 * Which document says the service answers an operation the emulator serves: the service's
 * published OpenAPI description, its official command-line client (today's `vastai` package or
 * the legacy vast.py, which the service's guides still quote), or the specification where it
 * describes an operation in full. Only these are the service's; anything else the emulator
 * answers is leniency for old scripts, and `--strict` refuses it as the service's router would.
 */
export type Documentation =
  | "openapi"
  | "official client (vastai 1.9.1)"
  | "official client (vast.py 0.5.0)"
  | "specification 4.5";

/** An area's routes, and which document gives each of its /api/ routes to the service. */
export interface EmulatorArea {
  readonly routes: readonly ((app: FastifyInstance, ctx: EmulatorContext) => void)[];
  /**
   * Every /api/ route the area registers, by method and path as registered (HEAD follows GET).
   * A route missing here (or in `lenient`) stops the emulator at start (control/service-routing.ts).
   */
  readonly documented: Readonly<Record<string, Documentation>>;
  /** Routes no document gives the service, with why they are kept (refused by `--strict`). */
  readonly lenient?: Readonly<Record<string, string>>;
}
