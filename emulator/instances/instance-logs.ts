import { randomBytes } from "node:crypto";

/**
 * What instances' containers printed (their onstart's stdout and stderr, as `docker logs` shows
 * a container's) and what the emulator's daemon did with them, in memory only. The logs
 * endpoint (PUT /api/v0/instances/request_logs/{id}) takes a snapshot, which its result URL then
 * serves without a key, as the service's S3 URL does.
 */

/** Per instance and kind, so that a chatty onstart does not grow the emulator without end. */
const MAX_LOG_CHARS = 1_000_000;
/** Result URLs answer the most recent snapshots; older ones are gone, as expired uploads are. */
const MAX_SNAPSHOTS = 200;
const MASK = "********";

export interface LogRequest {
  /** Lines from the end (`--tail`); all when undefined. */
  readonly tail: number | undefined;
  /** Lines containing this text (`--filter`), after the tail is taken. */
  readonly filter: string | undefined;
  /** The daemon's log instead of the container's (`--daemon-logs`). */
  readonly daemon: boolean;
}

/** The end of `text` within the bound, cut at a line start so that no line is left half. */
function bounded(text: string): string {
  if (text.length <= MAX_LOG_CHARS) return text;
  const cut = text.length - MAX_LOG_CHARS;
  const lineStart = text.indexOf("\n", cut);
  return lineStart === -1 ? text.slice(cut) : text.slice(lineStart + 1);
}

/** `docker logs --tail N | grep -F TEXT`: the documents do not say the order; this is the pipe's. */
function select(text: string, request: LogRequest): string {
  if (text === "") return "";
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  const { tail, filter } = request;
  const tailed = tail === undefined ? lines : tail === 0 ? [] : lines.slice(-tail);
  const filtered = filter === undefined ? tailed : tailed.filter((line) => line.includes(filter));
  return filtered.length === 0 ? "" : `${filtered.join("\n")}\n`;
}

export class InstanceLogs {
  readonly #container = new Map<number, string>();
  readonly #daemon = new Map<number, string>();
  readonly #snapshots = new Map<string, string>();

  /** Output of the instance's onstart, as it comes. */
  append(instanceId: number, text: string): void {
    this.#container.set(instanceId, bounded((this.#container.get(instanceId) ?? "") + text));
  }

  /** One line of the daemon's log: what it did with the instance's container. */
  note(instanceId: number, line: string): void {
    const stamped = `${new Date().toISOString()} ${line}\n`;
    this.#daemon.set(instanceId, bounded((this.#daemon.get(instanceId) ?? "") + stamped));
  }

  /** A destroyed instance's logs go with it: only those of `living` ids stay. */
  retain(living: ReadonlySet<number>): void {
    for (const logs of [this.#container, this.#daemon]) {
      for (const instanceId of logs.keys()) if (!living.has(instanceId)) logs.delete(instanceId);
    }
  }

  /**
   * Takes a snapshot of the requested lines and answers its token. `secret` (the instance's own
   * key) is masked: the result URL needs no key, so it must not hand out a credential that an
   * onstart printed (one that runs `env`, say).
   */
  snapshot(instanceId: number, request: LogRequest, secret: string | undefined): string {
    const source = request.daemon ? this.#daemon : this.#container;
    const raw = source.get(instanceId) ?? "";
    const masked = secret === undefined ? raw : raw.split(secret).join(MASK);
    const token = randomBytes(16).toString("hex");
    this.#snapshots.set(token, select(masked, request));
    if (this.#snapshots.size > MAX_SNAPSHOTS) {
      const oldest = this.#snapshots.keys().next().value;
      if (oldest !== undefined) this.#snapshots.delete(oldest);
    }
    return token;
  }

  snapshotText(token: string): string | undefined {
    return this.#snapshots.get(token);
  }
}
