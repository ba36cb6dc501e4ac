import { GpuCloudError } from "../client";
import { pollUntil } from "./polling";
import { CancelledError } from "../run/cancellation";

// A create whose reply was lost. The client never sends a create again once it may have reached
// the service (client/transport.ts): what it asked for may exist, or not, and only what
// identifies this create's own creation can tell which. Every create that looks for it goes
// through recoverLostCreate, giving that and the words for what it cannot find (a Webhook's or
// an Endpoint's create does not look: a lost reply fails it).

/** One create, and how its creation is found when the reply is lost. */
export interface LostCreate<Made> {
  /** Sends the create; its answer is what it made. */
  readonly create: () => Promise<Made>;
  /**
   * After a lost reply: what this create made, found by what identifies it (a token it
   * carries, a name only it gives, the one thing new since the run began); undefined when it
   * cannot be told apart. It may fail with a message of its own, naming what it found.
   */
  readonly findCreated: (lost: Error) => Promise<Made | undefined>;
  /** The failure when nothing is found: the create's own, unless said otherwise. */
  readonly notFound?: (lost: Error) => Error;
  /** Which failures may have reached the service: a GpuCloudError that says so, by default. */
  readonly mayHaveCreated?: (failure: unknown) => boolean;
  /** Looking again until the service shows it (it may show it late), instead of once. */
  readonly lookAgain?: LookAgain;
}

/** How long, and how often, a lost creation is looked for. */
export interface LookAgain {
  /** Says, once, that the reply was lost and what is looked for. */
  readonly announce: () => void;
  readonly initialIntervalMs: number;
  readonly maxIntervalMs: number;
  /** Until when, as the reply is found lost. */
  readonly until: () => number;
  /** Stops the look: the run's cancellation. */
  readonly signal: AbortSignal;
  /** The failure when the look is cancelled. */
  readonly cancelled: (lost: Error) => Error;
}

/** The one item of a list, or undefined when it holds none or several (none can be told apart). */
export function onlyOne<T>(items: readonly T[]): T | undefined {
  return items.length === 1 ? items[0] : undefined;
}

const reachedTheService = (failure: unknown): boolean =>
  failure instanceof GpuCloudError && failure.mayHaveCreated;

/**
 * Sends the create once. When it fails in a way that may have created something, looks for
 * this create's creation (findCreated) and answers with it; throws when it is not found.
 */
export async function recoverLostCreate<Made>(lost: LostCreate<Made>): Promise<Made> {
  try {
    return await lost.create();
  } catch (failure) {
    if (!(lost.mayHaveCreated ?? reachedTheService)(failure)) throw failure;
    const error = failure instanceof Error ? failure : new Error(String(failure));
    const found = await (lost.lookAgain === undefined
      ? lost.findCreated(error)
      : lookUntilFound(lost.lookAgain, () => lost.findCreated(error), error));
    if (found !== undefined) return found;
    throw lost.notFound?.(error) ?? failure;
  }
}

async function lookUntilFound<Made>(
  look: LookAgain,
  find: () => Promise<Made | undefined>,
  lost: Error,
): Promise<Made | undefined> {
  look.announce();
  try {
    return await pollUntil(find, {
      initialIntervalMs: look.initialIntervalMs,
      maxIntervalMs: look.maxIntervalMs,
      deadlineMs: look.until(),
      signal: look.signal,
    });
  } catch (cancelled) {
    if (!(cancelled instanceof CancelledError)) throw cancelled;
    throw look.cancelled(lost);
  }
}
