import { z } from "zod";
import { ApiError } from "./http";

/**
 * The account's time: when instances and volumes are created, boot, stop and go, and so what
 * they are billed. The wall clock unless a test moves it (`PUT /_emulator/clock`): frozen, it
 * stands still; moved forward, it runs on from there. It never goes back, so that no stretch of
 * billed time is counted twice or comes out negative.
 */
export class Clock {
  /** Added to the wall clock while running. */
  #offsetMs = 0;
  #frozenAtMs: number | undefined;

  nowMs(): number {
    return this.#frozenAtMs ?? Date.now() + this.#offsetMs;
  }

  get frozen(): boolean {
    return this.#frozenAtMs !== undefined;
  }

  /** Moves the clock to `atMs` (never back), keeping it frozen or running as it is. */
  moveTo(atMs: number): void {
    const now = this.nowMs();
    if (atMs < now) {
      throw new ApiError(
        400,
        "invalid_args",
        `the clock never goes back: it is at ${String(now / 1000)} s, asked for ${String(atMs / 1000)} s`,
      );
    }
    if (this.#frozenAtMs !== undefined) this.#frozenAtMs = atMs;
    else this.#offsetMs += atMs - now;
  }

  freeze(): void {
    this.#frozenAtMs ??= this.nowMs();
  }

  /** Runs on from where it stands. */
  unfreeze(): void {
    if (this.#frozenAtMs === undefined) return;
    this.#offsetMs = this.#frozenAtMs - Date.now();
    this.#frozenAtMs = undefined;
  }
}

/** `PUT /_emulator/clock`: where the clock goes (at most one of the two) and whether it runs. */
export const ClockChangeSchema = z
  .strictObject({
    nowSeconds: z.number().nonnegative().optional(),
    advanceSeconds: z.number().nonnegative().optional(),
    frozen: z.boolean().optional(),
  })
  .refine((change) => change.nowSeconds === undefined || change.advanceSeconds === undefined, {
    message: "give nowSeconds or advanceSeconds, not both",
  });

export function changeClock(clock: Clock, change: z.infer<typeof ClockChangeSchema>): void {
  if (change.frozen === true) clock.freeze();
  if (change.nowSeconds !== undefined) clock.moveTo(change.nowSeconds * 1000);
  if (change.advanceSeconds !== undefined) {
    clock.moveTo(clock.nowMs() + change.advanceSeconds * 1000);
  }
  if (change.frozen === false) clock.unfreeze();
}

export function clockReading(clock: Clock): { nowSeconds: number; frozen: boolean } {
  return { nowSeconds: clock.nowMs() / 1000, frozen: clock.frozen };
}
