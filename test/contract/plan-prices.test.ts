import { parseResourceLine } from "../../provider/pricing/plan-lines";
import { Run } from "../../provider/run/run";
import { unknownValue } from "../../provider/shared/validation";
import {
  type InstanceInputs,
  instanceInputsSchema,
  type InstanceOutputs,
} from "../../provider/resources/instance/inputs";
import { implementation as instanceProvider } from "../../provider/resources/instance";
import {
  implementation as volumeProvider,
  type VolumeInputs,
} from "../../provider/resources/volume";
import { workerGroupPlanFailures } from "../../provider/resources/worker-group/pricing";
import { workerGroupInputsSchema } from "../../provider/resources/worker-group/inputs";
import { useEmulator } from "../support/use-emulator";
import type { TestEmulator } from "../support/emulator";

// The plan's prices at check and diff (provider/pricing), against the emulator's seeded market:
// instance ask 31001 (RTX 4090, $0.35/h listed with 8 GB, storage $0.12/GB-month), 31002
// ($0.42/h, $0.10/GB-month); volume ask 21001 ($0.10/GB-month).

/** What the emulator answers for an ask rented with `diskGb`: the service's own formula. */
async function emulatorPrice(emulator: TestEmulator, askId: number, diskGb: number) {
  const reply = await emulator.call("POST", "/api/v0/bundles/", {
    id: { eq: askId },
    allocated_storage: diskGb,
  });
  const [offer] = (reply.body as { offers: { dph_total: number }[] }).offers;
  return offer?.dph_total ?? Number.NaN;
}

/** A run with the stack's cap, as the engine configures one, its lines collected. */
function runWithCap(emulator: TestEmulator, cap: number | undefined, lines: string[]): Run {
  const values: Record<string, string> = {
    "gpucloud:apiKey": emulator.apiKey,
    "gpucloud:baseUrl": emulator.url,
    ...(cap === undefined ? {} : { "gpucloud:maxDollarsPerHour": String(cap) }),
  };
  return new Run({
    config: { get: (key) => values[key] },
    progress: (line) => lines.push(line),
    stackStatus: (line) => lines.push(line),
  });
}

const instance = (name: string, askId: number, diskGb: number): InstanceInputs =>
  ({ askId, image: "pytorch/pytorch", diskGb, owner: `proj/dev/${name}` }) as InstanceInputs;

/** The state of `inputs` rented at ask 31001 for $0.36/h, as instance 7. */
const rentedAt36 = (inputs: InstanceInputs): InstanceOutputs =>
  ({
    ...inputs,
    instanceId: 7,
    attempts: [],
    offer: { askId: 31001, gpuName: null, numGpus: 1, dollarsPerHour: 0.36, machineId: null },
  }) as unknown as InstanceOutputs;

