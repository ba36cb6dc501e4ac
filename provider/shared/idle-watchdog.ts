// idleShutdown, enforced on the instance itself by the same watchdog as maxLifetime
// (expiry-watchdog.ts): the rule, and the sh that tells whether the instance is idle. Idle means
// both signals say nobody uses it, at every look for the whole period:
// - the GPUs: `nvidia-smi` reports a utilization under 5% on every one. An nvidia-smi that is
//   missing, fails, hangs past 20 s or answers anything but numbers counts as busy: a GPU the
//   watchdog cannot read is never taken for an idle one (maxLifetime still holds).
// - SSH: no established TCP connection to port 22 in the container's /proc/net/tcp and tcp6.
//   The service's sshd listens on 22 in every ssh and jupyter launch (the port the instance's
//   SSH port and the service's SSH proxy lead to), and any use of it, a terminal, scp, an
//   editor's remote session or a port forward, holds such a connection; reading /proc needs no
//   tool the image may lack (who and utmp see only terminals, and images often keep no utmp).

/** What the watchdog does when the instance has been idle for the whole period. */
export const idleActions = ["destroy", "stop"] as const;
export type IdleAction = (typeof idleActions)[number];

/** One instance's idle rule: fixed by its inputs, baked into its onstart. */
export interface IdleRule {
  /** How long the instance must be idle, without a break, before the action, in seconds. */
  readonly afterSeconds: number;
  readonly action: IdleAction;
}

/** A GPU is idle under this utilization, in percent (nvidia-smi's `utilization.gpu`). */
export const idleGpuPercentBelow = 5;

/** The port the service's sshd listens on in the container. */
export const sshPort = 22;

/** The longest the watchdog waits between two looks. */
const longestLookSeconds = 30;

/**
 * Seconds between two looks at the signals: a tenth of the period, so that a short period is
 * watched closely, from 1 to 30 (a look runs nvidia-smi, which is not free).
 */
export function lookSecondsOf(afterSeconds: number): number {
  return Math.min(longestLookSeconds, Math.max(1, Math.floor(afterSeconds / 10)));
}

/** The port as /proc/net/tcp writes it: four hexadecimal digits, upper case. */
const procPort = sshPort.toString(16).toUpperCase().padStart(4, "0");

/**
 * The sh function `g`, whose status is 0 when the instance is idle at this look: every GPU under
 * the threshold, and no SSH connection. `$t` is `timeout 20` when the image has it.
 */
export function idleTestLines(): string[] {
  return [
    "g(){ v=$($t nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits)" +
      '||return 1;[ -n "$v" ]||return 1',
    `for w in $v;do case $w in *[!0-9]*)return 1;;esac;[ $w -lt ${idleGpuPercentBelow} ]||return 1;done`,
    "for f in /proc/net/tcp /proc/net/tcp6;do [ -r $f ]||continue;while read -r z o z h z;do " +
      `[ "\${o##*:}" = ${procPort} ]&&[ "$h" = 01 ]&&return 1;done<$f;done;:;}`,
  ];
}
