import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import type { LoggedRequest, TestEmulator } from "../support/emulator";
import { commandOf, descendantsOf, eventually } from "../support/interrupt";
import { withStack } from "../support/pulumi-stack";
import { useEmulator } from "../support/use-emulator";
import {
  dynamicResources,
  emulatorConfig,
  outsideClient,
  program,
  stateResources,
} from "../support/programs";

// maxLifetime as a user meets it: the real CLI, the emulator running each instance's onstart as
// a local process (`runOnstart`, with CONTAINER_ID and the instance's own CONTAINER_API_KEY), and
// nobody running Pulumi when the deadline comes. Each stack proves several cases in as few
// `pulumi up`s as they need: lifetimes of a few seconds, waited for by polling the account
// until a bounded deadline.

const lifetime = "5s";
/** How long after `expiresAt` the watchdog may take (it wakes to the second, then one call). */
const graceMs = 30_000;

/** What the CLI's steps print, kept for assertions. */
const collect = (output: string[]) => (text: string) => output.push(text);

/** Processes of an instance's "container": the emulator runs them with its CONTAINER_ID. */
function containerProcesses(instanceId: number): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      if (
        env.includes(`CONTAINER_ID=${instanceId}`) &&
        env.includes(`VAST_CONTAINERLABEL=C.${instanceId}`)
      ) {
        found.push({ pid: Number(entry), command: commandOf(Number(entry)) });
      }
    } catch {
      // Ended while being read, or another user's.
    }
  }
  return found;
}

/** Pulumi's own processes (the CLI, language hosts, plugins) below this test process. */
const pulumiProcesses = () =>
  descendantsOf(process.pid)
    .map((pid) => commandOf(pid).split(" ")[0] ?? "")
    .filter((argv0) => /(^|\/)pulumi(-|$)/.test(argv0));

/** The instances on the account now. */
async function accountInstances(emulator: TestEmulator) {
  const client = outsideClient(emulator);
  const ids = (await emulator.state()).instances.map((instance) => instance.id);
  return Promise.all(ids.map(async (id) => ({ id, shown: await client.instances.show(id) })));
}

/** The requests that stopped or destroyed `instanceId`. */
const endsOf = (requests: LoggedRequest[], instanceId: number) =>
  requests.filter(
    (request) =>
      (request.method === "DELETE" || request.method === "PUT") &&
      request.path.split("?")[0] === `/api/v0/instances/${instanceId}/`,
  );

/**
 * The ends sent with the instance's own key (its watchdog's) and the destroys sent with the
 * account's (Pulumi's). A 5 s lifetime may run out while a loaded machine's `up` still runs, so
 * the log is read from before the `up` and told apart by key, not by when it was cleared.
 */
const watchdogEndsOf = (requests: LoggedRequest[], instanceId: number) =>
  endsOf(requests, instanceId).filter((request) => request.instanceKey === true);
const accountDestroysOf = (requests: LoggedRequest[], instanceId: number) =>
  endsOf(requests, instanceId).filter(
    (request) => request.method === "DELETE" && request.instanceKey !== true,
  );

