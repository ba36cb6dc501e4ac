// Why a change replaces an instance or a group, for the preview's line beside the engine's
// `replace` (which names the fields, not the reason): what the service fixes at rent and cannot
// change on a rented instance.

// What the service rebuilds in place, except in a VM, which boots its own image.
const vmReason = "a VM boots its own image, which the service cannot rebuild in place";

const reasons: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ["image", "env", "onstart", "args", "templateHashId"].map((f) => [f, vmReason]),
  ),
  diskGb: "the disk's size is fixed at rent",
  runtype: "the launch mode is fixed at rent",
  overlay: "an overlay is joined at launch",
  networkVolume: "a network volume is mounted at launch",
  volume: "a volume is attached at launch",
  exposePorts: "ports are mapped at launch",
  price: "an instance cannot switch between on-demand and interruptible",
  askId: "the new ask is on another machine (the machine is fixed at rent)",
  askIds: "the new asks do not hold the one it was rented from (the machine is fixed at rent)",
  offerQuery: "the offer it runs on no longer matches the query or its price cap",
  nodeCount: "the group's cluster has no room for the new count, and another cluster has",
  actualStatus: "it is not running (kept after a failed create, or found at a dead end)",
  maxLifetime: "the deadline is held by the watchdog in its onstart",
  onExpiry: "the watchdog in its onstart holds what it does at the deadline",
};

/**
 * The preview's line for a replacement: each field with why it replaces. A field the program's
 * `replaceOnChanges` names says so: that is why, whatever else would be. A passed `expiresAt`
 * has a line of its own (lifetime.ts' reportExpired): none when it is the only reason.
 */
export function replacementNote(
  subject: string,
  replaces: readonly string[],
  replaceOnChanges: readonly string[] = [],
): string | undefined {
  const fields = [...new Set(replaces)].filter((field) => field !== "expiresAt");
  if (fields.length === 0) return undefined;
  const why = fields.map((field) => {
    const asked = replaceOnChanges.includes(field) || replaceOnChanges.includes("*");
    const reason = asked ? "replaceOnChanges asks for it" : reasons[field];
    return reason === undefined ? field : `${field} (${reason})`;
  });
  return `${subject} is replaced: ${why.join("; ")}`;
}
