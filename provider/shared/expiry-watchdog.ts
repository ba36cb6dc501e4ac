import { type IdleRule, idleTestLines, lookSecondsOf } from "./idle-watchdog";
import { decodeOnstart, encodeOnstart, type OnstartEncoding, onstartLimitChars } from "./onstart";

// maxLifetime, enforced on the instance itself. The provider acts only while someone runs
// Pulumi: a stack nobody destroys would bill forever. So the deadline is fixed at create and
// baked into the instance's onstart as a small POSIX-sh watchdog, started in the background
// before the user's onstart. The service reruns the onstart at each start, so the watchdog
// comes back after a stop and start, and counts down to the same absolute deadline. At the
// deadline it stops or destroys its own instance with the container's own key
// (CONTAINER_API_KEY, which the service puts in every container; it never appears in the
// onstart), through whichever of curl, wget and python3 the image has.

/** What the watchdog does at the deadline. */
export const onExpiryActions = ["destroy", "stop"] as const;
export type OnExpiry = (typeof onExpiryActions)[number];

/** What one instance's lifetime watchdog enforces: fixed at create, baked into its onstart. */
export interface Expiry {
  /** The lifetime declared, in seconds: carried in the onstart so that import gives it back. */
  readonly maxLifetimeSeconds: number;
  readonly onExpiry: OnExpiry;
  /** The deadline, in seconds since the epoch (UTC). */
  readonly deadlineEpochSeconds: number;
}

/**
 * The rules one watchdog enforces: maxLifetime's deadline, idleShutdown's idle rule, or both
 * (an instance with neither carries no watchdog).
 */
export interface WatchdogRules {
  readonly expiry?: Expiry | undefined;
  readonly idle?: IdleRule | undefined;
}

const secondsPerUnit = { s: 1, m: 60, h: 3600, d: 86_400 } as const;
type Unit = keyof typeof secondsPerUnit;

/** A lifetime as written: a whole number and one unit, e.g. `30s`, `90m`, `8h`, `3d`. */
export const maxLifetimePattern = /^([1-9][0-9]{0,7})([smhd])$/;

/**
 * The longest lifetime taken: a year. Longer is no limit a person means, and keeps the
 * deadline far from what a shell's arithmetic or a `date` can hold.
 */
export const longestLifetimeSeconds = 365 * secondsPerUnit.d;

/** The seconds a lifetime stands for (`8h` → 28800), or undefined when it is not one. */
export function lifetimeSecondsOf(text: string): number | undefined {
  const match = maxLifetimePattern.exec(text);
  if (match === null) return undefined;
  return Number(match[1]) * secondsPerUnit[match[2] as Unit];
}

/** A lifetime in seconds as a program writes it, in the largest unit that divides it. */
export function lifetimeTextOf(seconds: number): string {
  for (const unit of ["d", "h", "m"] as const) {
    if (seconds % secondsPerUnit[unit] === 0) return `${seconds / secondsPerUnit[unit]}${unit}`;
  }
  return `${seconds}s`;
}

/** The expiry of an instance created at `nowMs`: the deadline is absolute from then on. */
export function expiryFrom(maxLifetimeSeconds: number, onExpiry: OnExpiry, nowMs: number): Expiry {
  return {
    maxLifetimeSeconds,
    onExpiry,
    deadlineEpochSeconds: Math.floor(nowMs / 1000) + maxLifetimeSeconds,
  };
}

/** The deadline as outputs show it: ISO 8601, UTC, to the second (`2026-01-01T08:00:00Z`). */
export function expiresAtOf(expiry: Pick<Expiry, "deadlineEpochSeconds">): string {
  return new Date(expiry.deadlineEpochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * The address the watchdog calls: the configured base URL as the client calls it (its origin
 * and path, never a user or password it might hold, nor a query).
 */
export function apiAddressOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** One word for sh, whatever it holds: single-quoted, a quote as `'\''`. */
const shellWord = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** The text of a single-quoted sh word (shellWord's inverse), undefined when it is not one. */
function unquoted(word: string): string | undefined {
  if (!/^(?:'[^']*'|\\')+$/.test(word)) return undefined;
  return word.replace(
    /'([^']*)'|\\(')/g,
    (_all, inside?: string, quote?: string) => inside ?? quote ?? "",
  );
}

// python3's call: the method, address and body are its arguments, the key is read from its
// environment; a body is JSON. urlopen fails on any HTTP error, as curl -f and wget do.
const pythonCall =
  'import os,sys,urllib.request as r;m,u,b=sys.argv[1:];h={"Authorization":"Bearer "+' +
  'os.environ["CONTAINER_API_KEY"]};b and h.update({"Content-Type":"application/json"});' +
  "r.urlopen(r.Request(u,b.encode() or None,h,method=m),timeout=60)";