/** `expiresAt` is the create's time plus the lifetime: within the `up` that made it. */
function expectDeadline(expiresAt: unknown, upStartedMs: number, upEndedMs: number): number {
  expect(expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const deadlineMs = Date.parse(String(expiresAt));
  expect(deadlineMs).toBeGreaterThanOrEqual(Math.floor(upStartedMs / 1000) * 1000 + 5000);
  expect(deadlineMs).toBeLessThanOrEqual(upEndedMs + 5000);
  return deadlineMs;
}

const outputSchema = z.object({ instanceId: z.number(), expiresAt: z.string() });
const nodesSchema = z.array(
  z.looseObject({
    instanceId: z.number(),
    actualStatus: z.string().nullable(),
    expiresAt: z.string(),
  }),
);
const groupSchema = z.object({
  expiresAt: z.string(),
  overlayName: z.string(),
  nodes: nodesSchema,
});

describe("maxLifetime under the real Pulumi CLI (the emulator runs onstarts)", () => {
  // The generated market beside the seeded asks: a NodeGroup's cluster. Renting is exclusive
  // there, so each instance has an ask of its own.
  const { emulator } = useEmulator({
    per: "test",
    runOnstart: true,
    bootPolls: 1,
    market: { seed: 1 },
  });
  let scratch!: string;
  beforeEach(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "gpucloud-lifetime-"));
  });
  afterEach(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("TypeScript: instances destroyed or stopped by their own keys with nobody running Pulumi, a NodeGroup's nodes destroyed at the group's deadline; refresh records it, and up replaces them, saying why; a long onstart still fits", async () => {
    const mark = path.join(scratch, "doomed-mark");
    const longMark = path.join(scratch, "long-mark");
    const base = {
      image: "pytorch/pytorch:latest",
      diskGb: 20,
      pollIntervalSeconds: 0.05,
    };
    // About 4000 characters of setup that compresses, then the user's own mark: with the
    // watchdog it exceeds 4048 and goes gzipped and base64-encoded.
    const setup = Array.from(
      { length: 180 },
      (_, i) => `export SETTING_${String(i).padStart(3, "0")}=on`,
    ).join("\n");
    const longOnstart = `${setup}\necho ran > "$LONG_MARK"`;
    expect(longOnstart.length).toBeGreaterThan(3900);
    expect(longOnstart.length).toBeLessThan(4048);
    const lifetimeProgram = () =>
      program(`
const base = ${JSON.stringify(base)};
const doomed = new gpucloud.Instance("doomed", { ...base, askId: 31001, maxLifetime: "${lifetime}",
  env: { MARK: ${JSON.stringify(mark)} }, onstart: 'echo ran > "$MARK"' });
const paused = new gpucloud.Instance("paused", { ...base, askId: 31002, maxLifetime: "${lifetime}",
  onExpiry: "stop" });
const steady = new gpucloud.Instance("steady", { ...base, askId: 31003, maxLifetime: "1h",
  env: { LONG_MARK: ${JSON.stringify(longMark)} }, onstart: ${JSON.stringify(longOnstart)} });
for (const [name, gpu] of Object.entries({ doomed, paused, steady })) {
  exports[name] = { instanceId: gpu.instanceId, expiresAt: gpu.expiresAt };
}
const group = new gpucloud.NodeGroup("trainers", {
  nodeCount: 2,
  offerQuery: { gpuName: "H100 SXM" },
  image: "pytorch/pytorch",
  diskGb: 40,
  pollIntervalSeconds: 0.05,
  maxLifetime: "${lifetime}",
});
exports.group = { expiresAt: group.expiresAt, overlayName: group.overlayName, nodes: group.nodes };
`);
    // (An onstart that does not compress cannot carry the watchdog: check's line, which echoes
    // none of it, is test/unit/lifetime.test.ts's; how the engine prints a check's failure,
    // never a huge value, test/e2e/bad-input.test.ts's.)
    await withStack(
      { program: lifetimeProgram(), config: emulatorConfig(emulator) },
      async ({ stack, output, exportState }) => {
        const onOutput = collect(output);
        await emulator.clearRequests();
        const upStartedMs = Date.now();
        const up = await stack.up({ onOutput });
        const upEndedMs = Date.now();
        // The stack, the stack's InstanceSweeper, the three instances and the group.
        expect(up.summary.resourceChanges).toEqual({ create: 6 });
        expect(pulumiProcesses()).toEqual([]);
        // From here on nobody runs Pulumi.
        const doomed = outputSchema.parse(up.outputs["doomed"]?.value);
        const paused = outputSchema.parse(up.outputs["paused"]?.value);
        const steady = outputSchema.parse(up.outputs["steady"]?.value);
        const group = groupSchema.parse(up.outputs["group"]?.value);
        const deadlineMs = expectDeadline(doomed.expiresAt, upStartedMs, upEndedMs);
        expectDeadline(paused.expiresAt, upStartedMs, upEndedMs);
        expect(Date.parse(steady.expiresAt) - deadlineMs).toBeGreaterThan(3500_000);
        // Every node carries the group's deadline.
        const groupDeadlineMs = expectDeadline(group.expiresAt, upStartedMs, upEndedMs);
        expect(group.nodes.map((node) => node.expiresAt)).toEqual([
          group.expiresAt,
          group.expiresAt,
        ]);

        // The long onstart fits: the service holds the bootstrap, within its limit; it ran
        // after the watchdog, which sleeps towards its hour.
        const held = (await emulator.state()).instances.find((i) => i.id === steady.instanceId);
        expect(held?.onstart).toMatch(/^f=\$\(mktemp\) && echo [A-Za-z0-9+/=]+ \| base64 -d/);
        expect(held?.onstart?.length).toBeLessThanOrEqual(4048);
        await eventually("the users' onstarts to run", async () => {
          const marks = await Promise.all(
            [mark, longMark].map((file) => readFile(file, "utf8").catch(() => "")),
          );
          return marks.every((text) => text === "ran\n");
        });
        expect(containerProcesses(steady.instanceId).map((p) => p.command)).toContainEqual(
          expect.stringMatching(/^sleep \d+/),
        );

        // Nobody runs Pulumi now: the deadlines pass.
        const nodeIds = group.nodes.map((node) => node.instanceId);
        await eventually(
          "the watchdogs to act",
          async () => {
            const shown = await accountInstances(emulator);
            const pausedNow = shown.find((i) => i.id === paused.instanceId)?.shown;
            return (
              !shown.some((i) => i.id === doomed.instanceId || nodeIds.includes(i.id)) &&
              pausedNow?.actual_status === "stopped" &&
              pausedNow.intended_status === "stopped"
            );
          },
          Math.max(deadlineMs, groupDeadlineMs) + graceMs - Date.now(),
        );
        expect(Date.now()).toBeGreaterThanOrEqual(deadlineMs);
        const requests = await emulator.requests();
        // One call each, with the instance's own key, never the account's.
        for (const instanceId of [doomed.instanceId, ...nodeIds]) {
          expect(watchdogEndsOf(requests, instanceId)).toEqual([
            expect.objectContaining({ method: "DELETE", status: 200, instanceKey: true }),
          ]);
          expect(accountDestroysOf(requests, instanceId)).toEqual([]);
        }
        expect(watchdogEndsOf(requests, paused.instanceId)).toEqual([
          expect.objectContaining({ method: "PUT", status: 200, instanceKey: true }),
        ]);
        // The destroyed instance's processes ended with it; the stopped one's too.
        await eventually("the expired containers' processes to end", () =>
          [doomed, paused].every((gpu) => containerProcesses(gpu.instanceId).length === 0),
        );

        // refresh: the destroyed one leaves the state, the stopped one is recorded stopped, and
        // the group's nodes gone.
        const refresh = await stack.refresh({ onOutput });
        expect(refresh.summary.resourceChanges).toMatchObject({ delete: 1 });
        const recorded = dynamicResources(await exportState(false));
        expect(recorded.map((r) => r.outputs?.["instanceId"])).not.toContain(doomed.instanceId);
        expect(
          recorded.find((r) => r.outputs?.["instanceId"] === paused.instanceId)?.outputs,
        ).toMatchObject({ state: "stopped", actualStatus: "stopped" });
        const recordedGroup = recorded.find((r) => r.type.endsWith(":NodeGroup"));
        expect(
          nodesSchema.parse(recordedGroup?.outputs?.["nodes"]).map((node) => node.actualStatus),
        ).toEqual(["gone", "gone"]);

        // Started by hand after its deadline (the onstart runs again), it stops again: a start
        // does not move the deadline.
        const client = outsideClient(emulator);
        await client.instances.setState(paused.instanceId, "running");
        await eventually("the restarted instance to be stopped by its watchdog", async () => {
          const shown = await client.instances.show(paused.instanceId);
          return shown?.intended_status === "stopped";
        });
        expect(endsOf(await emulator.requests(), paused.instanceId).at(-1)).toMatchObject({
          method: "PUT",
          instanceKey: true,
        });

        // The next up: the stopped one replaced, saying why (its diff's line, which a preview
        // says too); a new one for the destroyed one; the group replaced.
        output.length = 0;
        await emulator.clearRequests();
        const again = await stack.up({ onOutput });
        expect(again.summary.resourceChanges).toMatchObject({ create: 1, replace: 2 });
        const said = output.join("");
        // The row names the inputs that differ (refresh recorded it stopped); the line says why.
        expect(said).toMatch(/\+- pulumi-nodejs:dynamic\/gpucloud:Instance paused replac/);
        expect(said).toContain(
          `paused: instance ${paused.instanceId} expired at ${paused.expiresAt} (maxLifetime ` +
            `${lifetime}): its watchdog stopped it (its disk bills until it is replaced); it is ` +
            "replaced by a new one",
        );
        const renewed = outputSchema.parse(again.outputs["doomed"]?.value);
        const replaced = outputSchema.parse(again.outputs["paused"]?.value);
        expect(renewed.instanceId).not.toBe(doomed.instanceId);
        expect(replaced.instanceId).not.toBe(paused.instanceId);
        expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(deadlineMs);
        expect(Date.parse(replaced.expiresAt)).toBeGreaterThan(deadlineMs);
        // Four rents (two instances, two nodes), and the stopped one destroyed (its disk billed
        // until then). The new ones' own 5 s may already be running out: the account is not
        // asked about them here.
        const writes = await emulator.writes();
        expect(writes.filter((w) => w.path.startsWith("/api/v0/asks/"))).toHaveLength(4);
        expect(endsOf(writes, paused.instanceId)).toEqual([
          expect.objectContaining({ method: "DELETE", status: 200 }),
        ]);
        expect((await emulator.state()).instances.map((i) => i.id)).not.toContain(
          paused.instanceId,
        );

        // The group anew: its overlay removed, a new one made, a later deadline, new nodes.
        const regrouped = groupSchema.parse(again.outputs["group"]?.value);
        expect(regrouped.overlayName).not.toBe(group.overlayName);
        expect((await outsideClient(emulator).overlays.list()).map((o) => o.name)).toEqual([
          regrouped.overlayName,
        ]);
        expect(Date.parse(regrouped.expiresAt)).toBeGreaterThan(groupDeadlineMs);
        for (const node of regrouped.nodes) expect(nodeIds).not.toContain(node.instanceId);

        // (A new maxLifetime for a running instance replaces it, its deadline being in its
        // onstart: Instance's diff, test/unit/lifetime.test.ts.)

        // destroy leaves nothing, the sleeping watchdog included.
        await stack.destroy({ onOutput });
        expect((await emulator.state()).instances).toEqual([]);
        await eventually("every container's processes to end", () =>
          [renewed, replaced, steady].every(
            (gpu) => containerProcesses(gpu.instanceId).length === 0,
          ),
        );
      },
    );
  });
});

