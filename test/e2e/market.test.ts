import { withStack } from "../support/pulumi-stack";
import { emulatorConfig, outsideClient, program } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

const QUERY = {
  gpuName: { in: ["RTX 4090", "RTX 3090"] },
  numGpus: 1,
  gpuRamGb: { gte: 24 },
  reliability: { gte: 0.98 },
  geolocation: { notin: ["CN"] },
};
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

const oneInstance = (args: Record<string, unknown>) =>
  program(`
const gpu = new gpucloud.Instance("gpu", ${JSON.stringify({ ...common, ...args })});
exports.offer = gpu.offer;
exports.instanceId = gpu.instanceId;
`);

describe("renting by query under the real Pulumi CLI", () => {
  const { emulator } = useEmulator({ per: "test", market: { seed: 11 } });

  it("two instances with one query rent two different offers, the cheapest matches; refresh and preview change nothing", async () => {
    const client = outsideClient(emulator);
    const matches = await client.searchOffers(QUERY);
    await withStack(
      {
        program: program(`
const query = ${JSON.stringify(QUERY)};
const a = new gpucloud.Instance("a", { ...${JSON.stringify(common)}, offerQuery: query });
const b = new gpucloud.Instance("b", { ...${JSON.stringify(common)}, offerQuery: query });
exports.a = a.offer;
exports.b = b.offer;
exports.cheapest = gpucloud.getOffers({ ...query, limit: 3 }).apply((offers) => offers.map((o) => o.askId));
`),
        config: emulatorConfig(emulator),
      },
      async ({ stack, output }) => {
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

        // The stack, its instance sweeper and the two instances.
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 4 });
        const preview = await stack.preview({ onOutput });
        expect(preview.changeSummary).toEqual({ same: 4 });
      },
    );
  });

  it("an offer taken between search and rent moves to the next one: one create per offer tried", async () => {
    const client = outsideClient(emulator);
    // Two searches: the check's (the plan's price, provider/pricing), then the create's. Each
    // loses its first answer to someone else: the create's first choice is then taken too.
    const [taken, first, second] = await client.searchOffers(QUERY);
    expect(taken).toBeDefined();
    await emulator.setFaults({ offerTakenAfterSearch: { next: 2 } });
    await withStack(
      { program: oneInstance({ offerQuery: QUERY }), config: emulatorConfig(emulator) },
      async ({ stack, output }) => {
        await emulator.clearRequests();
        const up = await stack.up({ onOutput: (text) => output.push(text) });
        expect((up.outputs["offer"]?.value as { askId: number }).askId).toBe(second?.askId);
        const tried = creates(await emulator.requests());
        expect(tried.map((r) => r.path)).toEqual([
          `/api/v0/asks/${first?.askId}/`,
          `/api/v0/asks/${second?.askId}/`,
        ]);
        expect(tried.map((r) => r.status)).toEqual([404, 200]);
      },
    );
  });

  it("when the search ignores a filter, the offer that does not match is never rented", async () => {
    const client = outsideClient(emulator);
    const query = { gpuName: "RTX 4090", reliability: { gte: 0.99 } };
    const unfiltered = await client.searchOffers({ gpuName: "RTX 4090" });
    const cheapestAny = unfiltered[0];
    // The market must make the point: the cheapest RTX 4090 is below the reliability asked for.
    expect(cheapestAny?.reliability).toBeLessThan(0.99);
    await emulator.setFaults({ searchIgnoresFilter: { field: "reliability" } });
    await withStack(
      { program: oneInstance({ offerQuery: query }), config: emulatorConfig(emulator) },
      async ({ stack, output }) => {
        await emulator.clearRequests();
        const up = await stack.up({ onOutput: (text) => output.push(text) });
        const offer = up.outputs["offer"]?.value as { askId: number; reliability: number };
        expect(offer.reliability).toBeGreaterThanOrEqual(0.99);
        const tried = creates(await emulator.requests());
        expect(tried).toHaveLength(1);
        expect(tried[0]?.path).toBe(`/api/v0/asks/${offer.askId}/`);
        expect(output.join("")).toContain(`skipping ask ${cheapestAny?.askId}`);
      },
    );
  });

  it("maxDollarsPerHour below every match fails at create naming the cheapest price, renting nothing", async () => {
    const [cheapest] = await outsideClient(emulator).searchOffers(QUERY);
    await withStack(
      {
        program: oneInstance({ offerQuery: QUERY, maxDollarsPerHour: 0.01 }),
        config: emulatorConfig(emulator),
      },
      async ({ stack, output }) => {
        await emulator.clearRequests();
        await expect(stack.up({ onOutput: (text) => output.push(text) })).rejects.toThrow(
          `the cheapest match is $${cheapest?.dollarsPerHour}/h (ask ${cheapest?.askId}`,
        );
        expect(creates(await emulator.requests())).toEqual([]);
        expect((await emulator.state()).instances).toEqual([]);
      },
    );
  });

  it("a malformed query fails at preview naming the field, and sends nothing", async () => {
    await withStack(
      {
        program: oneInstance({ offerQuery: { gpuName: "RTX 4090", numGpus: { gt: "two" } } }),
        config: emulatorConfig(emulator),
      },
      async ({ stack, output }) => {
        await emulator.clearRequests();
        await expect(stack.preview({ onOutput: (text) => output.push(text) })).rejects.toThrow(
          /offerQuery: numGpus\.gt: got "two"; expected a number/,
        );
        expect(await emulator.writes()).toEqual([]);
        expect(searches(await emulator.requests())).toEqual([]);
      },
    );
  });

  it("a volume and an instance by query land on one machine, and the instance lists the volume", async () => {
    await withStack(
      {
        program: program(`
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
`),
        config: emulatorConfig(emulator),
      },
      async ({ stack, output }) => {
        const onOutput = (text: string) => output.push(text);
        const up = await stack.up({ onOutput });
        const volumeMachine = up.outputs["volumeMachine"]?.value as number;
        expect((up.outputs["offer"]?.value as { machineId: number }).machineId).toBe(volumeMachine);
        const client = outsideClient(emulator);
        const instance = await client.instances.show(up.outputs["instanceId"]?.value as number);
        expect(instance?.volume_info).toEqual([
          expect.objectContaining({
            volume_id: up.outputs["volumeId"]?.value as number,
            mount_path: "/data",
          }),
        ]);
        const [volume] = await client.volumes.list();
        expect(volume?.instances).toEqual([up.outputs["instanceId"]?.value]);
        expect((await stack.refresh({ onOutput })).summary.resourceChanges).toEqual({ same: 4 });
        expect((await stack.preview({ onOutput })).changeSummary).toEqual({ same: 4 });
      },
    );
  });

  it("an explicit ask on another machine than the volume fails at preview", async () => {
    const client = outsideClient(emulator);
    const { volumeId } = await client.volumes.acceptVolumeAsk(21001, 20);
    await withStack(
      {
        program: oneInstance({ askId: 31002, volume: { volumeId, mountPath: "/data" } }),
        config: emulatorConfig(emulator),
      },
      async ({ stack, output }) => {
        await emulator.clearRequests();
        await expect(stack.preview({ onOutput: (text) => output.push(text) })).rejects.toThrow(
          `volume: V.${volumeId} is on machine 41207, but ask 31002 is on machine 38820`,
        );
        // Reads only: the volume list and a search (a POST that changes nothing).
        const writes = await emulator.writes();
        expect(writes.filter((r) => r.path !== "/api/v0/bundles/")).toEqual([]);
      },
    );
  });
});
