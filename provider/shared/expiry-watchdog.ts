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

/** What one instance's watchdog enforces: fixed at create, baked into its onstart. */
export interface Expiry {
  /** The lifetime declared, in seconds: carried in the onstart so that import gives it back. */
  readonly maxLifetimeSeconds: number;
  readonly onExpiry: OnExpiry;
  /** The deadline, in seconds since the epoch (UTC). */
  readonly deadlineEpochSeconds: number;
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

const header = (expiry: Expiry): string =>
  `# pulumi-gpucloud watchdog: maxLifetime ${expiry.maxLifetimeSeconds}s, onExpiry ` +
  `${expiry.onExpiry}, expiresAt ${expiresAtOf(expiry)}`;

/**
 * The watchdog: lines of POSIX sh that return at once, leaving it running detached (a second
 * subshell, so that a user's `wait` does not wait for it; SIGHUP ignored; no terminal, its
 * output discarded). It sleeps in steps of at most a minute until `date +%s` reaches the
 * deadline (a clock that jumps, or a container paused and resumed, is late by a minute at
 * most), then calls the service with curl, else wget, else python3, retrying a failed call 9
 * times over about 5 minutes. A `date` that answers no number ends it doing nothing: no clock,
 * no verdict.
 */
export function watchdogOf(expiry: Expiry, baseUrl: string): string {
  const stop = expiry.onExpiry === "stop";
  const address = shellWord(`${apiAddressOf(baseUrl)}/api/v0/instances/`);
  return [
    header(expiry),
    `( (trap '' HUP;e=${expiry.deadlineEpochSeconds};u=${address}$CONTAINER_ID/;` +
      'k="Authorization: Bearer $CONTAINER_API_KEY"' +
      (stop ? `;b='{"state":"stopped"}';j='Content-Type: application/json'` : ""),
    `c(){ command -v curl&&curl -fsS -m60 -X${stop ? 'PUT -H"$j" -d"$b"' : "DELETE"} ` +
      '-H"$k" "$u"&&return',
    "command -v wget&&wget -qO- -T60 --method=" +
      `${stop ? 'PUT --header="$j" --body-data="$b"' : "DELETE"} --header="$k" "$u"&&return`,
    `command -v python3&&python3 -c '${pythonCall}' ${stop ? 'PUT "$u" "$b"' : `DELETE "$u" ''`};}`,
    "until n=$(date +%s);[ $n -ge $e ];do s=$((e-n));[ $s -gt 60 ]&&s=60;sleep $s;done",
    "i=0;until c;do i=$((i+1));[ $i -gt 9 ]&&exit 1;sleep $((i*i));done)>/dev/null 2>&1 </dev/null &)",
  ].join("\n");
}

/** The user's onstart (none: an empty one) after the watchdog, kept exactly as it was. */
export function wrapOnstart(onstart: string | undefined, expiry: Expiry, baseUrl: string): string {
  return `${watchdogOf(expiry, baseUrl)}\n${onstart ?? ""}`;
}

/** What a wrapped onstart holds: the watchdog's expiry and address, and the user's onstart. */
export interface Unwrapped {
  readonly expiry: Expiry;
  readonly baseUrl: string;
  readonly onstart: string;
}

/**
 * The parts of an onstart wrapOnstart made, or undefined for any other script. The watchdog
 * is made again from what it says and must match byte for byte, so that no user's script is
 * ever taken for one.
 */
export function unwrapOnstart(script: string): Unwrapped | undefined {
  const said =
    /^# pulumi-gpucloud watchdog: maxLifetime (\d+)s, onExpiry (destroy|stop), expiresAt \S+\n\( \(trap '' HUP;e=(\d+);u=((?:'[^']*'|\\')+)\$CONTAINER_ID\/;/.exec(
      script,
    );
  if (said === null) return undefined;
  const [, lifetime = "", onExpiry = "", deadline = "", word = ""] = said;
  const address = unquoted(word);
  if (address === undefined || !address.endsWith("/api/v0/instances/")) return undefined;
  const baseUrl = address.slice(0, -"/api/v0/instances/".length);
  if (!URL.canParse(baseUrl)) return undefined;
  const expiry: Expiry = {
    maxLifetimeSeconds: Number(lifetime),
    onExpiry: onExpiry === "stop" ? "stop" : "destroy",
    deadlineEpochSeconds: Number(deadline),
  };
  const watchdog = `${watchdogOf(expiry, baseUrl)}\n`;
  if (!script.startsWith(watchdog)) return undefined;
  return { expiry, baseUrl, onstart: script.slice(watchdog.length) };
}

/**
 * The onstart command an instance that expires is sent: the user's onstart after the watchdog,
 * fitted into the service's limit (gzipped and base64-encoded beyond).
 */
export function onstartCommandOf(
  onstart: string | undefined,
  expiry: Expiry,
  baseUrl: string,
): OnstartEncoding {
  return encodeOnstart(wrapOnstart(onstart, expiry, baseUrl));
}

/**
 * What an instance's onstart command says (a refresh, an import): the user's onstart, without
 * the watchdog and decoded from gzip and base64, and the watchdog's expiry when it has one.
 */
export function readOnstart(command: string): { onstart: string; expiry?: Expiry } {
  const script = decodeOnstart(command);
  const unwrapped = unwrapOnstart(script);
  return unwrapped === undefined
    ? { onstart: script }
    : { onstart: unwrapped.onstart, expiry: unwrapped.expiry };
}

/**
 * Why the onstart cannot be sent with its watchdog (one line for a check failure, without the
 * script), or undefined when it fits. The watchdog's length is the same at check as at create:
 * only the deadline's digits differ, and there are ten of them until 2286.
 */
export function wrappedOnstartTooLong(
  onstart: string | undefined,
  expiry: Expiry,
  baseUrl: string,
): string | undefined {
  const wrapped = wrapOnstart(onstart, expiry, baseUrl);
  const encoded = encodeOnstart(wrapped);
  if (encoded.ok) return undefined;
  return (
    `${onstart?.length ?? 0} characters, ${wrapped.length} with maxLifetime's watchdog ` +
    `(${wrapped.length - (onstart?.length ?? 0)} more), ${encoded.encodedChars} even when ` +
    `gzipped and base64-encoded; the service takes at most ${onstartLimitChars}`
  );
}
