import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import type { TestEmulator } from "./emulator";
import { outsideClient } from "./programs";
import type { TestStack } from "./pulumi-stack";
import { repoRoot } from "./repo-root";
import { nativePluginDir } from "./yaml-stack";

const execFileAsync = promisify(execFile);

// The price matrix (issue: "prices a team can trust"): every billable layout the documents show,
// declared in one program per door, previewed and then applied step by step; at each step every
// figure the preview shows (read as CI reads it, through the cost command) is compared with what
// the service then bills for the resource. The emulator's generated market (seed 1) holds the
// offers named here; each layout rents from offers no other layout can take, so that the
// figures do not depend on which create runs first.

/** What each step of the matrix declares. */
export interface MatrixStep {
  readonly byAskDiskGb: number;
  readonly byQueryDiskGb: number;
  readonly bidDollarsPerHour: number;
  readonly stoppedState: "stopped" | "running";
  readonly onDataDiskGb: number;
  readonly groupNodes: number;
  readonly groupDiskGb: number;
}

/** Step 1 creates every layout; each later step changes some, as its comment says. */
export const matrixSteps: readonly MatrixStep[] = [
  {
    byAskDiskGb: 40,
    byQueryDiskGb: 30,
    bidDollarsPerHour: 0.3,
    stoppedState: "stopped",
    onDataDiskGb: 40,
    groupNodes: 2,
    groupDiskGb: 40,
  },
  // A smaller disk (replaced, created before the old is deleted, at the query's next offer), a new
  // bid (in place), a start, a bigger disk on the volume's machine (replaced, deleted first: its
  // own ask again), a group grown in its cluster.
  {
    byAskDiskGb: 40,
    byQueryDiskGb: 24,
    bidDollarsPerHour: 0.35,
    stoppedState: "running",
    onDataDiskGb: 60,
    groupNodes: 3,
    groupDiskGb: 40,
  },
  // A smaller disk on the same ask (replaced, deleted first), the group shrunk.
  {
    byAskDiskGb: 32,
    byQueryDiskGb: 24,
    bidDollarsPerHour: 0.35,
    stoppedState: "running",
    onDataDiskGb: 60,
    groupNodes: 2,
    groupDiskGb: 40,
  },
  // The group replaced (a larger disk: deleted first, its machines free again).
  {
    byAskDiskGb: 32,
    byQueryDiskGb: 24,
    bidDollarsPerHour: 0.35,
    stoppedState: "running",
    onDataDiskGb: 60,
    groupNodes: 2,
    groupDiskGb: 48,
  },
];

/** The volume made outside the stack, on machine 70023 (RTX A6000 offers). */
export async function existingVolume(emulator: TestEmulator): Promise<number> {
  const client = outsideClient(emulator);
  try {
    const before = new Set((await client.volumes.list()).map((volume) => volume.id));
    await client.volumes.acceptVolumeAsk(22023, 30);
    const made = (await client.volumes.list()).find((volume) => !before.has(volume.id));
    if (made === undefined) throw new Error("the outside volume was not made");
    return made.id;
  } finally {
    await client.close();
  }
}

/** The TypeScript program of a step (the dynamic door). */
export function typescriptMatrix(step: MatrixStep, existingVolumeId: number): string {
  return `"use strict";
const gpucloud = require("pulumi-gpucloud");
const wait = { pollIntervalSeconds: 0.2 };
const byAsk = new gpucloud.Instance("byAsk", { askId: 31001, image: "pytorch/pytorch", diskGb: ${step.byAskDiskGb}, ...wait });
const byAsks = new gpucloud.Instance("byAsks", { askIds: [31002, 40012], image: "pytorch/pytorch", diskGb: 20, ...wait });
const byQuery = new gpucloud.Instance("byQuery", { offerQuery: { gpuName: "RTX 5090" }, maxDollarsPerHour: 2, image: "pytorch/pytorch", diskGb: ${step.byQueryDiskGb}, ...wait });
const bid = new gpucloud.Instance("bid", { askId: 40062, price: ${step.bidDollarsPerHour}, image: "pytorch/pytorch", diskGb: 16, ...wait });
const stopped = new gpucloud.Instance("stopped", { askId: 40022, state: "${step.stoppedState}", image: "pytorch/pytorch", diskGb: 24, ...wait });
const a100 = { gpuName: "A100 PCIE", numGpus: 1 };
const data = new gpucloud.Volume("data", { volumeOfferQuery: { storageCostPerGbMonth: { lte: 0.06 } }, sizeGb: 50, forInstance: { offerQuery: a100, maxDollarsPerHour: 1 } });
const onData = new gpucloud.Instance("onData", { offerQuery: a100, maxDollarsPerHour: 1, image: "pytorch/pytorch", diskGb: ${step.onDataDiskGb}, volume: { volumeId: data.volumeId, mountPath: "/data" }, ...wait });
const onExisting = new gpucloud.Instance("onExisting", { offerQuery: { gpuName: "RTX A6000" }, image: "pytorch/pytorch", diskGb: 10, volume: { volumeId: ${existingVolumeId}, mountPath: "/data" }, ...wait });
const byAskVolume = new gpucloud.Volume("byAskVolume", { askId: 21002, sizeGb: 70 });
const group = new gpucloud.NodeGroup("group", { offerQuery: { gpuName: "H100 SXM" }, nodeCount: ${step.groupNodes}, image: "pytorch/pytorch", diskGb: ${step.groupDiskGb}, ...wait });
const shared = new gpucloud.NetworkVolume("shared", { offerQuery: {}, sizeGb: 80 });
exports.instances = { byAsk: byAsk.instanceId, byAsks: byAsks.instanceId, byQuery: byQuery.instanceId, bid: bid.instanceId, stopped: stopped.instanceId, onData: onData.instanceId, onExisting: onExisting.instanceId };
exports.groups = { group: group.nodes.apply((nodes) => nodes.map((node) => node.instanceId)) };
exports.volumes = { data: data.volumeId, byAskVolume: byAskVolume.volumeId, shared: shared.volumeId };
`;
}

