/**
 * Lines for the engine's display, sent one at a time in the order they were made. Each is a
 * unary gRPC call: sent together, they may reach the engine in any order, and a row's last
 * status was then not its latest ("instance 7: running" after "instance 7 is running (attempt
 * 1)"). A line is sent once the engine has answered the one before it (or failed to).
 */
export class OrderedLog<Request> {
  #last: Promise<void> = Promise.resolve();

  constructor(private readonly send: (request: Request, done: () => void) => void) {}

  log(request: Request): void {
    this.#last = this.#last.then(
      () =>
        new Promise<void>((resolve) => {
          try {
            this.send(request, resolve);
          } catch {
            // Progress is best effort: a line that cannot be sent must not hold up the next.
            resolve();
          }
        }),
    );
  }

  /** Resolves once every line made so far was answered: for tests and an orderly close. */
  flushed(): Promise<void> {
    return this.#last;
  }
}
