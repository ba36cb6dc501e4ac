import { z } from "zod";
import { invalidArgs } from "../shared/http";
import type { State } from "../shared/state";
import { type ContractType, ContractTypeSchema, type Meter } from "./billing-state";
import { segmentsUntil } from "./meter";
import { afterKey, booleanParam, jsonParam, limitParam, pageOf, type SortKey } from "./pages";

/**
 * GET /api/v0/charges/ as the OpenAPI describes it: per-contract rows of what the account was
 * billed on the days of the `day` range, each with its items by charge type. Charges are kept
 * by the second and counted by UTC day: a day (its midnight, in Unix seconds) is in the range
 * when `gte ≤ day ≤ lte`, and a row's and an item's `start` and `end` are their first and last
 * day (the description's example: a contract billed 4 whole days shows `end − start` = 3 days
 * and "96.000 hours"). Amounts are rounded to 3 decimals, as documented.
 */

const DAY_MS = 86_400_000;
const PER_PAGE = 100;
const MAX_PER_PAGE = 500;

/** The 400 the description gives for a missing range: its example has no `error` code. */
export class MissingRange extends Error {
  readonly body = {
    success: false,
    msg: "Must provide both 'day' gte and lte filters for instance charges",
  };
}

const FiltersSchema = z.looseObject({
  day: z.looseObject({ gte: z.number(), lte: z.number() }),
});
const TypeFilterSchema = z.strictObject(
  { in: z.array(ContractTypeSchema) },
  {
    error: `must be {"in": [...]} of instance, volume, serverless`,
  },
);

export interface ChargesQuery {
  readonly gteSeconds: number;
  readonly lteSeconds: number;
  readonly types: readonly ContractType[] | undefined;
  readonly format: "table" | "tree";
  readonly order: readonly SortKey[];
  readonly limit: number;
  readonly after: Readonly<Record<string, number | null>> | undefined;
}

export function parseChargesQuery(query: Record<string, unknown>): ChargesQuery {
  const filters = FiltersSchema.safeParse(jsonParam(query, "select_filters"));
  if (!filters.success) throw new MissingRange();
  const { day, type, ...others } = filters.data;
  const unknown = Object.keys(others)[0];
  if (unknown !== undefined) {
    throw invalidArgs(`select_filters: ${unknown} is not a filter of charges (day, type)`);
  }
  const types = type === undefined ? undefined : TypeFilterSchema.safeParse(type);
  if (types?.success === false)
    throw invalidArgs(`select_filters.type: ${types.error.issues[0]?.message ?? "invalid"}`);
  const format = query["format"] ?? "table";
  if (format !== "table" && format !== "tree") throw invalidArgs("format: must be table or tree");
  const order = [{ col: "id", desc: booleanParam(query, "latest_first", true) }];
  return {
    gteSeconds: day.gte,
    lteSeconds: day.lte,
    types: types?.data.in,
    format,
    order,
    limit: limitParam(query, PER_PAGE, MAX_PER_PAGE),
    after: afterKey(query, order),
  };
}

const round3 = (amount: number) => Math.round(amount * 1000) / 1000;

/** A rate as a bill shows it: at least 3 decimals, at most 6. */
function rateText(dollarsPerHour: number): string {
  const [units = "0", decimals = ""] = String(Number(dollarsPerHour.toFixed(6))).split(".");
  return `${units}.${decimals.padEnd(3, "0")}`;
}

interface Accrual {
  readonly item: "gpu" | "disk";
  readonly dollarsPerHour: number;
  seconds: number;
  readonly days: Set<number>;
}

/** What a meter billed on the range's days, by item and rate, up to `nowMs`. */
function accrualsOf(meter: Meter, nowMs: number, query: ChargesQuery): Accrual[] {
  const stretches = segmentsUntil(meter, nowMs);
  const accruals = new Map<string, Accrual>();
  for (const { item, fromMs, toMs, dollarsPerHour } of stretches) {
    for (let dayMs = Math.floor(fromMs / DAY_MS) * DAY_MS; dayMs < toMs; dayMs += DAY_MS) {
      const day = dayMs / 1000;
      const ms = Math.min(toMs, dayMs + DAY_MS) - Math.max(fromMs, dayMs);
      if (ms <= 0 || day < query.gteSeconds || day > query.lteSeconds) continue;
      const key = `${item}:${String(dollarsPerHour)}`;
      const accrual = accruals.get(key) ?? { item, dollarsPerHour, seconds: 0, days: new Set() };
      accrual.seconds += ms / 1000;
      accrual.days.add(day);
      accruals.set(key, accrual);
    }
  }
  return [...accruals.values()];
}

export interface ChargeRow {
  start: number;
  end: number;
  type: string;
  source: string | null;
  description: string;
  amount: number;
  metadata: Record<string, string | number>;
  items: ChargeRow[];
}

const first = (days: Iterable<number>) => Math.min(...days);
const last = (days: Iterable<number>) => Math.max(...days);
const itemOrder = { gpu: 0, disk: 1 } as const;

