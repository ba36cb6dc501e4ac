import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, outsideClient, program, singleGpuQuery } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

const QUERY = singleGpuQuery;
const common = { image: "pytorch/pytorch:latest", diskGb: 20, pollIntervalSeconds: 0.05 };

const creates = <R extends { method: string; path: string }>(requests: R[]) =>
  requests.filter((r) => r.method === "PUT" && r.path.startsWith("/api/v0/asks/"));
const searches = (requests: { method: string; path: string }[]) =>
  requests.filter((r) => r.method === "POST" && r.path === "/api/v0/bundles/");
/** Shows of one instance by id (a status round shows only what its list did not hold). */
const shows = (requests: { method: string; path: string }[]) =>
  requests.filter((r) => r.method === "GET" && /^\/api\/v0\/instances\/\d+\//.test(r.path));
/** The status rounds' lists: the instances waited on, by id. */
const statusLists = (requests: { method: string; path: string }[]) =>
  requests.filter(
    (r) =>
      r.method === "GET" &&
      r.path.startsWith("/api/v1/instances/") &&
      decodeURIComponent(r.path).includes('"id"'),
  );

// What the engine adds to renting by query: instances of one query created side by side, an
// instance whose volume is another resource's output (unknown at preview), and no drift after.
// What a create or check does on its own when the market moves (an offer taken between search
// and rent, a search ignoring a filter, a cap below every match, a malformed query, an explicit
// ask on another machine than the volume) is test/contract/instance-by-query.test.ts.
describe("renting by query under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test", market: { seed: 11 } });

  it("two instances with one query rent two different offers, the cheapest; a volume and an instance by query land on one machine; refresh and preview change nothing", async () => {
    const client = outsideClient(emulator);
    const matches = await client.searchOffers(QUERY);
    const twoByQuery = `
const query = ${JSON.stringify(QUERY)};
const a = new gpucloud.Instance("a", { ...${JSON.stringify(common)}, offerQuery: query });
const b = new gpucloud.Instance("b", { ...${JSON.stringify(common)}, offerQuery: query });
exports.a = a.offer;
exports.b = b.offer;
exports.cheapest = gpucloud.getOffers({ ...query, limit: 3 }).apply((offers) => offers.map((o) => o.askId));
`;
    const withVolume = `
const volume = new gpucloud.Volume("data", { volumeOfferQuery: { reliability: { gte: 0.98 } }, sizeGb: 50 });
const gpu = new gpucloud.Instance("gpu", {
  ...${JSON.stringify(common)},
  offerQuery: { numGpus: { gte: 1 } },
  volume: { volumeId: volume.volumeId, mountPath: "/data" },
});
exports.volumeMachine = volume.machineId;
exports.volumeId = volume.volumeId;
exports.offer = gpu.offer;
exports.instanceId = gpu.instanceId;
`;
    await withStack(
      { program: program(twoByQuery), config: emulatorConfig(emulator), teardown: "discard" },
      async ({ stack, setProgram, output }) => {
        const onOutput = (text: string) => output.push(text);
        await emulator.clearRequests();
        const up = await stack.up({ onOutput });
        const a = up.outputs["a"]?.value as { askId: number; dollarsPerHour: number };
        const b = up.outputs["b"]?.value as { askId: number; dollarsPerHour: number };
        expect(a.askId).not.toBe(b.askId);
        // Between them they rented the two cheapest matches.
        expect(new Set([a.askId, b.askId])).toEqual(
          new Set(matches.slice(0, 2).map((o) => o.askId)),
        );
        for (const rented of [a, b]) {
          expect(rented).toMatchObject({
            gpuName: expect.stringMatching(/^RTX (4090|3090)$/) as unknown,
            numGpus: 1,
            machineId: expect.any(Number) as unknown,
          });
        }
        const requests = await emulator.requests();
        // Each instance: one search and one create. The two search at about the same moment;
        // the first to choose claims the cheapest, so the other never asks for it (no refusal).
        expect(creates(requests).map((r) => r.status)).toEqual([200, 200]);
        // One search per instance, the program's getOffers, and the plan's price of the query at
        // check (one for both: provider/pricing).
        expect(searches(requests)).toHaveLength(4);
        // Both boots (two polls each) read through the shared rounds' lists, never a show.
        expect(statusLists(requests).length).toBeGreaterThanOrEqual(2);
        expect(shows(requests)).toEqual([]);

        // A volume by query, and an instance by query linking it (its volumeId unknown at
        // preview): the instance lands on the volume's machine and lists the volume.
        await setProgram(program(twoByQuery + withVolume));
        const linked = await stack.up({ onOutput });
        expect(linked.summary.resourceChanges).toEqual({ same: 4, create: 2 });
        const volumeMachine = linked.outputs["volumeMachine"]?.value as number;
        expect((linked.outputs["offer"]?.value as { machineId: number }).machineId).toBe(
          volumeMachine,
        );
        const instance = await client.instances.show(linked.outputs["instanceId"]?.value as number);
        expect(instance?.volume_info).toEqual([
          expect.objectContaining({
            volume_id: linked.outputs["volumeId"]?.value as number,
            mount_path: "/data",
          }),
        ]);
        const [volume] = await client.volumes.list();
        expect(volume?.instances).toEqual([linked.outputs["instanceId"]?.value]);

        // The stack, its instance sweeper, the three instances and the volume.
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 6 });
        expect((await stack.preview({ onOutput })).changeSummary).toEqual({ same: 6 });
      },
    );
  });
});
