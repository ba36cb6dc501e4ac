import { setMaxListeners } from "node:events";

/**
 * The engine's `Cancel` (the first Ctrl-C of `pulumi up`), as a run's waits see it. One signal
 * per run (run.ts): the native plugin (provider/native/server.ts) fires it when the engine
 * calls Cancel, the dynamic door when its process hears that call (run/engine-cancel.ts, where
 * Node.js allows), and either provider process when its engine is gone (run/engine-watch.ts).
 *
 * Waits (provider/shared/polling.ts `pollUntil`, `watchInstance`, and the waits built on them) observe
 * it and throw a {@link CancelledError}; each operation decides what that leaves: an Instance
 * create destroys the instance it rented and is not running yet, or hands over one that runs
 * (renting/create.ts). Requests in flight are not aborted: a rent's reply is what says which
 * instance to destroy.
 */
export class CancelledError extends Error {
  constructor(message = "cancelled") {
    super(message);
    this.name = "CancelledError";
  }
}

/**
 * A controller whose signal may have one listener per wait in flight (hundreds in a fleet), so
 * Node's listener-leak warning is turned off for this signal alone.
 */
function newController(): AbortController {
  const made = new AbortController();
  setMaxListeners(0, made.signal);
  return made;
}

/** A run's cancellation: its signal, which every wait of the run observes unless told otherwise. */
export class Cancellation {
  readonly #controller = newController();

  /** The signal every wait of the run observes unless told otherwise. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether the engine cancelled the operation. */
  get isCancelled(): boolean {
    return this.#controller.signal.aborted;
  }

  /** Fired by the native plugin's Cancel: every wait in flight, and every later one, stops. */
  cancel(): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(new CancelledError());
  }
}

/** A signal that never fires: for the bounded cleanup that runs after a cancellation. */
export function neverCancelled(): AbortSignal {
  return newController().signal;
}

/**
 * How long the cleanup after a cancellation may take: destroying what a create rented and
 * confirming it gone (or, when that fails, recording it). The promise is that the run
 * ends within 15 s of the first Ctrl-C; the engine then still writes the state and the CLI
 * exits (about a second), and an instance that could not be confirmed destroyed is relabelled
 * before it is recorded (bounded by {@link recordAfterCancelMs}): 10 + 3 s leaves that margin.
 */
export const cleanupAfterCancelMs = 10_000;

/** The bound on the relabel of an instance recorded after a cancellation (see above). */
export const recordAfterCancelMs = 3_000;

/**
 * Settles with `promise`, or rejects with a {@link CancelledError} as soon as `signal` fires
 * (at once if it has fired already). The promise itself runs on; its outcome is ignored.
 */
export async function unlessCancelled<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    throw new CancelledError();
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => {
      reject(new CancelledError());
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
