import type { Fault } from "./faults";

/** Bounded so that a long-running emulator in someone's CI does not grow without end. */
const MAX_ENTRIES = 10_000;

/** Method and path only: bodies and headers carry secrets and keys. */
export interface RequestLogEntry {
  seq: number;
  method: string;
  path: string;
  /** null while in flight; 0 when the connection was dropped. */
  status: number | null;
  fault?: Fault["kind"];
}

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private nextSeq = 1;

  start(method: string, path: string): RequestLogEntry {
    // The older official client puts the key on every URL (`?api_key=`): never log it.
    const logged = path.replace(/([?&]api_key=)[^&]*/g, "$1REDACTED");
    const entry: RequestLogEntry = { seq: this.nextSeq++, method, path: logged, status: null };
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES) this.entries.shift();
    return entry;
  }

  list(): readonly RequestLogEntry[] {
    return this.entries;
  }

  clear(): void {
    this.entries = [];
    this.nextSeq = 1;
  }
}
