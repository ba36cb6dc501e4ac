import type * as pulumi from "@pulumi/pulumi";
import type { Instance as InstanceWire } from "../client";
import {
  type Expiry,
  expiresAtOf,
  expiryFrom,
  lifetimeSecondsOf,
  type OnExpiry,
  onstartCommandOf,
  readOnstart,
  type WatchdogRules,
  wrappedOnstartTooLong,
} from "../shared/expiry-watchdog";
import type { IdleAction, IdleRule } from "../shared/idle-watchdog";
import { encodeOnstart, onstartTooLong } from "../shared/onstart";
import { fieldFailure } from "../shared/validation";
import type { Run } from "../run/run";
import { type InstanceInputs, runtypeOf } from "./instance-inputs";

// maxLifetime and onExpiry of an Instance, and of every node of a NodeGroup, and idleShutdown,
// which the same watchdog enforces: what check refuses, what create bakes into the onstart (the
// watchdog itself is shared/expiry-watchdog.ts), what a diff changes and why, and what a
// refresh reads back.

/** The fields that declare a lifetime, alike on Instance and NodeGroup. */
export interface LifetimeInputs {
  readonly maxLifetime?: string | undefined;
  readonly onExpiry?: OnExpiry | undefined;
}

/** A lifetime declared: its seconds and what happens at its end. */
export interface Lifetime {
  readonly maxLifetimeSeconds: number;
  readonly onExpiry: OnExpiry;
}

/** The lifetime the inputs declare (onExpiry defaults to destroy); undefined without one. */
export function lifetimeOf(inputs: LifetimeInputs): Lifetime | undefined {
  const seconds =
    inputs.maxLifetime === undefined ? undefined : lifetimeSecondsOf(inputs.maxLifetime);
  return seconds === undefined
    ? undefined
    : { maxLifetimeSeconds: seconds, onExpiry: inputs.onExpiry ?? "destroy" };
}

/** The idle rule, alike on Instance and NodeGroup. */
export interface IdleShutdownInputs {
  readonly idleShutdown?: { readonly after: string; readonly action?: IdleAction | undefined };
}

/** The idle rule the inputs declare (action defaults to destroy); undefined without one. */
export function idleRuleOf(inputs: IdleShutdownInputs): IdleRule | undefined {
  const given = inputs.idleShutdown;
  const seconds = given === undefined ? undefined : lifetimeSecondsOf(given.after);
  return seconds === undefined || given === undefined
    ? undefined
    : { afterSeconds: seconds, action: given.action ?? "destroy" };
}

/**
 * True when the idle rule means something else: the onstart that carries it must change. The
 * same period written otherwise (`1800s` for `30m`), or the default action written out, is not.
 */
export function idleRuleChanged(olds: IdleShutdownInputs, news: IdleShutdownInputs): boolean {
  return JSON.stringify(idleRuleOf(olds)) !== JSON.stringify(idleRuleOf(news));
}

/** True when idleShutdown differs as written (what changes nothing is still recorded). */
export function idleShutdownFieldChanged(
  olds: IdleShutdownInputs,
  news: IdleShutdownInputs,
): boolean {
  return JSON.stringify(olds.idleShutdown) !== JSON.stringify(news.idleShutdown);
}

/** The expiry of a create that starts now: the deadline is fixed from here on. */
export function expiryAtCreate(inputs: LifetimeInputs, nowMs = Date.now()): Expiry | undefined {
  const lifetime = lifetimeOf(inputs);
  return lifetime === undefined
    ? undefined
    : expiryFrom(lifetime.maxLifetimeSeconds, lifetime.onExpiry, nowMs);
}

/** The expiry a resource recorded at its create, which the instances it rents later share. */
export function recordedExpiry(
  props: LifetimeInputs & { readonly expiresAt?: string | undefined },
): Expiry | undefined {
  const lifetime = lifetimeOf(props);
  const deadlineMs = props.expiresAt === undefined ? NaN : Date.parse(props.expiresAt);
  if (lifetime === undefined || Number.isNaN(deadlineMs)) return undefined;
  return { ...lifetime, deadlineEpochSeconds: Math.floor(deadlineMs / 1000) };
}

