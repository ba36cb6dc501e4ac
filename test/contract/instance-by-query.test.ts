import { implementation as instanceProvider } from "../../provider/resources/instance";
import { instanceInputsSchema } from "../../provider/resources/instance/inputs";
import { newStackToken } from "../../provider/renting/identity";
import { outsideClient, singleGpuQuery } from "../support/programs";
import { useEmulator } from "../support/use-emulator";

// What an Instance by offerQuery does on its own when the market moves under it, the provider's
// methods called directly as the provider process calls them: an offer taken between the search
// and the rent, a search that ignores a filter, a price cap below every match, a malformed query,
// an explicit ask on another machine than the volume. What the engine adds (instances of one
// query created side by side, a volume and an instance landing on one machine) is
// test/e2e/market.test.ts.

const QUERY = singleGpuQuery;

const creates = <R extends { method: string; path: string }>(requests: R[]) =>
  requests.filter((r) => r.method === "PUT" && r.path.startsWith("/api/v0/asks/"));

describe("an Instance by offerQuery when the market moves", () => {
  const providers = useEmulator({ per: "test", bootPolls: 0, market: { seed: 11 } });
  const { emulator } = providers;

  /** The inputs as the program gives them, before check. */
  const given = (fields: Record<string, unknown>) => ({
    image: "pytorch/pytorch:latest",
    diskGb: 20,
    pollIntervalSeconds: 0.05,
    owner: "p/s/gpu",
    stackToken: newStackToken(),
    ...fields,
  });
  const inputs = (fields: Record<string, unknown>) => instanceInputsSchema.parse(given(fields));
  /** Check's failures, as the engine calls it at preview with the program's inputs. */
  const failuresOf = async (fields: Record<string, unknown>) =>
    (
      (await instanceProvider.check(providers.run, {} as never, given(fields) as never))
        ?.failures ?? []
    ).map((failure) => failure.reason);

  it("an offer taken between search and rent moves to the next one: one create per offer tried", async () => {
    const [taken, next] = await outsideClient(emulator).searchOffers(QUERY);
    expect(next).toBeDefined();
    // The create's search loses its first answer to someone else.
    await emulator.setFaults({ offerTakenAfterSearch: { next: 1 } });
    await emulator.clearRequests();

    const created = await instanceProvider.create(providers.run, inputs({ offerQuery: QUERY }));

    expect(created.outs?.offer?.["askId"]).toBe(next?.askId);
    const tried = creates(await emulator.requests());
    expect(tried.map((r) => r.path)).toEqual([
      `/api/v0/asks/${taken?.askId}/`,
      `/api/v0/asks/${next?.askId}/`,
    ]);
    expect(tried.map((r) => r.status)).toEqual([404, 200]);
  });

  it("when the search ignores a filter, the offer that does not match is never rented", async () => {
    const query = { gpuName: "RTX 4090", reliability: { gte: 0.99 } };
    const [cheapestAny] = await outsideClient(emulator).searchOffers({ gpuName: "RTX 4090" });
    // The market must make the point: the cheapest RTX 4090 is below the reliability asked for.
    expect(cheapestAny?.reliability).toBeLessThan(0.99);
    await emulator.setFaults({ searchIgnoresFilter: { field: "reliability" } });
    await emulator.clearRequests();

    const created = await instanceProvider.create(providers.run, inputs({ offerQuery: query }));

    const offer = created.outs?.offer;
    if (!offer) throw new Error("no offer recorded");
    expect(offer["reliability"]).toBeGreaterThanOrEqual(0.99);
    const tried = creates(await emulator.requests());
    expect(tried.map((r) => r.path)).toEqual([`/api/v0/asks/${offer.askId}/`]);
    expect(providers.progress.join("\n")).toContain(`skipping ask ${cheapestAny?.askId}`);
  });

  it("maxDollarsPerHour below every match fails at create naming the cheapest price, renting nothing", async () => {
    const [cheapest] = await outsideClient(emulator).searchOffers(QUERY);
    await emulator.clearRequests();

    await expect(
      instanceProvider.create(
        providers.run,
        inputs({ offerQuery: QUERY, maxDollarsPerHour: 0.01 }),
      ),
    ).rejects.toThrow(
      `the cheapest match is $${cheapest?.dollarsPerHour}/h (ask ${cheapest?.askId}`,
    );
    expect(creates(await emulator.requests())).toEqual([]);
    expect((await emulator.state()).instances).toEqual([]);
  });

  it("a malformed query fails check naming the field, and sends nothing", async () => {
    await emulator.clearRequests();

    expect(
      await failuresOf({ offerQuery: { gpuName: "RTX 4090", numGpus: { gt: "two" } } }),
    ).toEqual([expect.stringMatching(/^offerQuery: numGpus\.gt: got "two"; expected a number/)]);
    // No write, not even a search (a POST).
    expect(await emulator.writes()).toEqual([]);
    expect((await emulator.requests()).filter((r) => r.path === "/api/v0/bundles/")).toEqual([]);
  });

  it("an explicit ask on another machine than the volume fails check", async () => {
    const { volumeId } = await outsideClient(emulator).volumes.acceptVolumeAsk(21001, 20);
    await emulator.clearRequests();

    expect(
      await failuresOf({ askId: 31002, volume: { volumeId, mountPath: "/data" } }),
    ).toContainEqual(
      expect.stringContaining(
        `volume: V.${volumeId} is on machine 41207, but ask 31002 is on machine 38820`,
      ),
    );
    // Reads only: the volume list and a search (a POST that changes nothing).
    const writes = await emulator.writes();
    expect(writes.filter((r) => r.path !== "/api/v0/bundles/")).toEqual([]);
  });
});
