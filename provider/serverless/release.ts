import { type DeletedWorkers, GpuCloudError } from "../client";
import { watchInstance } from "../shared/polling";
import { CancelledError } from "../run/cancellation";
import type { Run } from "../run/run";

// Money first: deleting an endpoint or a worker group leaves no worker instance running. The
// service destroys the workers asynchronously and says which it destroyed (`deleted_workers`)
// and which it could not (`failed_workers`); this waits until every one of them is gone from
// the account, destroying those it could not (and any it said it destroyed that outlive half
// the wait) itself.

export interface ReleaseOptions {
  /** Between status reads (the client's shared status rounds), ms. */
  readonly intervalMs: number;
  /** How long the whole wait may take, ms. */
  readonly timeoutMs: number;
}

/** Workers that could not be removed: the message has one line per instance. */
export class WorkersLeftError extends Error {
  constructor(
    message: string,
    readonly instanceIds: number[],
  ) {
    super(message);
  }
}

type Outcome =
  { id: number; gone: true } | { id: number; gone: false; why: string; cancelled?: boolean };

/** The outcome of a wait the engine cancelled (run/cancellation.ts): the instance may remain. */
function cancelledOutcome(id: number, error: unknown, why: string): Outcome {
  if (!(error instanceof CancelledError)) throw error;
  return { id, gone: false, why, cancelled: true };
}

/** Waits (bounded) until the instance is no longer on the account. */
async function goneBy(
  run: Run,
  id: number,
  intervalMs: number,
  deadlineMs: number,
): Promise<boolean> {
  const gone = await watchInstance(
    run.client,
    id,
    intervalMs,
    deadlineMs,
    (instance) => (instance === undefined ? true : undefined),
    run.cancellation.signal,
  );
  return gone === true;
}

/** Destroys the instance ourselves and waits until it is gone. */
async function destroyAndWait(
  run: Run,
  id: number,
  intervalMs: number,
  deadlineMs: number,
): Promise<Outcome> {
  try {
    await run.client.instances.destroy(id);
  } catch (error) {
    const said = error instanceof Error ? error.message : String(error);
    return { id, gone: false, why: `destroying it failed: ${said}` };
  }
  try {
    return (await goneBy(run, id, intervalMs, deadlineMs))
      ? { id, gone: true }
      : { id, gone: false, why: "it was destroyed but is still listed" };
  } catch (error) {
    return cancelledOutcome(id, error, "destroyed, then cancelled before it was confirmed gone");
  }
}

/**
 * Waits until every worker the delete answered is gone from the account. Workers the service
 * could not destroy are destroyed here at once; those it destroyed get half the time to go,
 * then are destroyed here too. Throws a {@link WorkersLeftError} naming each instance still on
 * the account at the deadline, and what to do.
 */