/** The same program in YAML (the native plugin). */
export function yamlMatrix(step: MatrixStep, existingVolumeId: number): string {
  const instance = (name: string, props: string) => `  ${name}:
    type: gpucloud:index:Instance
    properties:
${props
  .trim()
  .split("\n")
  .map((line) => `      ${line.trim()}`)
  .join("\n")}
      pollIntervalSeconds: 0.2
    options:
      dependsOn:
        - \${sweeper}
`;
  return `name: price-matrix-yaml
runtime: yaml
plugins:
  providers:
    - name: gpucloud
      path: ${nativePluginDir}
resources:
  sweeper:
    type: gpucloud:index:InstanceSweeper
${instance("byAsk", `askId: 31001\nimage: pytorch/pytorch\ndiskGb: ${step.byAskDiskGb}`)}${instance(
    "byAsks",
    "askIds: [31002, 40012]\nimage: pytorch/pytorch\ndiskGb: 20",
  )}${instance(
    "byQuery",
    `offerQuery: { gpuName: "RTX 5090" }\nmaxDollarsPerHour: 2\nimage: pytorch/pytorch\ndiskGb: ${step.byQueryDiskGb}`,
  )}${instance(
    "bid",
    `askId: 40062\nprice: ${step.bidDollarsPerHour}\nimage: pytorch/pytorch\ndiskGb: 16`,
  )}${instance(
    "stopped",
    `askId: 40022\nstate: ${step.stoppedState}\nimage: pytorch/pytorch\ndiskGb: 24`,
  )}  data:
    type: gpucloud:index:Volume
    properties:
      volumeOfferQuery: { storageCostPerGbMonth: { lte: 0.06 } }
      sizeGb: 50
      forInstance: { offerQuery: { gpuName: "A100 PCIE", numGpus: 1 }, maxDollarsPerHour: 1 }
${instance(
  "onData",
  `offerQuery: { gpuName: "A100 PCIE", numGpus: 1 }\nmaxDollarsPerHour: 1\nimage: pytorch/pytorch\ndiskGb: ${step.onDataDiskGb}\nvolume: { volumeId: "\${data.volumeId}", mountPath: /data }`,
)}${instance(
    "onExisting",
    `offerQuery: { gpuName: "RTX A6000" }\nimage: pytorch/pytorch\ndiskGb: 10\nvolume: { volumeId: ${existingVolumeId}, mountPath: /data }`,
  )}  byAskVolume:
    type: gpucloud:index:Volume
    properties:
      askId: 21002
      sizeGb: 70
  group:
    type: gpucloud:index:NodeGroup
    properties:
      offerQuery: { gpuName: "H100 SXM" }
      nodeCount: ${step.groupNodes}
      image: pytorch/pytorch
      diskGb: ${step.groupDiskGb}
      pollIntervalSeconds: 0.2
    options:
      dependsOn:
        - \${sweeper}
  shared:
    type: gpucloud:index:NetworkVolume
    properties:
      offerQuery: {}
      sizeGb: 80
outputs:
  instances:
    byAsk: \${byAsk.instanceId}
    byAsks: \${byAsks.instanceId}
    byQuery: \${byQuery.instanceId}
    bid: \${bid.instanceId}
    stopped: \${stopped.instanceId}
    onData: \${onData.instanceId}
    onExisting: \${onExisting.instanceId}
  groups:
    group: \${group.nodes}
  volumes:
    data: \${data.volumeId}
    byAskVolume: \${byAskVolume.volumeId}
    shared: \${shared.volumeId}
`;
}