describe("maxLifetime through the plugin (the emulator runs onstarts)", () => {
  const { emulator } = useEmulator({ per: "test", runOnstart: true, bootPolls: 1 });

  it("Python: destroyed and stopped at the deadline; refresh and preview say so on the instance's row", async () => {
    const main = `import pulumi
import pulumi_gpucloud as gpucloud

common = dict(ask_id=31001, image="pytorch/pytorch:latest", disk_gb=20,
              poll_interval_seconds=0.05, max_lifetime="${lifetime}")
doomed = gpucloud.Instance("doomed", **common)
paused = gpucloud.Instance("paused", on_expiry="stop", **common)
for name, gpu in (("doomed", doomed), ("paused", paused)):
    pulumi.export(name, {"instanceId": gpu.instance_id, "expiresAt": gpu.expires_at})
`;
    await withStack(
      {
        language: "python",
        program: { main, project: "python-lifetime" },
        config: emulatorConfig(emulator),
      },
      async ({ stack, exportState }) => {
        const upStartedMs = Date.now();
        await emulator.clearRequests();
        const up = await stack.up();
        const upEndedMs = Date.now();
        expect(pulumiProcesses()).toEqual([]);
        const doomed = outputSchema.parse(up.outputs["doomed"]?.value);
        const paused = outputSchema.parse(up.outputs["paused"]?.value);
        const deadlineMs = expectDeadline(doomed.expiresAt, upStartedMs, upEndedMs);
        expectDeadline(paused.expiresAt, upStartedMs, upEndedMs);

        await eventually(
          "the watchdogs to act",
          async () => {
            const shown = await accountInstances(emulator);
            return (
              !shown.some((i) => i.id === doomed.instanceId) &&
              shown.find((i) => i.id === paused.instanceId)?.shown?.actual_status === "stopped"
            );
          },
          deadlineMs + graceMs - Date.now(),
        );
        const requests = await emulator.requests();
        expect(watchdogEndsOf(requests, doomed.instanceId)).toEqual([
          expect.objectContaining({ method: "DELETE", status: 200, instanceKey: true }),
        ]);
        expect(accountDestroysOf(requests, doomed.instanceId)).toEqual([]);
        expect(watchdogEndsOf(requests, paused.instanceId)).toEqual([
          expect.objectContaining({ method: "PUT", status: 200, instanceKey: true }),
        ]);

        const refresh = await stack.refresh();
        expect(refresh.summary.resourceChanges).toMatchObject({ delete: 1 });
        const recorded = stateResources(await exportState(false)).filter(
          (resource) => resource.type === "gpucloud:index:Instance",
        );
        expect(recorded.map((resource) => resource.outputs?.["instanceId"])).toEqual([
          paused.instanceId,
        ]);
        expect(recorded[0]?.outputs).toMatchObject({ state: "stopped" });

        const output: string[] = [];
        const preview = await stack.preview({ onOutput: collect(output) });
        expect(preview.changeSummary).toMatchObject({ create: 1, replace: 1 });
        // Through the plugin the line is on the instance's own row, not the stack's.
        expect(output.join("")).toMatch(
          new RegExp(
            String.raw`gpucloud:index:Instance paused .*gpucloud: paused: instance ` +
              `${paused.instanceId} expired at ${paused.expiresAt} \\(maxLifetime ${lifetime}\\): ` +
              String.raw`its watchdog stopped it`,
          ),
        );
      },
    );
  });
});