const header = (rules: WatchdogRules): string =>
  "# pulumi-gpucloud watchdog: " +
  [
    ...(rules.expiry === undefined
      ? []
      : [
          `maxLifetime ${rules.expiry.maxLifetimeSeconds}s, onExpiry ${rules.expiry.onExpiry}, ` +
            `expiresAt ${expiresAtOf(rules.expiry)}`,
        ]),
    ...(rules.idle === undefined
      ? []
      : [`idleShutdown ${rules.idle.afterSeconds}s, idleAction ${rules.idle.action}`]),
  ].join(", ");

/** The sh function `name` that stops or destroys the instance, with curl, wget or python3. */
const callLines = (name: string, stop: boolean): string[] => [
  `${name}(){ command -v curl&&curl -fsS -m60 -X${stop ? 'PUT -H"$j" -d"$b"' : "DELETE"} ` +
    '-H"$k" "$u"&&return',
  "command -v wget&&wget -qO- -T60 --method=" +
    `${stop ? 'PUT --header="$j" --body-data="$b"' : "DELETE"} --header="$k" "$u"&&return`,
  `command -v python3&&python3 -c '${pythonCall}' ${stop ? 'PUT "$u" "$b"' : `DELETE "$u" ''`};}`,
];

/** The start of the detached subshell: its address, key and (to stop) the request's body. */
const opening = (variables: string, address: string, stop: boolean): string =>
  `( (trap '' HUP;${variables}u=${address}$CONTAINER_ID/;` +
  'k="Authorization: Bearer $CONTAINER_API_KEY"' +
  (stop ? `;b='{"state":"stopped"}';j='Content-Type: application/json'` : "");

/** The end: the call (a function, or `$m` naming one), retried 9 times over about 5 minutes. */
const closing = (call: string): string =>
  `i=0;until ${call};do i=$((i+1));[ $i -gt 9 ]&&exit 1;sleep $((i*i));done)>/dev/null 2>&1 </dev/null &)`;

/**
 * The watchdog: lines of POSIX sh that return at once, leaving it running detached (a second
 * subshell, so that a user's `wait` does not wait for it; SIGHUP ignored; no terminal, its
 * output discarded). It sleeps in steps of at most a minute until `date +%s` reaches the
 * deadline (a clock that jumps, or a container paused and resumed, is late by a minute at
 * most), then calls the service with curl, else wget, else python3, retrying a failed call 9
 * times over about 5 minutes. A `date` that answers no number ends it doing nothing: no clock,
 * no verdict. With an idle rule it also looks at the instance's use (idle-watchdog.ts) every
 * few seconds between, and acts when every look for the whole period found it idle; the count
 * starts again at each start of the container.
 */
export function watchdogOf(rules: WatchdogRules, baseUrl: string): string {
  const address = shellWord(`${apiAddressOf(baseUrl)}/api/v0/instances/`);
  const { expiry, idle } = rules;
  if (idle === undefined) {
    // maxLifetime alone: the script instances have carried since it came, byte for byte, so
    // that theirs are still read back (unwrapOnstart).
    if (expiry === undefined) return "";
    const stop = expiry.onExpiry === "stop";
    return [
      header(rules),
      opening(`e=${expiry.deadlineEpochSeconds};`, address, stop),
      ...callLines("c", stop),
      "until n=$(date +%s);[ $n -ge $e ];do s=$((e-n));[ $s -gt 60 ]&&s=60;sleep $s;done",
      closing("c"),
    ].join("\n");
  }
  // The functions `d` destroys and `s` stops (sh keeps functions apart from variables, such as
  // the seconds `s` a look sleeps): only those the rules use are written.
  const actions = new Set([idle.action, ...(expiry === undefined ? [] : [expiry.onExpiry])]);
  const callOf = (action: OnExpiry) => (action === "stop" ? "s" : "d");
  const deadline = expiry === undefined ? "" : `e=${expiry.deadlineEpochSeconds};`;
  return [
    header(rules),
    opening(
      `${deadline}a=${idle.afterSeconds};p=${lookSecondsOf(idle.afterSeconds)};`,
      address,
      actions.has("stop"),
    ),
    ...[...actions].sort().flatMap((action) => callLines(callOf(action), action === "stop")),
    "t=;command -v timeout&&t='timeout 20'",
    ...idleTestLines(),
    "while :;do n=$(date +%s);case $n in ''|*[!0-9]*)exit;;esac;l=${l:-$n}",
    ...(expiry === undefined ? [] : [`[ $n -ge $e ]&&{ m=${callOf(expiry.onExpiry)};break;}`]),
    `if g;then [ $((n-l)) -ge $a ]&&{ m=${callOf(idle.action)};break;};else l=$n;fi`,
    "s=$p" + (expiry === undefined ? "" : ";[ $((e-n)) -lt $s ]&&s=$((e-n))") + ";sleep $s;done",
    closing("$m"),
  ].join("\n");
}

