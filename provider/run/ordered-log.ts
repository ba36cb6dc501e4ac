/**
 * Lines for the engine's display, sent one at a time in the order they were made. Each is a
 * unary gRPC call: sent together, they may reach the engine in any order, and a row's last
 * status was then not its latest ("instance 7: running" after "instance 7 is running (attempt
 * 1)"). A line is sent once the engine has answered the one before it (or failed to).
 *
 * A line made as its row's status (`statusOf`) still waiting its turn when a newer status of the
 * same row is made is not sent at all: the dynamic door's running total of the plan, which the
 * display replaces at once (a plan made one for each priced resource, 80 of 200 in the bench's
 * stack, behind the lines that stay). Not every ephemeral line is such a status: a
 * non-interactive display (CI's log) prints each, and the plugin's say what a change does
 * ("destroyed before its replacement is rented").
 */
export class OrderedLog<Request> {
  #last: Promise<void> = Promise.resolve();
  /** Lines made and not answered (or skipped) yet. */
  #waiting = 0;
  #made = 0;
  /** Each row's latest status, by the order it was made in. */
  readonly #latestStatus = new Map<string, number>();

  constructor(private readonly send: (request: Request, done: () => void) => void) {}

  /** `statusOf`: the row whose status the line is, where a newer status makes it moot. */
  log(request: Request, statusOf?: string): void {
    const turn = ++this.#made;
    if (statusOf !== undefined) this.#latestStatus.set(statusOf, turn);
    this.#waiting += 1;
    this.#last = this.#last.then(
      () =>
        new Promise<void>((resolve) => {
          let finished = false;
          // Once, should `send` both call it and throw.
          const done = () => {
            if (finished) return;
            finished = true;
            this.#waiting -= 1;
            resolve();
          };
          if (statusOf !== undefined && this.#latestStatus.get(statusOf) !== turn) {
            done();
            return;
          }
          if (statusOf !== undefined) this.#latestStatus.delete(statusOf);
          try {
            this.send(request, done);
          } catch {
            // Progress is best effort: a line that cannot be sent must not hold up the next.
            done();
          }
        }),
    );
  }

  /** Whether every line made so far was answered (or skipped). */
  get allAnswered(): boolean {
    return this.#waiting === 0;
  }

  /** Resolves once every line made so far was answered: for tests and an orderly close. */
  flushed(): Promise<void> {
    return this.#last;
  }
}
