import { z } from "zod";
import { type PlanItem, type PlanOp, totalsOf } from "../run/plan-ledger";
import { dollars, leftOut, signedDollars } from "./formulas";
import { parseResourceLine } from "./plan-lines";
import { recordedPrice } from "./recorded";

// The cost command's reading of `pulumi preview --json`: each priced resource's line (plan-lines
// .ts: the line a person reads is the record CI reads, in `diagnostics`), and the resources the
// preview deletes (never checked, so never priced by the provider), priced from the state the
// preview's steps carry. Added up by the ledger's own totals (run/plan-ledger.ts).

/** The run's prefix on every line it logs (run/progress.ts, the plugin's log). */
const linePrefix = "gpucloud: ";

const stateSchema = z.looseObject({
  urn: z.string().optional(),
  type: z.string().optional(),
  outputs: z.record(z.string(), z.unknown()).optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
});

const previewSchema = z.looseObject({
  steps: z
    .array(
      z.looseObject({
        op: z.string(),
        urn: z.string().optional(),
        oldState: stateSchema.optional(),
      }),
    )
    .optional(),
  diagnostics: z
    .array(z.looseObject({ message: z.string().optional(), urn: z.string().optional() }))
    .optional(),
});

/** A resource in the report: the plan's item, or a delete. */
export interface ReportedResource {
  readonly resource: string;
  readonly type: string;
  readonly op: PlanOp | "delete";
  readonly dollarsPerHourNow: number;
  readonly dollarsPerHourAfter: number;
  readonly low?: number;
  readonly high?: number;
  readonly basis: string;
  /** The inputs the figure waits for (not known at preview): it counts its high end. */
  readonly pending?: string;
  /** Why nothing bounds the figure at preview. */
  readonly unbounded?: string;
}

export interface CostReport {
  readonly resources: ReportedResource[];
  readonly totalNow: number;
  readonly totalAfter: number;
  readonly change: number;
  /** The total after, plus what create-before-delete replacements bill while both run. */
  readonly peak: number;
  readonly leftOut: string[];
}

/** The plugin's type tokens and the dynamic door's entry modules, by resource type. */
const billableTypes = ["Instance", "NodeGroup", "Volume", "NetworkVolume"] as const;
const kebab = (type: string) => type.replace(/(?<=[a-z])(?=[A-Z])/g, "-").toLowerCase();

/** `gpucloud:index:Instance`, or a dynamic resource whose `__provider` names our entry. */
function billableTypeOf(state: z.infer<typeof stateSchema>): string | undefined {
  const token = /^gpucloud:index:(\w+)$/.exec(state.type ?? "")?.[1];
  if (token !== undefined) return billableTypes.find((type) => type === token);
  const provider = state.outputs?.["__provider"] ?? state.inputs?.["__provider"];
  if (typeof provider !== "string") return undefined;
  const entry = /pulumi-gpucloud\/(?:provider\/)?(?:dynamic|resources)\/([a-z-]+)/.exec(
    provider,
  )?.[1];
  return billableTypes.find((type) => kebab(type) === entry);
}

/** The report of a `pulumi preview --json` document; throws, saying why, on another input. */
export function costReport(previewJson: string): CostReport {
  let parsed: unknown;
  try {
    parsed = JSON.parse(previewJson);
  } catch {
    throw new Error("the input is not JSON: pipe `pulumi preview --json` into it");
  }
  const preview = previewSchema.safeParse(parsed);
  if (!preview.success || (preview.data.steps === undefined && !preview.data.diagnostics)) {
    throw new Error("the input is not `pulumi preview --json` output (no steps, no diagnostics)");
  }
  const items: PlanItem[] = [];
  for (const diagnostic of preview.data.diagnostics ?? []) {
    const message = (diagnostic.message ?? "").trim();
    if (!message.startsWith(linePrefix)) continue;
    const figures = parseResourceLine(message.slice(linePrefix.length));
    if (figures === undefined) continue;
    // The plugin's lines are on their resource's row; the dynamic door's name it.
    const urn = /::gpucloud:index:(\w+)::/.test(diagnostic.urn ?? "") ? diagnostic.urn : undefined;
    const type = figures.type ?? /::gpucloud:index:(\w+)::/.exec(urn ?? "")?.[1] ?? "unknown";
    const { type: _type, name, ...rest } = figures;
    items.push({ key: `${items.length}`, resource: urn ?? name ?? type, type, ...rest });
  }
  const deletes: ReportedResource[] = [];
  for (const step of preview.data.steps ?? []) {
    if (step.op !== "delete" || step.oldState === undefined) continue;
    const type = billableTypeOf(step.oldState);
    if (type === undefined) continue;
    const now = recordedPrice(type, step.oldState.outputs ?? {});
    deletes.push({
      resource: step.urn ?? step.oldState.urn ?? type,
      type,
      op: "delete",
      dollarsPerHourNow: now.dollarsPerHour,
      dollarsPerHourAfter: 0,
      basis: now.basis,
    });
  }
  const totals = totalsOf([
    ...items,
    ...deletes.map((one) => ({ ...one, op: "same" as const, key: one.resource })),
  ]);
  return {
    resources: [
      ...items.map(({ key: _key, bothWhileReplacing: _both, ...rest }) => rest),
      ...deletes,
    ],
    totalNow: totals.now,
    totalAfter: totals.after,
    change: totals.change,
    peak: totals.peak,
    leftOut: [...leftOut],
  };
}

/** The line CI posts: `this change: +$4.20/h ($12.60/h after, $8.40/h now); …`. */
export function markdownOf(report: CostReport): string {
  return (
    `this change: ${signedDollars(report.change)}/h (${dollars(report.totalAfter)}/h after, ` +
    `${dollars(report.totalNow)}/h now); ${report.leftOut.join(", ")} left out`
  );
}