const reportSchema = z.object({
  resources: z.array(
    z.object({
      resource: z.string(),
      type: z.string(),
      op: z.string(),
      dollarsPerHourNow: z.number(),
      dollarsPerHourAfter: z.number(),
      basis: z.string(),
    }),
  ),
  totalNow: z.number(),
  totalAfter: z.number(),
  change: z.number(),
  peak: z.number(),
});
export type PreviewFigures = z.infer<typeof reportSchema>;
export type ResourceFigures = PreviewFigures["resources"][number];

/** `pulumi preview --json` in the stack's folder: its document, and whether it failed. */
export async function previewJson(test: TestStack): Promise<{ text: string; failed: boolean }> {
  return execFileAsync("pulumi", ["preview", "--json", "--stack", test.stack.name], {
    cwd: test.workDir,
    env: { ...process.env, ...test.cliEnv },
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    ({ stdout }) => ({ text: stdout, failed: false }),
    (error: unknown) => ({
      text: z.object({ stdout: z.string() }).parse(error).stdout,
      failed: true,
    }),
  );
}

/** A command fed `input` on stdin; its stdout. */
export async function piped(command: string, args: string[], input: string): Promise<string> {
  const child = execFileAsync(command, args);
  child.child.stdin?.end(input);
  return (await child).stdout;
}

/** The preview's figures as CI reads them: the npm command, or the plugin's `cost`. */
export async function costOf(previewText: string, door: "npm" | "plugin"): Promise<PreviewFigures> {
  const text =
    door === "npm"
      ? await piped(
          process.execPath,
          [path.join(repoRoot, "dist/bin/gpucloud-cost.js")],
          previewText,
        )
      : await piped(path.join(nativePluginDir, "pulumi-resource-gpucloud"), ["cost"], previewText);
  return reportSchema.parse(JSON.parse(text));
}

/** The resource a figure is of: the URN's name, the line's name, or a volume by its size. */
export function nameOf(figures: ResourceFigures): string {
  const name = figures.resource.split("::").at(-1) ?? figures.resource;
  if (name !== figures.type) return name;
  if (figures.type === "NetworkVolume") return "shared";
  return figures.basis.includes("50 GB") ? "data" : "byAskVolume";
}

const outputsSchema = z.object({
  instances: z.record(z.string(), z.number()),
  // Instance ids (TypeScript exports them), or the nodes (YAML exports the list).
  groups: z.record(
    z.string(),
    z.array(
      z.union([
        z.number(),
        z.looseObject({ instanceId: z.number() }).transform((n) => n.instanceId),
      ]),
    ),
  ),
  volumes: z.record(z.string(), z.number()),
});

const chargedSchema = z.object({
  instances: z.object({ instance: z.object({ totalHour: z.number() }) }),
});

/** What the service bills each resource for now, $/hour, by the stack's outputs after `up`. */
export async function billedNow(
  emulator: TestEmulator,
  outputs: Record<string, { value: unknown }>,
): Promise<Map<string, number>> {
  const { instances, groups, volumes } = outputsSchema.parse(
    Object.fromEntries(Object.entries(outputs).map(([key, output]) => [key, output.value])),
  );
  const charged = async (id: number) =>
    chargedSchema.parse((await emulator.call("GET", `/api/v0/instances/${id}/`)).body).instances
      .instance.totalHour;
  const billed = new Map<string, number>();
  for (const [name, id] of Object.entries(instances)) billed.set(name, await charged(id));
  for (const [name, ids] of Object.entries(groups)) {
    let total = 0;
    for (const id of ids) total += await charged(id);
    billed.set(name, total);
  }
  const client = outsideClient(emulator);
  try {
    const listed = await client.volumes.list();
    for (const [name, id] of Object.entries(volumes)) {
      billed.set(name, listed.find((volume) => volume.id === id)?.storage_total_cost ?? NaN);
    }
  } finally {
    await client.close();
  }
  return billed;
}

/**
 * Each figure's distance from what the service bills after `up`, as a fraction of the bill:
 * the matrix's promise is at most 1% for each.
 */
export function misses(
  figures: PreviewFigures,
  billed: ReadonlyMap<string, number>,
): { name: string; shown: number; billed: number; miss: number }[] {
  return figures.resources.map((one) => {
    const name = nameOf(one);
    const bill = billed.get(name) ?? NaN;
    const miss = Math.abs(one.dollarsPerHourAfter - bill) / Math.max(bill, 1e-4);
    return { name, shown: one.dollarsPerHourAfter, billed: bill, miss };
  });
}