/** When the instance's own watchdog says it expires, from the onstart the service shows. */
export function expiresAtShownBy(instance: InstanceWire | undefined): string | undefined {
  const expiry = instance?.onstart ? readOnstart(instance.onstart).expiry : undefined;
  return expiry === undefined ? undefined : expiresAtOf(expiry);
}

/**
 * The lifetime fields whose change replaces: the deadline and the action are in the running
 * instance's onstart, which the service cannot change in place. Adding or removing maxLifetime
 * is a change of it; the same duration written otherwise (`480m` for `8h`) is not, nor is
 * onExpiry without maxLifetime.
 */
export function lifetimeReplaces(
  olds: LifetimeInputs,
  news: LifetimeInputs,
): ("maxLifetime" | "onExpiry")[] {
  const before = lifetimeOf(olds);
  const after = lifetimeOf(news);
  if (before?.maxLifetimeSeconds !== after?.maxLifetimeSeconds) return ["maxLifetime"];
  return before?.onExpiry === after?.onExpiry ? [] : ["onExpiry"];
}

/** True when the lifetime fields differ as written (what does not replace is recorded). */
export function lifetimeFieldsChanged(olds: LifetimeInputs, news: LifetimeInputs): boolean {
  return olds.maxLifetime !== news.maxLifetime || olds.onExpiry !== news.onExpiry;
}

/**
 * Why the recorded instance (or group) must be rented anew: its deadline has passed, so its
 * watchdog has destroyed or stopped it. Undefined while it has not.
 */
export function expiredReason(
  olds: LifetimeInputs & { readonly expiresAt?: string | undefined },
  nowMs = Date.now(),
): string | undefined {
  const expiry = recordedExpiry(olds);
  if (expiry === undefined || nowMs < expiry.deadlineEpochSeconds * 1000) return undefined;
  const what =
    expiry.onExpiry === "stop"
      ? "its watchdog stopped it (its disk bills until it is replaced)"
      : "its watchdog destroyed it";
  return `expired at ${expiresAtOf(expiry)} (maxLifetime ${olds.maxLifetime ?? ""}): ${what}`;
}

/**
 * Says at preview (and up) why an expired resource is replaced: `what` names it, e.g.
 * `trainer: instance 1000001`.
 */
export function reportExpired(
  run: Run,
  olds: LifetimeInputs & { readonly expiresAt?: string | undefined },
  what: string,
): void {
  const reason = expiredReason(olds);
  if (reason !== undefined) run.progress(`${what} ${reason}; it is replaced by a new one`);
}

/** The configured address, or undefined when the configuration is not sound (check says so). */
export function configuredBaseUrl(run: Run): string | undefined {
  try {
    return run.baseUrl;
  } catch {
    return undefined;
  }
}

/**
 * A launch whose onstart the service does not run carries no watchdog: in an `args` (entrypoint)
 * launch the image's entrypoint runs instead, and a VM boots its own system. Refused rather
 * than rented with a limit that would not hold.
 */
function runsNoOnstart(runtype: string | null | undefined): boolean {
  return runtype === "vm" || runtype === "args";
}

/**
 * The check failures of the lifetime fields and of the onstart that carries the watchdog:
 * onExpiry without maxLifetime, a launch that runs no onstart, and an onstart that does not fit
 * the service's limit (with the watchdog, when there is one). `baseUrl` is the configured
 * address, when the configuration is sound (else check reports that).
 */