/** A contract's row with its items (gpu, disk, then bwd and bwu: no traffic, so nothing). */
function rowOf(meter: Meter, accruals: Accrual[]): { row: ChargeRow; exact: number } {
  const days = new Set(accruals.flatMap((a) => [...a.days]));
  const items: ChargeRow[] = [...accruals]
    .sort((a, b) => itemOrder[a.item] - itemOrder[b.item] || a.dollarsPerHour - b.dollarsPerHour)
    .map((a) => {
      const hours = a.seconds / 3600;
      return {
        start: first(a.days),
        end: last(a.days),
        type: a.item,
        source: null,
        description: `${hours.toFixed(3)} hours at $${rateText(a.dollarsPerHour)}/hour`,
        amount: round3(hours * a.dollarsPerHour),
        metadata: {},
        items: [],
      };
    });
  for (const [type, cost] of [
    ["bwd", meter.inetDownCostPerGb],
    ["bwu", meter.inetUpCostPerGb],
  ] as const) {
    if (cost === null) continue;
    items.push({
      start: first(days),
      end: last(days),
      type,
      source: null,
      description: `0.000 GB at $${rateText(cost)}/GB`,
      amount: 0,
      metadata: {},
      items: [],
    });
  }
  const exact = accruals.reduce((sum, a) => sum + (a.seconds / 3600) * a.dollarsPerHour, 0);
  const kind = meter.type === "volume" ? "volume" : "instance";
  const metadata: Record<string, string | number> = {};
  if (meter.templateId !== null) metadata["template_id"] = meter.templateId;
  if (meter.label !== null) metadata["label"] = meter.label;
  if (meter.endpointId !== null) metadata["endpoint_id"] = meter.endpointId;
  if (meter.workerGroupId !== null) metadata["workergroup_id"] = meter.workerGroupId;
  const dayCount = days.size;
  const row = {
    start: first(days),
    end: last(days),
    type: kind,
    source: `${kind}-${String(meter.id)}`,
    description: `${kind === "volume" ? "Volume" : "Instance"} ${String(meter.id)} Charges - ${String(dayCount)} ${dayCount === 1 ? "day" : "days"}`,
    amount: round3(exact),
    metadata,
    items,
  };
  return { row, exact };
}

interface Node {
  /** The sort key: a contract's id; a wrapper's, its latest contract's. */
  readonly id: number;
  readonly row: ChargeRow;
  readonly exact: number;
}

/** A serverless wrapper of the tree format over its children. */
function wrap(
  kind: "endpoint" | "workergroup",
  id: number,
  children: Node[],
  metadata: ChargeRow["metadata"],
): Node {
  const exact = children.reduce((sum, child) => sum + child.exact, 0);
  const rows = children.sort((a, b) => a.id - b.id).map((child) => child.row);
  return {
    id: Math.max(...children.map((child) => child.id)),
    exact,
    row: {
      start: Math.min(...rows.map((r) => r.start)),
      end: Math.max(...rows.map((r) => r.end)),
      type: "serverless",
      source: `${kind}-${String(id)}`,
      description: `${kind === "endpoint" ? "Endpoint" : "Workergroup"} ${String(id)} Charges`,
      amount: round3(exact),
      metadata,
      items: rows,
    },
  };
}

/**
 * The tree format: serverless contracts under their endpoint and worker group (the official
 * client draws a wrapper's `items` as its children, and keeps them without --verbose).
 */
function tree(nodes: readonly { meter: Meter; node: Node }[]): Node[] {
  const top: Node[] = [];
  const byEndpoint = new Map<number, Map<number, Node[]>>();
  for (const { meter, node } of nodes) {
    if (meter.type !== "serverless" || meter.endpointId === null || meter.workerGroupId === null) {
      top.push(node);
      continue;
    }
    const groups = byEndpoint.get(meter.endpointId) ?? new Map<number, Node[]>();
    groups.set(meter.workerGroupId, [...(groups.get(meter.workerGroupId) ?? []), node]);
    byEndpoint.set(meter.endpointId, groups);
  }
  for (const [endpointId, groups] of byEndpoint) {
    const wrappers = [...groups].map(([groupId, children]) =>
      wrap("workergroup", groupId, children, { endpoint_id: endpointId, workergroup_id: groupId }),
    );
    top.push(wrap("endpoint", endpointId, wrappers, { endpoint_id: endpointId }));
  }
  return top;
}

/** The page the query asks for, over the meters as settled at `nowMs`. */
export function chargesPage(state: State, nowMs: number, query: ChargesQuery) {
  const nodes = state.meters
    .filter((meter) => query.types === undefined || query.types.includes(meter.type))
    .flatMap((meter) => {
      const accruals = accrualsOf(meter, nowMs, query);
      if (accruals.length === 0) return [];
      return [{ meter, node: { id: meter.id, ...rowOf(meter, accruals) } }];
    });
  const top = query.format === "tree" ? tree(nodes) : nodes.map(({ node }) => node);
  const { page, nextToken } = pageOf(
    top,
    (node) => ({ id: node.id }),
    query.order,
    query.limit,
    query.after,
  );
  return {
    success: true,
    count: page.length,
    total: top.length,
    next_token: nextToken,
    results: page.map((node) => node.row),
  };
}
