import {
  implementation as instanceProvider,
  type InstanceInputs,
} from "../../provider/resources/instance";
import {
  implementation as volumeProvider,
  type VolumeInputs,
} from "../../provider/resources/volume";
import { useEmulator } from "../support/use-emulator";

// A volume and the instance that links it, on the generated market (seed 1): renting is
// exclusive there, as on the service. The cheapest volume offer matching `reliability >= 0.95`
// (ask 22021) is on machine 70021, whose instance offers are 4x RTX A6000 at $1.7089/h (ask
// 40041) and 8x at $2.8939/h (ask 40040); it has no RTX 4090.
describe("a volume and the instance that links it", () => {
  const h = useEmulator({ per: "test", bootPolls: 0, market: { seed: 1 } });
  const volumeQuery = { reliability: { gte: 0.95 } };
  const instanceQuery = { gpuRamGb: { gte: 8 }, reliability: { gte: 0.95 } };

  const instanceInputs = (
    volumeId: number,
    more: Partial<InstanceInputs> = {},
  ): InstanceInputs => ({
    offerQuery: instanceQuery,
    image: "img",
    diskGb: 40,
    runtype: "ssh",
    state: "running",
    createTimeoutSeconds: 60,
    maxAttempts: 3,
    pollIntervalSeconds: 0.05,
    owner: "proj/dev/trainer",
    volume: { volumeId, mountPath: "/data" },
    ...more,
  });
  const volume = async (inputs: VolumeInputs) => {
    const created = await volumeProvider.create(h.run, inputs);
    return { volumeId: created.outs?.volumeId ?? 0, machineId: created.outs?.machineId ?? 0 };
  };
  const instanceFailures = async (inputs: InstanceInputs) =>
    ((await instanceProvider.check(h.run, {} as never, inputs))?.failures ?? []).map(
      (failure) => failure.reason,
    );
  const volumeFailures = async (inputs: Record<string, unknown>) =>
    ((await volumeProvider.check(h.run, {} as never, inputs as VolumeInputs))?.failures ?? []).map(
      (failure) => failure.reason,
    );
  const errorOf = async (promise: Promise<unknown>): Promise<string> =>
    promise.then(
      () => "succeeded",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );

  it("a create that finds no offer on the volume's machine names the volume, the machine and the cap", async () => {
    const data = await volume({ volumeOfferQuery: volumeQuery, sizeGb: 50 });
    expect(data.machineId).toBe(70021);
    const first = await instanceProvider.create(h.run, instanceInputs(data.volumeId));
    expect(first.outs?.offer?.["askId"]).toBe(40041);

    // The first instance holds the machine's cheap ask: a second one (a replacement created
    // first) finds only the 8-GPU offer, above the cap.
    const capped = instanceInputs(data.volumeId, { maxDollarsPerHour: 2, owner: "proj/dev/b" });
    const message = await errorOf(instanceProvider.create(h.run, capped));

    expect(message).toContain(
      `no offer matching offerQuery on machine 70021 (where volume V.${data.volumeId} lives) ` +
        "costs at most maxDollarsPerHour $2/h; the cheapest match there is $2.8939/h " +
        "(ask 40040, 8x RTX A6000); an ask an instance holds on that machine is offered again " +
        "only once that instance is destroyed",
    );
    expect((await h.emulator.state()).instances).toHaveLength(1);
  });

  it("a create whose query the volume's machine cannot match names the volume and the cap", async () => {
    const data = await volume({ volumeOfferQuery: volumeQuery, sizeGb: 50 });
    const inputs = instanceInputs(data.volumeId, {
      offerQuery: { gpuName: "RTX 4090" },
      maxDollarsPerHour: 1,
    });

    const message = await errorOf(instanceProvider.create(h.run, inputs));

    expect(message).toContain(
      `no offer matches offerQuery on machine 70021 (where volume V.${data.volumeId} lives) at ` +
        "any price (maxDollarsPerHour is $1/h); give the Volume forInstance (this instance's " +
        "offerQuery and cap) to place it where the instance can be rented",
    );
  });

  it("preview fails when the volume's machine has no matching offer, or none under the cap", async () => {
    const data = await volume({ volumeOfferQuery: volumeQuery, sizeGb: 50 });

    expect(
      await instanceFailures(
        instanceInputs(data.volumeId, { offerQuery: { gpuName: "RTX 4090" } }),
      ),
    ).toEqual([
      `offerQuery: no offer on machine 70021 (where volume V.${data.volumeId} lives) ` +
        "matches offerQuery, rented or not: an instance linking a volume is rented on its " +
        "machine; change offerQuery, or place the volume where the instance fits (Volume " +
        "forInstance)",
    ]);
    expect(await instanceFailures(instanceInputs(data.volumeId, { maxDollarsPerHour: 1 }))).toEqual(
      [
        `maxDollarsPerHour: no offer on machine 70021 (where volume V.${data.volumeId} lives) ` +
          "matching offerQuery costs at most maxDollarsPerHour $1/h; the cheapest there is " +
          "$1.7089/h (ask 40041, 4x RTX A6000)",
      ],
    );
    // An offer an instance holds counts: the one a replacement deletes first holds it.
    await instanceProvider.create(h.run, instanceInputs(data.volumeId));
    expect(await instanceFailures(instanceInputs(data.volumeId, { maxDollarsPerHour: 2 }))).toEqual(
      [],
    );
  });

  it("a replacement deletes first, says so at preview, and takes the same offer again", async () => {
    const data = await volume({ volumeOfferQuery: volumeQuery, sizeGb: 50 });
    const inputs = instanceInputs(data.volumeId, { maxDollarsPerHour: 2 });
    const first = await instanceProvider.create(h.run, inputs);
    const outs = first.outs;
    if (outs === undefined) throw new Error("the create recorded no outputs");
    const larger = { ...inputs, diskGb: 60 };

    expect(await instanceFailures(larger)).toEqual([]);
    const diff = await instanceProvider.diff(h.run, first.id, outs, larger);
    expect(diff).toMatchObject({ replaces: ["diskGb"], deleteBeforeReplace: true });
    expect(h.progress).toContain(
      `trainer: instance ${outs.instanceId} is destroyed before its replacement is rented: the ` +
        `replacement must be on the machine of volume V.${data.volumeId} (machine 70021), where ` +
        "it holds ask 40041 ($1.7089/h), and an ask is offered again only once its instance is " +
        "destroyed; the instance is down until the replacement runs",
    );
    // The engine's order for deleteBeforeReplace: delete, then create.
    await instanceProvider.delete(h.run, first.id, outs);
    const replacement = await instanceProvider.create(h.run, larger);
    expect(replacement.outs?.offer).toMatchObject({ askId: 40041, dollarsPerHour: 1.7089 });
  });

  it("a new query or cap the volume's machine cannot meet fails at preview, also for a running instance", async () => {
    const data = await volume({ volumeOfferQuery: volumeQuery, sizeGb: 50 });
    const inputs = instanceInputs(data.volumeId);
    await instanceProvider.create(h.run, inputs);

    const check = async (news: InstanceInputs) =>
      ((await instanceProvider.check(h.run, inputs, news))?.failures ?? []).map((f) => f.reason);
    expect(await check({ ...inputs, offerQuery: { gpuName: "RTX 4090" } })).toEqual([
      `offerQuery: no offer on machine 70021 (where volume V.${data.volumeId} lives) matches ` +
        "offerQuery, rented or not: an instance linking a volume is rented on its machine; " +
        "change offerQuery, or place the volume where the instance fits (Volume forInstance)",
    ]);
    expect(await check({ ...inputs, maxDollarsPerHour: 1 })).toEqual([
      expect.stringContaining("maxDollarsPerHour: no offer on machine 70021"),
    ]);
    // The offer the instance holds matches the new query and cap: nothing to say.
    expect(await check({ ...inputs, offerQuery: { gpuName: "RTX A6000" } })).toEqual([]);
  });

  it("a volume by query with forInstance lands where the instance's query fits under its cap", async () => {
    const forInstance = { offerQuery: { gpuName: "RTX 4090" }, maxDollarsPerHour: 1 };
    const data = await volume({ volumeOfferQuery: volumeQuery, sizeGb: 50, forInstance });
    expect(data.machineId).not.toBe(70021);

    const rented = await instanceProvider.create(h.run, instanceInputs(data.volumeId, forInstance));

    // The cheapest RTX 4090 among the machines with a matching volume offer: no other is cheaper.
    const offer: Record<string, unknown> = rented.outs?.offer ?? {};
    expect(offer).toMatchObject({ gpuName: "RTX 4090", machineId: data.machineId });
    const volumeMachines = (await h.client.offers.searchVolumes(volumeQuery)).offers.map(
      (found) => found.machineId ?? 0,
    );
    const others = await h.client.searchOffers({
      gpuName: "RTX 4090",
      machineId: { in: volumeMachines },
    });
    for (const other of others) {
      expect(other.dollarsPerHour).toBeGreaterThanOrEqual(Number(offer["dollarsPerHour"]));
    }
  });

  it("forInstance that no volume machine can meet fails at preview and at create", async () => {
    const forInstance = { offerQuery: { gpuName: "RTX 4090" }, maxDollarsPerHour: 0.1 };
    const inputs = { volumeOfferQuery: volumeQuery, sizeGb: 50, forInstance };

    const why =
      "none of the 36 machine(s) of the matching volume offers has an instance offer matching " +
      "forInstance.offerQuery under forInstance.maxDollarsPerHour $0.1/h; the cheapest match " +
      "there is $0.35/h (ask 31001, 1x RTX 4090, machine 41207)";
    expect(await volumeFailures(inputs)).toEqual([`forInstance: ${why}`]);
    expect(await errorOf(volumeProvider.create(h.run, { ...inputs }))).toBe(
      `${why}; nothing was created`,
    );
    expect((await h.emulator.state()).volumes).toEqual([]);
  });

  it("forInstance changes in place, and removed is no longer recorded", async () => {
    const forInstance = { offerQuery: { gpuName: "RTX 4090" } };
    const inputs: VolumeInputs = { askId: 22010, sizeGb: 50, forInstance };
    const created = await volumeProvider.create(h.run, inputs);
    const outs = created.outs;
    if (outs === undefined) throw new Error("the create recorded no outputs");
    const { forInstance: _dropped, ...without } = inputs;

    expect(await volumeProvider.diff(h.run, created.id, outs, without)).toEqual({
      changes: true,
      replaces: [],
    });
    const updated = await volumeProvider.update?.(h.run, created.id, outs, without);
    expect(updated?.outs).not.toHaveProperty("forInstance");
    expect((await h.emulator.state()).volumes).toHaveLength(1);
  });

  it("a volume by ask with forInstance fails at preview when the ask's machine has no such offer", async () => {
    const forInstance = { offerQuery: { gpuName: "RTX 4090" } };

    expect(await volumeFailures({ askId: 22021, sizeGb: 50, forInstance })).toEqual([
      "forInstance: ask 22021 is on machine 70021, which has no instance offer matching " +
        "forInstance.offerQuery",
    ]);
    expect(await volumeFailures({ askId: 22010, sizeGb: 50, forInstance })).toEqual([]);
  });
});
