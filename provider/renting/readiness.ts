import * as net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { GpuCloudClient, Instance as InstanceWire } from "../client";
import { deadEndStatuses } from "../client";
import { CancelledError } from "../run/cancellation";
import { portsShownBy } from "./ports";
import { type Readiness, readinessTiming } from "./readiness-inputs";

// The readiness wait: after the instance runs, one check per interval (an HTTP GET, a TCP
// connection, or a read of its logs) until it passes, the check's timeout passes, or the
// engine cancels. Status reads are the shared rounds', and only while nothing answers (the port
// not mapped yet, a refusal, a logs check): an instance that stopped running answers nothing
// either, and ends the wait; an app that answers "not yet" costs no status read.

export type ReadyOutcome =
  | { kind: "ready"; instance: InstanceWire }
  /** The check never passed in time (or the instance stopped running): `answer` is its last. */
  | { kind: "not ready"; instance: InstanceWire; answer: string; createDeadline: boolean }
  | { kind: "cancelled"; instance: InstanceWire };

export interface ReadinessWait {
  readonly client: GpuCloudClient;
  readonly instanceId: number;
  readonly readiness: Readiness;
  /** Create's own deadline (epoch ms), which bounds the wait too. */
  readonly deadlineMs: number;
  readonly signal: AbortSignal;
  readonly progress: (message: string) => void;
}

/** How long one probe may take: within its interval, and never long. */
const probeTimeoutMs = (intervalMs: number) => Math.min(Math.max(intervalMs, 1000), 10_000);
/** Progress repeats an unchanged answer this often. */
const REPEAT_MS = 10_000;

/** Waits until the check passes; never throws for a failed check, only for a failed read. */
export async function waitUntilReady(
  wait: ReadinessWait,
  running: InstanceWire,
): Promise<ReadyOutcome> {
  const { readiness, signal, instanceId } = wait;
  const timing = readinessTiming(readiness);
  let instance = running;
  let answer = "not checked yet";
  try {
    // Within create's deadline too: a delay past it would hold the create beyond its bound.
    await pause(Math.min(timing.initialDelayMs, Math.max(0, wait.deadlineMs - Date.now())), signal);
    const checkDeadlineMs = Date.now() + timing.timeoutMs;
    const endMs = Math.min(checkDeadlineMs, wait.deadlineMs);
    let since = Date.now();
    let toldAt = 0;
    for (;;) {
      const target = targetOf(readiness, instance);
      const started = Date.now();
      const result =
        target === undefined
          ? { ok: false, answered: false, answer: notMapped(readiness) }
          : await probe(wait, target, timing.intervalMs);
      if (result.ok) {
        wait.progress(`instance ${instanceId} is ready (${describe(readiness, target)})`);
        return { kind: "ready", instance };
      }
      if (result.answer !== answer) since = Date.now();
      if (result.answer !== answer || Date.now() - toldAt >= REPEAT_MS) {
        const seconds = Math.round((Date.now() - since) / 1000);
        wait.progress(
          `instance ${instanceId}: waiting for ${describe(readiness, target)}, ${result.answer}` +
            (seconds > 0 ? ` for ${seconds} s` : ""),
        );
        toldAt = Date.now();
      }
      answer = result.answer;
      if (Date.now() >= endMs) {
        return { kind: "not ready", instance, answer, createDeadline: endMs < checkDeadlineMs };
      }
      const nextMs = Math.min(started + timing.intervalMs, endMs);
      if (!result.answered) {
        // The service maps ports some time after running, and an instance that stopped (or is
        // gone) answers nothing: read it again, in the shared rounds.
        const shown = await wait.client.instances.nextStatus(instanceId, timing.intervalMs, signal);
        const status = shown?.actual_status ?? "gone";
        if (shown === undefined || (deadEndStatuses as readonly string[]).includes(status)) {
          return {
            kind: "not ready",
            instance,
            answer: `the instance is ${status}`,
            createDeadline: false,
          };
        }
        instance = shown;
      }
      await pause(nextMs - Date.now(), signal);
    }
  } catch (error) {
    if (error instanceof CancelledError || signal.aborted) return { kind: "cancelled", instance };
    throw error;
  }
}

type Target =
  /** `shown`: the URL with its path left out (a path may hold a token), for progress lines. */
  | { kind: "http"; url: string; shown: string }
  | { kind: "tcp"; host: string; port: number }
  | { kind: "logs"; line: string };

