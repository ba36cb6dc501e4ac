import { z } from "zod";
import { bidBounds } from "../client";

// What the next up does about an interruptible instance that a higher bid took (outbid): the
// service pauses it, its data kept and its disk still billing, until its bid wins again.

export const onOutbidSchema = z
  .enum(["wait", "raise", "replace"], { error: "onOutbid must be wait, raise or replace" })
  .describe(
    "What the next up does about an instance a higher bid took (outbid; refresh finds it): " +
      "`wait` (the default) leaves it paused, saying what its disk bills meanwhile, unless " +
      "`price` itself is now above the winning bid; `raise` raises the bid just above the " +
      "winning one (a tenth of a cent), up to `maxBidDollarsPerHour` and no further, and waits " +
      "for it to run again; `replace` (with `offerQuery`) rents another instance by the query, " +
      "within the stack's cap, then destroys the paused one so that its disk bills no more: a " +
      "network volume moves to the replacement; a local volume only when its machine has a " +
      "free matching offer, else the instance stays paused and up says why. Changes in place.",
  )
  .optional();

export const maxBidSchema = z
  .number({ error: "maxBidDollarsPerHour must be a number of dollars per hour" })
  .min(
    bidBounds.minDollarsPerHour,
    `maxBidDollarsPerHour must be at least ${bidBounds.minDollarsPerHour}`,
  )
  .max(
    bidBounds.maxDollarsPerHour,
    `maxBidDollarsPerHour must be at most ${bidBounds.maxDollarsPerHour}`,
  )
  .describe(
    "The highest bid `onOutbid: raise` may set, in dollars per hour; at least `price`. " +
      "Changes in place.",
  )
  .optional();

/** The bid that wins the machine back from `winning`: one step above it, never above `ceiling`. */
export function raisedBid(winning: number, ceiling: number): number | undefined {
  const bid = Math.round((winning + bidBounds.minDollarsPerHour) * 1000) / 1000;
  return bid <= ceiling ? bid : undefined;
}

/** What the next up does about an outbid instance (or node). */
export type OnOutbid = NonNullable<z.infer<typeof onOutbidSchema>>;
