import type { Fault } from "./faults";

/** Bounded so that a long-running emulator in someone's CI does not grow without end. */
const MAX_ENTRIES = 10_000;

/** Method and path only: bodies and headers carry secrets and keys. */
export interface RequestLogEntry {
  seq: number;
  /** When the request arrived, ms since the epoch (the bench's timelines). */
  atMs: number;
  method: string;
  path: string;
  /** null while in flight; 0 when the connection was dropped. */
  status: number | null;
  fault?: Fault["kind"];
  /** Set when no document gives the service this method and path (see service-routing.ts). */
  undocumented?: true;
  /**
   * Set when the request was made with an instance's own key (CONTAINER_API_KEY), not an
   * account's: what shows that a container acted on its own instance. Never the key itself.
   */
  instanceKey?: true;
}

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private nextSeq = 1;
  private readonly byRequest = new WeakMap<object, RequestLogEntry>();
  /** Since the emulator started: clearing the log does not reset it. */
  private undocumentedCount = 0;

  /** Logs a request; `request` is what later calls name it by (see entryOf). */
  start(method: string, path: string, request?: object): RequestLogEntry {
    // The older official client puts the key on every URL (`?api_key=`): never log it.
    const logged = path.replace(/([?&]api_key=)[^&]*/g, "$1REDACTED");
    const entry: RequestLogEntry = {
      seq: this.nextSeq++,
      atMs: Date.now(),
      method,
      path: logged,
      status: null,
    };
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES) this.entries.shift();
    if (request !== undefined) this.byRequest.set(request, entry);
    return entry;
  }

  entryOf(request: object): RequestLogEntry | undefined {
    return this.byRequest.get(request);
  }

  markInstanceKey(request: object): void {
    const entry = this.byRequest.get(request);
    if (entry !== undefined) entry.instanceKey = true;
  }

  markUndocumented(request: object): void {
    const entry = this.byRequest.get(request);
    if (entry === undefined || entry.undocumented) return;
    entry.undocumented = true;
    this.undocumentedCount += 1;
  }

  /** Requests outside what the service documents, since the emulator started. */
  get undocumented(): number {
    return this.undocumentedCount;
  }

  list(): readonly RequestLogEntry[] {
    return this.entries;
  }

  clear(): void {
    this.entries = [];
    this.nextSeq = 1;
  }
}