/** Where the check goes: the port's public address as the instance's port map says. */
function targetOf(readiness: Readiness, instance: InstanceWire): Target | undefined {
  if (readiness.onstartLine !== undefined) return { kind: "logs", line: readiness.onstartLine };
  const port = readiness.http?.port ?? readiness.tcp?.port;
  const mapped = portsShownBy(instance).ports?.[`${String(port)}/tcp`];
  if (mapped === undefined || mapped.publicIp === null) return undefined;
  const host = mapped.publicIp.includes(":") ? `[${mapped.publicIp}]` : mapped.publicIp;
  if (readiness.http !== undefined) {
    const origin = `http://${host}:${String(mapped.hostPort)}`;
    const path = readiness.http.path ?? "/";
    return {
      kind: "http",
      url: `${origin}${path}`,
      shown: `${origin}${path === "/" ? "/" : "/…"}`,
    };
  }
  return { kind: "tcp", host: mapped.publicIp, port: mapped.hostPort };
}

function notMapped(readiness: Readiness): string {
  const port = readiness.http?.port ?? readiness.tcp?.port;
  return `port ${String(port)}/tcp is not mapped yet`;
}

/** What is waited for, in words: the URL (its path left out), the address, or the line. */
function describe(readiness: Readiness, target: Target | undefined): string {
  if (target?.kind === "http") return target.shown;
  if (target?.kind === "tcp") return `tcp://${target.host}:${String(target.port)}`;
  if (target?.kind === "logs") return "its onstart's line";
  return `port ${String(readiness.http?.port ?? readiness.tcp?.port)}`;
}

/** One check. An answer that is no pass says what came back (a status, a refusal). */
async function probe(wait: ReadinessWait, target: Target, intervalMs: number): Promise<Probed> {
  const timeout = AbortSignal.any([wait.signal, AbortSignal.timeout(probeTimeoutMs(intervalMs))]);
  if (target.kind === "logs") {
    // A logs read that fails is one failed check, not the end of the wait.
    const text = await wait.client.instances
      .logs(wait.instanceId, { filter: target.line }, timeout)
      .catch((error: unknown) => {
        if (wait.signal.aborted) throw new CancelledError();
        return error instanceof Error ? error : new Error(String(error));
      });
    if (text instanceof Error) {
      return { ok: false, answered: false, answer: `logs not readable (${text.message})` };
    }
    const ok = text.split("\n").some((line) => line.includes(target.line));
    // The logs of an instance that stopped read as well: its status tells.
    return { ok, answered: false, answer: ok ? "printed" : "not printed yet" };
  }
  if (target.kind === "tcp") return connect(target.host, target.port, timeout);
  try {
    const response = await fetch(target.url, { signal: timeout, redirect: "manual" });
    await response.body?.cancel();
    const expected = wait.readiness.http?.expectStatus;
    const ok =
      expected === undefined
        ? response.status >= 200 && response.status < 300
        : response.status === expected;
    return { ok, answered: true, answer: String(response.status) };
  } catch (error) {
    if (wait.signal.aborted) throw new CancelledError();
    return { ok: false, answered: false, answer: failureOf(error) };
  }
}

/** A check's outcome; `answered`: the app itself answered (an HTTP status, a connection). */
interface Probed {
  ok: boolean;
  answered: boolean;
  answer: string;
}

function connect(host: string, port: number, signal: AbortSignal): Promise<Probed> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, signal });
    socket.once("connect", () => {
      socket.destroy();
      resolve({ ok: true, answered: true, answer: "connected" });
    });
    socket.once("error", (error) => {
      socket.destroy();
      resolve({ ok: false, answered: false, answer: failureOf(error) });
    });
  });
}

/** A failed probe in words, never more than the error's code (no address of the user's). */
function failureOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = cause instanceof Error && "code" in cause ? String(cause.code) : undefined;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET") return "connection reset";
  if (cause instanceof Error && (cause.name === "TimeoutError" || cause.name === "AbortError"))
    return "no answer in time";
  return code === undefined ? "no answer" : `no answer (${code})`;
}

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw new CancelledError();
  if (ms <= 0) return;
  await sleep(ms, undefined, { signal }).catch(() => {
    throw new CancelledError();
  });
}