export async function releaseWorkers(
  run: Run,
  /** What was deleted, e.g. `worker group 12`. */
  what: string,
  answer: DeletedWorkers,
  options: ReleaseOptions,
): Promise<void> {
  const failed = [...new Set(answer.failed_workers)];
  const deleted = [...new Set(answer.deleted_workers)].filter((id) => !failed.includes(id));
  if (failed.length + deleted.length === 0) return;
  const started = Date.now();
  const deadlineMs = started + options.timeoutMs;
  const releaseDeadlineMs = started + options.timeoutMs / 2;
  run.progress(
    `${what}: waiting until its ${failed.length + deleted.length} worker instance(s) are gone` +
      (failed.length > 0 ? ` (destroying ${failed.length} the service could not)` : ""),
  );
  const outcomes = await Promise.all([
    ...failed.map((id) => destroyAndWait(run, id, options.intervalMs, deadlineMs)),
    ...deleted.map(async (id): Promise<Outcome> => {
      try {
        if (await goneBy(run, id, options.intervalMs, releaseDeadlineMs)) {
          return { id, gone: true };
        }
      } catch (error) {
        return cancelledOutcome(id, error, "cancelled before it was confirmed gone");
      }
      run.progress(`${what}: worker instance ${id} outlived its release; destroying it`);
      return destroyAndWait(run, id, options.intervalMs, deadlineMs);
    }),
  ]);
  const left = outcomes.filter((outcome) => !outcome.gone);
  if (left.length === 0) return;
  if (left.some((outcome) => !outcome.gone && outcome.cancelled === true)) {
    throw new WorkersLeftError(
      `cancelled: ${what} was deleted, but ${left.length} of its worker instances may remain ` +
        `on the account:\n` +
        left
          .map(
            (outcome) =>
              `worker instance ${outcome.id} (${outcome.gone ? "" : outcome.why}): if it is ` +
              `still there, destroy it yourself (the console, or ` +
              `DELETE /api/v0/instances/${outcome.id}/); it is billed while it exists`,
          )
          .join("\n"),
      left.map((outcome) => outcome.id),
    );
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  const lines = left.map(
    (outcome) =>
      `worker instance ${outcome.id} is still on the account ${seconds} s after ${what} was ` +
      `deleted (${outcome.gone ? "" : outcome.why}): destroy it yourself (the console, or ` +
      `DELETE /api/v0/instances/${outcome.id}/); it is billed while it exists`,
  );
  throw new WorkersLeftError(
    `${what} was deleted, but ${left.length} of its worker instances could not be removed:\n` +
      lines.join("\n"),
    left.map((outcome) => outcome.id),
  );
}

/** How a delete whose answer names the workers is sent, and what to do when that answer is lost. */
export interface WorkerDelete {
  /** What is deleted, e.g. `worker group 12`. */
  readonly what: string;
  /** Sends the delete (never sent again by the client once it may have reached the service). */
  readonly send: () => Promise<DeletedWorkers>;
  /** The service says it does not exist (deleted before, or outside Pulumi). */
  readonly isGone: (error: unknown) => boolean;
  /** Whether it is still on the account (a fresh read). */
  readonly exists: () => Promise<boolean>;
  /** Instances still on the account that may be its workers (undefined: not known). */
  readonly suspects: () => Promise<number[] | undefined>;
}

/**
 * Sends the delete and returns its answer, or undefined when it was already gone. The answer is
 * the only place the service names the workers it releases or could not: a delete whose answer
 * was lost is never taken for done. When the thing is still there, the delete is sent again;
 * when it is gone, the answer is lost for good, and the error says which instances to look at.
 */
export async function deleteNamingWorkers(
  run: Run,
  request: WorkerDelete,
): Promise<DeletedWorkers | undefined> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request.send();
    } catch (error) {
      if (request.isGone(error)) {
        // On a first attempt: gone before this delete. After a lost answer: ours, unknown.
        if (attempt === 1) return undefined;
        throw await lostAnswer(request, error);
      }
      if (!(error instanceof GpuCloudError) || !error.mayHaveCreated || attempt >= 3) throw error;
      if (!(await request.exists())) throw await lostAnswer(request, error);
      run.progress(`${request.what}: the delete's answer was lost and it is still there; again`);
    }
  }
}

async function lostAnswer(request: WorkerDelete, cause: unknown): Promise<Error> {
  const suspects = await request.suspects().catch(() => undefined);
  const said = cause instanceof Error ? cause.message : String(cause);
  const look =
    suspects === undefined
      ? "look at the account's instances (getInstances, or the console)"
      : suspects.length === 0
        ? "no instance launched from its template is on the account now"
        : `instances launched from its template still on the account: ${suspects.join(", ")} ` +
          `(some may be your own)`;
  return new Error(
    `${request.what} was deleted, but the service's answer, which names the worker instances ` +
      `it releases and those it could not, was lost (${said}): some may still be on the ` +
      `account, billed; ${look}. Destroy those that are its workers (the console, or ` +
      `DELETE /api/v0/instances/{id}/).`,
  );
}
