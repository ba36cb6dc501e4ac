import { z } from "zod";
import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// A Volume by query and the Instance by query that links it, as a new user writes them, on the
// generated market (seed 1), where renting is exclusive as on the service. `trainer` and its
// volume `data` are placed without forInstance: the cheapest matching volume offer is on machine
// 70021, whose matching instance offers are 4x RTX A6000 at $1.7089/h and 8x at $2.8939/h. A
// replacement created first would find only the 8-GPU offer (the old instance holds the other),
// above the $2 cap. `tuner` and `cache` want an RTX 4090, which machine 70021 does not have:
// the volume says so with forInstance and is placed where one is.

// Python shows an offer's keys in its own case (ask_id): read in either.
const camel = (key: string) => key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const offerSchema = z.preprocess(
  (offer) =>
    typeof offer === "object" && offer !== null
      ? Object.fromEntries(Object.entries(offer).map(([key, value]) => [camel(key), value]))
      : offer,
  z.object({
    askId: z.number(),
    dollarsPerHour: z.number(),
    machineId: z.number(),
    gpuName: z.string(),
  }),
);
const outputsSchema = z.object({
  trainer: offerSchema,
  trainerId: z.number(),
  dataMachine: z.number(),
  tuner: offerSchema,
  cacheMachine: z.number(),
});

const typescriptProgram = (diskGb: number) =>
  program(`
const data = new gpucloud.Volume("data", { volumeOfferQuery: { reliability: { gte: 0.95 } }, sizeGb: 50 });
const trainer = new gpucloud.Instance("trainer", {
  offerQuery: { gpuRamGb: { gte: 8 }, reliability: { gte: 0.95 } },
  maxDollarsPerHour: 2,
  volume: { volumeId: data.volumeId, mountPath: "/data" },
  image: "pytorch/pytorch:latest",
  diskGb: ${diskGb},
  pollIntervalSeconds: 0.05,
});
const tunerQuery = { gpuName: "RTX 4090" };
const cache = new gpucloud.Volume("cache", {
  volumeOfferQuery: { reliability: { gte: 0.95 } },
  sizeGb: 50,
  forInstance: { offerQuery: tunerQuery, maxDollarsPerHour: 1 },
});
const tuner = new gpucloud.Instance("tuner", {
  offerQuery: tunerQuery,
  maxDollarsPerHour: 1,
  volume: { volumeId: cache.volumeId, mountPath: "/cache" },
  image: "pytorch/pytorch:latest",
  diskGb: 20,
  pollIntervalSeconds: 0.05,
});
exports.trainer = trainer.offer;
exports.trainerId = trainer.instanceId;
exports.dataMachine = data.machineId;
exports.tuner = tuner.offer;
exports.cacheMachine = cache.machineId;
`);

const pythonProgram = (diskGb: number) => ({
  project: "python-volume-placement",
  main: `import pulumi
import pulumi_gpucloud as gpucloud

data = gpucloud.Volume("data", volume_offer_query={"reliability": {"gte": 0.95}}, size_gb=50)
trainer = gpucloud.Instance(
    "trainer",
    offer_query={"gpuRamGb": {"gte": 8}, "reliability": {"gte": 0.95}},
    max_dollars_per_hour=2,
    volume={"volume_id": data.volume_id, "mount_path": "/data"},
    image="pytorch/pytorch:latest",
    disk_gb=${diskGb},
    poll_interval_seconds=0.05,
)
tuner_query = {"gpuName": "RTX 4090"}
cache = gpucloud.Volume(
    "cache",
    volume_offer_query={"reliability": {"gte": 0.95}},
    size_gb=50,
    for_instance={"offer_query": tuner_query, "max_dollars_per_hour": 1},
)
tuner = gpucloud.Instance(
    "tuner",
    offer_query=tuner_query,
    max_dollars_per_hour=1,
    volume={"volume_id": cache.volume_id, "mount_path": "/cache"},
    image="pytorch/pytorch:latest",
    disk_gb=20,
    poll_interval_seconds=0.05,
)
pulumi.export("trainer", trainer.offer)
pulumi.export("trainerId", trainer.instance_id)
pulumi.export("dataMachine", data.machine_id)
pulumi.export("tuner", tuner.offer)
pulumi.export("cacheMachine", cache.machine_id)
`,
});

describe("a volume and the instance that links it, under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test", market: { seed: 1 } });

  const cases = [
    ["TypeScript", (diskGb: number) => ({ program: typescriptProgram(diskGb) })],
    [
      "Python",
      (diskGb: number) => ({ language: "python" as const, program: pythonProgram(diskGb) }),
    ],
  ] as const;

  it.each(cases)(
    "%s: a disk change keeps the instance's price; a volume with forInstance lands where its instance fits",
    async (_language, programOf) => {
      const setProgramOf = (diskGb: number) => {
        const chosen = programOf(diskGb);
        return "language" in chosen ? chosen.program.main : chosen.program;
      };
      await withStack(
        { ...programOf(40), config: emulatorConfig(emulator), teardown: "discard" },
        async ({ stack, setProgram, preview, output }) => {
          const onOutput = (text: string) => output.push(text);
          const first = outputsSchema.parse(
            Object.fromEntries(
              Object.entries((await stack.up({ onOutput })).outputs).map(([k, v]) => [k, v.value]),
            ),
          );
          // The volume without forInstance: the cheapest volume machine, and its cheap offer.
          expect(first.trainer).toMatchObject({ machineId: first.dataMachine, askId: 40041 });
          expect(first.trainer.dollarsPerHour).toBe(1.7089);
          // With forInstance: a machine that has an RTX 4090 under $1/h, and the instance on it.
          expect(first.cacheMachine).not.toBe(70021);
          expect(first.tuner).toMatchObject({ gpuName: "RTX 4090", machineId: first.cacheMachine });
          expect(first.tuner.dollarsPerHour).toBeLessThanOrEqual(1);

          // 40 -> 60 GB replaces the instance, deleting first: it takes the same cheap offer.
          await setProgram(setProgramOf(60));
          const planned = await preview();
          expect(planned.changeSummary).toMatchObject({ replace: 1 });
          expect(planned.stdout).toContain(
            `instance ${first.trainerId} is destroyed before its replacement is rented`,
          );
          const second = outputsSchema.parse(
            Object.fromEntries(
              Object.entries((await stack.up({ onOutput })).outputs).map(([k, v]) => [k, v.value]),
            ),
          );
          expect(second.trainerId).not.toBe(first.trainerId);
          expect(second.trainer.machineId).toBe(first.dataMachine);
          expect(second.trainer.dollarsPerHour).toBeLessThanOrEqual(first.trainer.dollarsPerHour);
          // The old instance is gone: the stack holds two, one per Instance.
          const instances = (await emulator.state()).instances.map((instance) => instance.id);
          expect(instances).not.toContain(first.trainerId);
          expect(instances).toHaveLength(2);
        },
      );
    },
  );
});
