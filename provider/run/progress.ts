/**
 * Shows a progress line in `pulumi up`'s display, on the stack's row (a dynamic provider is
 * not told which resource it is working on): a run's progress unless its door knows better
 * (the native plugin sends each line with the URN of the resource being worked on). The
 * dynamic-provider process is given the engine's address as its first argument but does not
 * hand it to the SDK's logger, so it is handed over here, once. Progress is best effort: a line
 * that cannot be sent is dropped.
 */
export function logToEngine(
  message: string,
  engineAddress: string | undefined,
  options: { ephemeral?: boolean } = {},
): Promise<void> {
  return import("@pulumi/pulumi")
    .then(async (sdk) => {
      if (!sdk.runtime.hasEngine() && engineAddress && /^[\w.[\]:-]+:\d+$/.test(engineAddress)) {
        // The organization is not known to a provider process; it is not used for logging.
        sdk.runtime.resetOptions(
          sdk.getProject(),
          sdk.getStack(),
          -1,
          engineAddress,
          "",
          false,
          "",
        );
      }
      await sdk.log.info(`gpucloud: ${message}`, undefined, undefined, options.ephemeral);
    })
    .catch(() => undefined);
}

/**
 * The engine's log lines a run has sent and the engine has not answered yet. A method's lines
 * must reach the engine before its answer: the engine may end the step (and a refresh or
 * preview its display) as soon as the last answer arrives, and a line still on its way is then
 * lost (a refresh once showed the spare's outbid line and not gpu's). The wait is bounded, so
 * that an engine that does not answer a line holds nothing up for long.
 */
export class LinesInFlight {
  readonly #sending = new Set<Promise<void>>();

  /** Counts `line` as in flight until it is answered (or failed). */
  track(line: Promise<void>): void {
    this.#sending.add(line);
    void line.finally(() => this.#sending.delete(line));
  }

  /** Resolves once every line tracked so far was answered, or after `boundMs`. */
  async answered(boundMs = lineBoundMs): Promise<void> {
    if (this.#sending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    await Promise.race([Promise.all(this.#sending), bound]);
    clearTimeout(timer);
  }
}

const lineBoundMs = 2000;

/**
 * What was retried and why, at debug level, never a credential or a body. Best effort, like
 * progress: a line that cannot be logged must not reject unhandled. The standalone plugin
 * bundles the SDK (its resource classes import it anyway): there esbuild makes this import a
 * call into the bundle's own copy, which is always present.
 */
export function logRetry(event: {
  retry: number;
  endpoint: string;
  delayMs: number;
  reason: string;
}): void {
  void import("@pulumi/pulumi")
    .then((sdk) =>
      sdk.log.debug(
        `gpucloud: retry ${event.retry} of ${event.endpoint} in ${event.delayMs} ms (${event.reason})`,
      ),
    )
    .catch(() => undefined);
}