export function lifetimeFailures(
  inputs: LifetimeInputs & IdleShutdownInputs & Pick<InstanceInputs, "onstart" | "runtype">,
  news: Record<string, unknown>,
  baseUrl: string | undefined,
): pulumi.dynamic.CheckFailure[] {
  const failures: pulumi.dynamic.CheckFailure[] = [];
  if (news["onExpiry"] !== undefined && news["maxLifetime"] === undefined) {
    failures.push(
      fieldFailure(
        "onExpiry",
        'applies at the end of maxLifetime; give maxLifetime (e.g. "8h") or leave onExpiry out',
      ),
    );
  }
  const expiry = expiryAtCreate(inputs);
  if (expiry !== undefined && runsNoOnstart(inputs.runtype)) {
    failures.push(
      fieldFailure(
        "maxLifetime",
        `is enforced by a watchdog in the onstart, which a runtype ${inputs.runtype ?? ""} ` +
          "launch does not run; use runtype ssh or jupyter, or leave maxLifetime out",
      ),
    );
  }
  failures.push(...idleFailures(inputs, expiry));
  const onstart = typeof inputs.onstart === "string" ? inputs.onstart : undefined;
  const rules: WatchdogRules = { expiry, idle: idleRuleOf(inputs) };
  const watched = rules.expiry !== undefined || rules.idle !== undefined;
  const tooLong =
    watched && baseUrl !== undefined
      ? wrappedOnstartTooLong(onstart, rules, baseUrl)
      : onstart === undefined
        ? undefined
        : onstartTooLong(onstart);
  if (tooLong !== undefined) failures.push(fieldFailure("onstart", tooLong));
  return failures;
}

/**
 * idleShutdown's failures: a period longer than maxLifetime (the instance would end first), and
 * a launch that runs no onstart (as maxLifetime's).
 */
function idleFailures(
  inputs: IdleShutdownInputs & Pick<InstanceInputs, "runtype">,
  expiry: Expiry | undefined,
): pulumi.dynamic.CheckFailure[] {
  const idle = idleRuleOf(inputs);
  if (idle === undefined) return [];
  const failures: pulumi.dynamic.CheckFailure[] = [];
  if (expiry !== undefined && idle.afterSeconds > expiry.maxLifetimeSeconds) {
    failures.push(
      fieldFailure(
        "idleShutdown.after",
        "is longer than maxLifetime, which ends the instance first; give a shorter period, " +
          "or a longer maxLifetime",
      ),
    );
  }
  if (runsNoOnstart(inputs.runtype)) {
    failures.push(
      fieldFailure(
        "idleShutdown",
        `is enforced by a watchdog in the onstart, which a runtype ${inputs.runtype ?? ""} ` +
          "launch does not run; use runtype ssh or jupyter, or leave idleShutdown out",
      ),
    );
  }
  return failures;
}

/**
 * The onstart command a rent sends: the program's onstart, after the watchdog when the
 * instance expires or has an idle rule. A template gives the onstart (and runtype) when the program does not: the
 * watchdog wraps the template's, which the onstart sent replaces (one template search, only
 * then). Throws, renting nothing, when the watchdog cannot be sent: an instance is never rented
 * with a lifetime that would not hold.
 */
export async function onstartToSend(
  run: Run,
  inputs: InstanceInputs,
  expiry: Expiry | undefined,
  /** The resource's name, which a failure leads with. */
  name: string,
): Promise<string | undefined> {
  const rules: WatchdogRules = { expiry, idle: idleRuleOf(inputs) };
  if (expiry === undefined && rules.idle === undefined) {
    // Check refused an onstart that does not fit.
    const encoded = inputs.onstart === undefined ? undefined : encodeOnstart(inputs.onstart);
    return encoded?.ok ? encoded.command : undefined;
  }
  let onstart = inputs.onstart;
  let runtype: string | null | undefined = runtypeOf(inputs);
  if (inputs.templateHashId !== undefined && (onstart === undefined || runtype === undefined)) {
    const [template] = await run.client.templates.search({
      filters: { hash_id: { eq: inputs.templateHashId } },
    });
    onstart ??= template?.onstart ?? undefined;
    runtype ??= template?.runtype;
  }
  if (runsNoOnstart(runtype)) {
    throw new Error(
      `${name}: ${expiry === undefined ? "idleShutdown" : "maxLifetime"}: template ` +
        `${inputs.templateHashId ?? ""} launches runtype ` +
        `${runtype ?? ""}, which runs no onstart to carry the watchdog; give runtype ssh or ` +
        `jupyter. Nothing was rented.`,
    );
  }
  const encoded = onstartCommandOf(onstart, rules, run.baseUrl);
  if (!encoded.ok) {
    throw new Error(
      `${name}: onstart: ${wrappedOnstartTooLong(onstart, rules, run.baseUrl) ?? "too long"}. ` +
        `Nothing was rented.`,
    );
  }
  return encoded.command;
}
