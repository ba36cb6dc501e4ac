import type { PlanItem, PlanOp, PlanTotals } from "../run/plan-ledger";
import { dollars, leftOut, signedDollars } from "./formulas";

// The preview's lines: one per priced resource, as a person reads a bill (prices rounded to
// the cent's hundredth), which is also what CI reads back (`gpucloud-cost`, the plugin's
// `cost`): the line is the one record of the figures, so the two never disagree. And the
// stack's total, kept on the stack's row.
//
//   [Instance trainer: ]$0.3553/h to create: <basis>
//   [NodeGroup trainers: ]$4.7985/h after this change, $7.1978/h now: <basis>
//   [Instance trainer: ]$0.36/h after its replacement, $0.35/h now; deleted before it: <basis>
//   [Instance trainer: ]priced once volume.volumeId is known, $0.215–$0.90/h, counted at $0.90/h to create: <basis>
//   [Instance trainer: ]not priced at preview (askId is another resource's output) to create: <basis>
//   [Instance trainer: ]$0.36/h unchanged: <basis>
//
// The label (type and name) leads where the line is not on the resource's own row: the
// dynamic door's lines are all on the stack's row.

/** The plan's line prefix, after the run's own `gpucloud: `. */
export const totalPrefix = "plan: ";

const opWords: Record<PlanOp, string> = {
  create: "to create",
  update: "after this change",
  replace: "after its replacement",
  same: "unchanged",
};
const bothWords = "; both bill while it is replaced";
const deleteFirstWords = "; deleted before its replacement";

function figureOf(item: PlanItem): string {
  if (item.unbounded !== undefined) return `not priced at preview (${item.unbounded})`;
  const range =
    item.low !== undefined && item.high !== undefined && item.high > item.low + 1e-9
      ? `${dollars(item.low)}–${dollars(item.high)}/h`
      : undefined;
  if (item.pending !== undefined) {
    return (
      `priced once ${item.pending} is known, ` +
      `${range ?? `${dollars(item.dollarsPerHourAfter)}/h`}, counted at ` +
      `${dollars(item.dollarsPerHourAfter)}/h`
    );
  }
  const price = item.op === "same" ? item.dollarsPerHourNow : item.dollarsPerHourAfter;
  return `${dollars(price)}/h${range === undefined ? "" : ` (${range})`}`;
}

/** The line of one priced resource; `label` ("Instance trainer") where it is not on its row. */
export function resourceLine(item: PlanItem, label: string | undefined): string {
  const now =
    item.op === "update" || item.op === "replace"
      ? `, ${dollars(item.dollarsPerHourNow)}/h now`
      : "";
  const replacing =
    item.op !== "replace" ? "" : item.bothWhileReplacing === true ? bothWords : deleteFirstWords;
  return (
    `${label === undefined ? "" : `${label}: `}${figureOf(item)} ${opWords[item.op]}${now}` +
    `${replacing}: ${item.basis}`
  );
}

/** The figures a resource line holds, rounded as shown: a plan item's, named as the line names it. */
export type LineFigures = Pick<
  PlanItem,
  | "op"
  | "dollarsPerHourNow"
  | "dollarsPerHourAfter"
  | "low"
  | "high"
  | "basis"
  | "bothWhileReplacing"
  | "pending"
  | "unbounded"
> & {
  readonly type: string | undefined;
  readonly name: string | undefined;
};

const money = String.raw`-?\$\d+\.\d+`;
const linePattern = new RegExp(
  String.raw`^(?:(?<type>[A-Z]\w*)(?: (?<name>[^:]+))?: )?` +
    String.raw`(?:not priced at preview \((?<unbounded>[^)]*)\)` +
    String.raw`|priced once (?<pending>.+?) is known, (?:(?<plow>${money})–(?<phigh>${money})/h|${money}/h), counted at (?<counted>${money})/h` +
    String.raw`|(?<price>${money})/h(?: \((?<low>${money})–(?<high>${money})/h\))?)` +
    String.raw` (?<op>to create|after this change|after its replacement|unchanged)` +
    String.raw`(?:, (?<now>${money})/h now)?(?<replacing>${bothWords}|${deleteFirstWords})?: (?<basis>.*)$`,
  "s",
);

const amount = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : Number(text.replace("$", ""));

const opOf: Record<string, PlanOp> = Object.fromEntries(
  Object.entries(opWords).map(([op, words]) => [words, op as PlanOp]),
);

/** The figures of a resource line; undefined for any other line. */
export function parseResourceLine(line: string): LineFigures | undefined {
  const groups = linePattern.exec(line)?.groups;
  const op = opOf[groups?.["op"] ?? ""];
  if (groups === undefined || op === undefined) return undefined;
  const shown = amount(groups["counted"] ?? groups["price"]) ?? 0;
  const now = amount(groups["now"]) ?? (op === "same" ? shown : 0);
  const low = amount(groups["low"] ?? groups["plow"]);
  const high = amount(groups["high"] ?? groups["phigh"]);
  return {
    type: groups["type"],
    name: groups["name"],
    op,
    dollarsPerHourNow: now,
    dollarsPerHourAfter: shown,
    ...(low === undefined ? {} : { low }),
    ...(high === undefined ? {} : { high }),
    basis: groups["basis"] ?? "",
    ...(groups["replacing"] === bothWords ? { bothWhileReplacing: true } : {}),
    ...(groups["pending"] === undefined ? {} : { pending: groups["pending"] }),
    ...(groups["unbounded"] === undefined ? {} : { unbounded: groups["unbounded"] }),
  };
}

/** The stack's line: its total after the change, now, the change, and while `up` applies it. */
export function totalLine(totals: PlanTotals): string {
  const peak =
    totals.peak > totals.after + 1e-9
      ? `; up to ${dollars(totals.peak)}/h while \`up\` applies it (what it replaces or removes ` +
        `bills until then)`
      : "";
  return (
    `${totalPrefix}${dollars(totals.after)}/h after this change, ${dollars(totals.now)}/h now ` +
    `(${signedDollars(totals.change)}/h)${peak}; ` +
    `${leftOut.join(", ").replace(" (billed per byte)", "")} is billed per byte and left out`
  );
}
