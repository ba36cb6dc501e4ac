import { z } from "zod";
import {
  lifetimeSecondsOf,
  longestLifetimeSeconds,
  maxLifetimePattern,
} from "../shared/expiry-watchdog";
import { idleActions, idleGpuPercentBelow } from "../shared/idle-watchdog";

// `idleShutdown`: the instance stops or destroys itself once nobody has used it for a while.
// The watchdog that enforces it is maxLifetime's (shared/expiry-watchdog.ts); what idle means
// is in shared/idle-watchdog.ts; check, diff and the onstart are in lifetime.ts.

export const idleShutdownSchema = z
  .object(
    {
      after: z
        .string({
          error: 'idleShutdown.after is a duration: a whole number and s, m, h or d, e.g. "30m"',
        })
        .regex(
          maxLifetimePattern,
          'idleShutdown.after must be a whole number followed by s, m, h or d, e.g. "90s", ' +
            '"30m" or "2h"',
        )
        .refine(
          (text) => (lifetimeSecondsOf(text) ?? 0) <= longestLifetimeSeconds,
          "idleShutdown.after must be at most 365d (a year)",
        )
        .describe(
          "How long the instance must stay idle, without a break, before the action: a whole " +
            'number and a unit, `s`, `m`, `h` or `d` (`"30m"`, `"2h"`), at most `365d` and ' +
            "at most `maxLifetime`. Counted from each start of the container.",
        ),
      action: z
        .enum(idleActions, { error: "idleShutdown.action must be destroy or stop" })
        .describe(
          "`destroy` (the default) or `stop`. A stopped instance releases its GPUs but its " +
            "disk still bills, and it may not start again: its GPUs may be rented by someone " +
            "else meanwhile.",
        )
        .optional(),
    },
    { error: 'idleShutdown must be { after, action? }, e.g. { after: "30m" }' },
  )
  .describe(
    "Stop or destroy the instance once it has been idle for `after`: every GPU under " +
      `${idleGpuPercentBelow}% utilization (as \`nvidia-smi\` reports it) and no SSH ` +
      "connection, at every look (every tenth of `after`, at most 30 s apart), for the whole " +
      "period. Enforced on the instance itself by the watchdog that also enforces " +
      "`maxLifetime`, so that it holds when nobody runs Pulumi. An image without a working " +
      "`nvidia-smi` never counts as idle. Not for a VM or an `args` launch, which run no " +
      "onstart. Changing it rebuilds the container in place (its onstart carries the rule): " +
      "an Instance's, or every node's of a NodeGroup.",
  )
  // A change never replaces: a rebuild in place, of an Instance or of every node of a group.
  .meta({ pulumiType: "IdleShutdown" })
  .optional();