/** The user's onstart (none: an empty one) after the watchdog, kept exactly as it was. */
export function wrapOnstart(
  onstart: string | undefined,
  rules: WatchdogRules,
  baseUrl: string,
): string {
  return `${watchdogOf(rules, baseUrl)}\n${onstart ?? ""}`;
}

/** What a wrapped onstart holds: the watchdog's rules and address, and the user's onstart. */
export interface Unwrapped {
  readonly rules: WatchdogRules;
  readonly baseUrl: string;
  readonly onstart: string;
}

// The header and the start of the subshell: which rules, the deadline and the address.
const saidPattern =
  /^# pulumi-gpucloud watchdog: (?:maxLifetime (\d+)s, onExpiry (destroy|stop), expiresAt \S+)?(?:, )?(?:idleShutdown (\d+)s, idleAction (destroy|stop))?\n\( \(trap '' HUP;(?:e=(\d+);)?(?:a=\d+;p=\d+;)?u=((?:'[^']*'|\\')+)\$CONTAINER_ID\/;/;

/**
 * The parts of an onstart wrapOnstart made, or undefined for any other script. The watchdog
 * is made again from what it says and must match byte for byte, so that no user's script is
 * ever taken for one.
 */
export function unwrapOnstart(script: string): Unwrapped | undefined {
  const said = saidPattern.exec(script);
  if (said === null) return undefined;
  const [, lifetime, onExpiry, idleSeconds, idleAction, deadline, word = ""] = said;
  const address = unquoted(word);
  if (address === undefined || !address.endsWith("/api/v0/instances/")) return undefined;
  const baseUrl = address.slice(0, -"/api/v0/instances/".length);
  if (!URL.canParse(baseUrl)) return undefined;
  const rules: WatchdogRules = {
    ...(lifetime === undefined || deadline === undefined
      ? {}
      : {
          expiry: {
            maxLifetimeSeconds: Number(lifetime),
            onExpiry: onExpiry === "stop" ? "stop" : "destroy",
            deadlineEpochSeconds: Number(deadline),
          },
        }),
    ...(idleSeconds === undefined
      ? {}
      : {
          idle: {
            afterSeconds: Number(idleSeconds),
            action: idleAction === "stop" ? "stop" : "destroy",
          },
        }),
  };
  if (rules.expiry === undefined && rules.idle === undefined) return undefined;
  const watchdog = `${watchdogOf(rules, baseUrl)}\n`;
  if (!script.startsWith(watchdog)) return undefined;
  return { rules, baseUrl, onstart: script.slice(watchdog.length) };
}

/**
 * The onstart command an instance with a watchdog is sent: the user's onstart after the
 * watchdog, fitted into the service's limit (gzipped and base64-encoded beyond).
 */
export function onstartCommandOf(
  onstart: string | undefined,
  rules: WatchdogRules,
  baseUrl: string,
): OnstartEncoding {
  return encodeOnstart(wrapOnstart(onstart, rules, baseUrl));
}

/**
 * What an instance's onstart command says (a refresh, an import): the user's onstart, without
 * the watchdog and decoded from gzip and base64, and the watchdog's rules when it has one.
 */
export function readOnstart(command: string): {
  onstart: string;
  expiry?: Expiry;
  idle?: IdleRule;
} {
  const script = decodeOnstart(command);
  const unwrapped = unwrapOnstart(script);
  return unwrapped === undefined
    ? { onstart: script }
    : { onstart: unwrapped.onstart, ...unwrapped.rules };
}

/** What the watchdog is named for in a check failure. */
function watchdogName(rules: WatchdogRules): string {
  const fields = [
    ...(rules.expiry === undefined ? [] : ["maxLifetime's"]),
    ...(rules.idle === undefined ? [] : ["idleShutdown's"]),
  ];
  return `${fields.join(" and ")} watchdog`;
}

/**
 * Why the onstart cannot be sent with its watchdog (one line for a check failure, without the
 * script), or undefined when it fits. The watchdog's length is the same at check as at create:
 * only the deadline's digits differ, and there are ten of them until 2286.
 */
export function wrappedOnstartTooLong(
  onstart: string | undefined,
  rules: WatchdogRules,
  baseUrl: string,
): string | undefined {
  const wrapped = wrapOnstart(onstart, rules, baseUrl);
  const encoded = encodeOnstart(wrapped);
  if (encoded.ok) return undefined;
  return (
    `${onstart?.length ?? 0} characters, ${wrapped.length} with ${watchdogName(rules)} ` +
    `(${wrapped.length - (onstart?.length ?? 0)} more), ${encoded.encodedChars} even when ` +
    `gzipped and base64-encoded; the service takes at most ${onstartLimitChars}`
  );
}
