import { OrderedLog } from "./ordered-log";

/** A line for the engine's display, on the stack's row. */
interface EngineLine {
  readonly message: string;
  /** A status, replaced by the next, rather than a line that stays. */
  readonly ephemeral: boolean;
}

/**
 * The dynamic door's lines for the engine's display, on the stack's row (a dynamic provider is
 * not told which resource it is working on; the native plugin sends each line with the URN of
 * the resource being worked on). They go one at a time, in the order they were made
 * (run/ordered-log.ts), straight over the engine client the SDK holds: the SDK's own logger
 * records a stack trace for every line, mapped through its source maps (about 3 ms a line, half
 * a second of a 200-resource refresh). A method's answer waits for its lines (`answered`): the
 * engine may end the step (and a refresh or preview its display) as soon as the last answer
 * arrives, and a line still on its way is then lost (a refresh once showed the spare's outbid
 * line and not gpu's). Best effort: a line that cannot be sent is dropped.
 */
export class EngineLines {
  readonly #lines: OrderedLog<EngineLine>;

  constructor(
    engineAddress: string | undefined,
    send: (line: EngineLine, engineAddress: string | undefined) => Promise<void> = sendLine,
  ) {
    this.#lines = new OrderedLog((line, done) => {
      void send(line, engineAddress).finally(done);
    });
  }

  /** A line; an ephemeral one is the stack row's status, which the next replaces. */
  line(message: string, ephemeral = false): void {
    this.#lines.log({ message, ephemeral }, ephemeral ? "stack" : undefined);
  }

  /** Resolves once every line made so far was answered, or after `boundMs`. */
  async answered(boundMs = 2000): Promise<void> {
    // Most methods make no line, and wait for nothing.
    if (this.#lines.allAnswered) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    await Promise.race([this.#lines.flushed(), bound]);
    clearTimeout(timer);
  }
}

/** One line on its own (the plugin's, before it has an engine connection of its own). */
export function logToEngine(
  message: string,
  engineAddress: string | undefined,
  options: { ephemeral?: boolean } = {},
): Promise<void> {
  return sendLine({ message, ephemeral: options.ephemeral === true }, engineAddress);
}

type EngineProto = typeof import("@pulumi/pulumi/proto/engine_pb");

/** A line the engine does not answer within this no longer holds up the next. */
const lineDeadlineMs = 5000;

async function sendLine(line: EngineLine, engineAddress: string | undefined): Promise<void> {
  try {
    const sdk = await import("@pulumi/pulumi");
    // The dynamic-provider process is given the engine's address as its first argument but
    // does not hand it to the SDK: it is handed over here, once. The organization is not known
    // to a provider process; it is not used for logging.
    if (!sdk.runtime.hasEngine() && engineAddress && /^[\w.[\]:-]+:\d+$/.test(engineAddress)) {
      sdk.runtime.resetOptions(sdk.getProject(), sdk.getStack(), -1, engineAddress, "", false, "");
    }
    const engine = sdk.runtime.getEngine();
    if (engine === undefined) return;
    // Loaded with the SDK already (its runtime's engine client uses it). An ES import of this
    // generated CommonJS module would see none of its names.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { LogRequest, LogSeverity } = require("@pulumi/pulumi/proto/engine_pb") as EngineProto;
    const request = new LogRequest();
    request.setSeverity(LogSeverity.INFO);
    request.setMessage(`gpucloud: ${line.message}`);
    request.setUrn("");
    request.setEphemeral(line.ephemeral);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, lineDeadlineMs);
      engine.log(request, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } catch {
    // Best effort: a line that cannot be sent is dropped.
  }
}

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