describe("the plan's prices at preview", () => {
  const providers = useEmulator({ per: "file", bootPolls: 0, market: false });
  const { emulator } = providers;
  const runs: Run[] = [];
  afterEach(async () => {
    await Promise.all(runs.splice(0).map((run) => run.close()));
  });

  it("prices each instance as the emulator does, and totals the plan", async () => {
    const lines: string[] = [];
    const run = runWithCap(emulator, undefined, lines);
    runs.push(run);
    const a = await instanceProvider.check(run, {} as InstanceInputs, instance("a", 31001, 40));
    const b = await instanceProvider.check(run, {} as InstanceInputs, instance("b", 31002, 20));
    expect([...(a.failures ?? []), ...(b.failures ?? [])]).toEqual([]);
    const [priceA, priceB] = [
      await emulatorPrice(emulator, 31001, 40),
      await emulatorPrice(emulator, 31002, 20),
    ];
    const items = run.plan.items();
    expect(items.map((item) => item.dollarsPerHourAfter)).toEqual([
      expect.closeTo(priceA, 5),
      expect.closeTo(priceB, 5),
    ]);
    expect(run.plan.totals().after).toBeCloseTo(priceA + priceB, 5);
    // One line per resource, rounded as a bill shows it, then the stack's total.
    expect(lines).toEqual([
      "Instance a: $0.3553/h to create: ask 31001 at $0.3487/h + 40 GB disk at $0.12/GB-month",
      expect.stringMatching(/^plan: \$0\.3553\/h after this change/),
      "Instance b: $0.4217/h to create: ask 31002 at $0.4189/h + 20 GB disk at $0.10/GB-month",
      expect.stringMatching(
        /^plan: \$0\.777\/h after this change, \$0\.00\/h now \(\+\$0\.777\/h\); bandwidth/,
      ),
    ]);
    // What CI reads back from the lines: the same figures, to the line's precision.
    const figures = lines.flatMap((line) => parseResourceLine(line) ?? []);
    expect(figures.map((one) => [one.op, one.dollarsPerHourAfter])).toEqual([
      ["create", expect.closeTo(items[0]?.dollarsPerHourAfter ?? NaN, 4)],
      ["create", expect.closeTo(items[1]?.dollarsPerHourAfter ?? NaN, 4)],
    ]);
  });

  it("prices a prepaid instance at its discount, as the service then charges it", async () => {
    await emulator.control("PUT", "/_emulator/user", { credit: 1000 });
    const lines: string[] = [];
    const run = runWithCap(emulator, undefined, lines);
    runs.push(run);
    const inputs = instanceInputsSchema.parse({
      ...instance("reserved", 31001, 40),
      prepayDollars: 150,
      pollIntervalSeconds: 0.05,
    });
    const checked = await instanceProvider.check(run, {} as InstanceInputs, inputs);
    expect(checked.failures ?? []).toEqual([]);
    const listed = await emulatorPrice(emulator, 31001, 40);
    const [item] = run.plan.items();
    expect(item?.dollarsPerHourAfter).toBeLessThan(listed);
    expect(lines[0]).toMatch(
      /^Instance reserved: \$0\.\d+\/h to create: ask 31001 at \$0\.3487\/h \+ 40 GB disk at \$0\.12\/GB-month, less \d+\.\d% for \$150\.00 prepaid \(\d+\.\d months, reserved\)$/,
    );

    const created = await instanceProvider.create(run, checked.inputs as InstanceInputs);
    // The service's discounted price after up is what the preview said.
    expect(created.outs?.dollarsPerHour).toBeCloseTo(item?.dollarsPerHourAfter ?? NaN, 5);
    await instanceProvider.delete?.(run, created.id, created.outs as InstanceOutputs);
  });

  it("shares one search per ask list, however many instances rent from it", async () => {
    const run = runWithCap(emulator, undefined, []);
    runs.push(run);
    await emulator.clearRequests();
    for (const name of ["a", "b", "c", "d"]) {
      await instanceProvider.check(run, {} as InstanceInputs, instance(name, 31001, 40));
    }
    const searches = (await emulator.requests()).filter((r) => r.path === "/api/v0/bundles/");
    expect(searches).toHaveLength(1);
  });

  it("fails the check that takes the plan over the cap, naming total, cap and items", async () => {
    const run = runWithCap(emulator, 0.5, []);
    runs.push(run);
    await emulator.clearRequests();
    const first = await instanceProvider.check(run, {} as InstanceInputs, instance("a", 31001, 40));
    expect(first.failures).toEqual([]);
    const second = await instanceProvider.check(
      run,
      {} as InstanceInputs,
      instance("b", 31002, 20),
    );
    const reasons = (second.failures ?? []).map((failure) => failure.reason);
    expect(reasons).toEqual([
      expect.stringMatching(
        /^gpucloud:maxDollarsPerHour: the plan's expected total is \$0\.777\/h, over the stack's cap of \$0\.50\/h; the largest: b \$0\.4217\/h, a \$0\.3553\/h; nothing was sent/,
      ),
    ]);
    expect(second.failures?.[0]?.property).toBe("");
    expect(await emulator.writes()).toEqual([]);
  });

  it("records an existing instance's price at diff, and fails there over the cap", async () => {
    const lines: string[] = [];
    const run = runWithCap(emulator, 0.3, lines);
    runs.push(run);
    const inputs = instance("a", 31001, 40);
    await instanceProvider.check(run, inputs, inputs);
    await expect(instanceProvider.diff(run, "7", rentedAt36(inputs), inputs)).rejects.toThrow(
      /expected total is \$0\.36\/h, over the stack's cap of \$0\.30\/h/,
    );
    expect(run.plan.items()).toEqual([
      expect.objectContaining({ op: "same", dollarsPerHourNow: 0.36, dollarsPerHourAfter: 0.36 }),
    ]);
    expect(lines).toContain("Instance a: $0.36/h unchanged: the rented offer's $0.36/h");
  });

  it("prices nothing at a diff no check came before (a refresh's), over the cap or not", async () => {
    const lines: string[] = [];
    const run = runWithCap(emulator, 0.3, lines);
    runs.push(run);
    const inputs = instance("a", 31001, 40);
    await emulator.clearRequests();
    await instanceProvider.diff(run, "7", rentedAt36(inputs), inputs);
    expect(run.plan.items()).toEqual([]);
    expect(lines).toEqual([]);
    expect(await emulator.requests()).toEqual([]);
  });

  it("prices a volume by its size and its ask's storage price", async () => {
    const run = runWithCap(emulator, undefined, []);
    runs.push(run);
    const checked = await volumeProvider.check(run, {} as VolumeInputs, {
      askId: 21001,
      sizeGb: 72,
    });
    expect(checked.failures).toEqual([]);
    const [item] = run.plan.items();
    expect(item?.type).toBe("Volume");
    expect(item?.dollarsPerHourAfter).toBeCloseTo(0.01, 9);
    expect(item?.basis).toBe("72 GB at $0.10/GB-month (ask 21001)");
  });

  it("prices an existing volume (known by its inputs alone) at the diff after its check, and at a refresh's not at all", async () => {
    const inputs = { askId: 21001, sizeGb: 72 } as VolumeInputs;
    const olds = { ...inputs, volumeName: "V.5001", volumeId: 5001, dollarsPerHour: 0.01 };
    const refreshed: string[] = [];
    const refreshing = runWithCap(emulator, 0.001, refreshed);
    const planned: string[] = [];
    const planning = runWithCap(emulator, 0.001, planned);
    runs.push(refreshing, planning);
    await volumeProvider.diff(refreshing, "5001", olds, inputs);
    expect(refreshing.plan.items()).toEqual([]);
    expect(refreshed).toEqual([]);
    const { failures, inputs: checkedInputs } = await volumeProvider.check(planning, olds, inputs);
    expect(failures).toEqual([]);
    if (checkedInputs === undefined) throw new Error("check returned no inputs");
    await expect(volumeProvider.diff(planning, "5001", olds, checkedInputs)).rejects.toThrow(
      /over the stack's cap of \$0\.001\/h/,
    );
    expect(planning.plan.items()).toEqual([
      expect.objectContaining({ type: "Volume", op: "same", dollarsPerHourNow: 0.01 }),
    ]);
    expect(planned).toContain("Volume: $0.01/h unchanged: V.5001, 72 GB: as recorded");
  });

  it("gives a worker group a range: none to maxWorkers on the cheapest matching offer, counted at $0", async () => {
    const run = runWithCap(emulator, undefined, []);
    runs.push(run);
    const inputs = workerGroupInputsSchema.parse({
      endpointId: 1,
      templateHashId: "0".repeat(32),
      offerQuery: { gpuName: "RTX 4090" },
      maxWorkers: 4,
    });
    expect(await workerGroupPlanFailures(run, {}, inputs, { ...inputs })).toEqual([]);
    const [item] = run.plan.items();
    // Ask 31001: $0.35/h listed with 8 GB (the workers' disk is the template's).
    expect(item).toMatchObject({ type: "WorkerGroup", dollarsPerHourAfter: 0, low: 0 });
    expect(item?.high).toBeCloseTo(4 * (await emulatorPrice(emulator, 31001, 8)), 5);
    expect(item?.basis).toBe(
      "serverless: 0–4 workers × $0.35/h (the cheapest matching offer now) as the load " +
        "recruits them; cold workers bill their storage only",
    );
  });

  it("counts, at the cap, the stack's instances the plan has not priced: they bill until up removes them", async () => {
    const token = "stack-token-of-this-test";
    // The stack already runs an instance (31002) that the program no longer declares.
    const setup = runWithCap(emulator, undefined, []);
    runs.push(setup);
    const kept = await instanceProvider.create(
      setup,
      instanceInputsSchema.parse({
        ...instance("removed", 31002, 20),
        stackToken: token,
        pollIntervalSeconds: 0.05,
      }),
    );
    const lines: string[] = [];
    const run = runWithCap(emulator, 0.5, lines);
    runs.push(run);
    const checked = await instanceProvider.check(run, {} as InstanceInputs, {
      ...instance("b", 31001, 40),
      stackToken: token,
    });
    // $0.3553/h after, but both bill while `up` applies it: the removed one goes last.
    expect((checked.failures ?? []).map((failure) => failure.reason)).toEqual([
      expect.stringMatching(
        /the plan's expected total is \$0\.3553\/h after this change and up to \$0\.777\/h while `up` applies it .*raise the cap: pulumi config set gpucloud:maxDollarsPerHour 0\.78$/,
      ),
    ]);
    // Another stack's instances are never counted.
    const other = runWithCap(emulator, 0.5, []);
    runs.push(other);
    const elsewhere = await instanceProvider.check(other, {} as InstanceInputs, {
      ...instance("b", 31001, 40),
      stackToken: "another-stack",
    });
    expect(elsewhere.failures).toEqual([]);
    if (kept.outs !== undefined) await instanceProvider.delete(setup, kept.id, kept.outs);
  });

  it("prices what waits for another resource as the range it may take, counted at its top; a cap cannot hold what nothing bounds", async () => {
    await emulator.clearRequests();
    const lines: string[] = [];
    const run = runWithCap(emulator, undefined, lines);
    runs.push(run);
    // A volume made by the plan without forInstance: the machine is not known yet.
    await instanceProvider.check(
      run,
      {} as InstanceInputs,
      {
        offerQuery: { gpuName: "RTX 4090" },
        image: "pytorch/pytorch",
        diskGb: 8,
        owner: "proj/dev/onVolume",
        volume: { volumeId: unknownValue, mountPath: "/data" },
      } as unknown as InstanceInputs,
    );
    const [pending] = run.plan.items();
    expect(pending).toMatchObject({
      pending: "volume.volumeId",
      dollarsPerHourAfter: pending?.high,
    });
    expect(lines[0]).toMatch(
      /^Instance onVolume: priced once volume\.volumeId is known, \$[\d.]+(–\$[\d.]+)?\/h, counted at \$[\d.]+\/h to create: /,
    );
    const capped = runWithCap(emulator, 5, []);
    runs.push(capped);
    const unbounded = await instanceProvider.check(
      capped,
      {} as InstanceInputs,
      {
        ...instance("byOutput", 31001, 8),
        askId: unknownValue,
      } as unknown as InstanceInputs,
    );
    expect((unbounded.failures ?? []).map((failure) => failure.reason)).toEqual([
      "gpucloud:maxDollarsPerHour: byOutput cannot be priced at preview (askId is another " +
        "resource's output), so the stack's cap of $5.00/h cannot be held; nothing was sent. " +
        "Give it a value known at preview, or unset the cap",
    ]);
    expect(await emulator.writes()).toEqual([]);
  });
});
