import { GpuCloudClient } from "../../provider/client";
import { provider as sweeperProvider } from "../../provider/resources/instance-sweeper";
import { forgetRunListing } from "../../provider/resources/instance/adoption";
import { markersOf, ownerVariable, specVariable } from "../../provider/resources/instance/identity";
import {
  provider as instanceProvider,
  type InstanceInputs,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import type { TestEmulator } from "../support/emulator";
import { emulatorForProviders } from "../support/provider-config";

// What interrupted runs leave behind: instances carrying a resource's owner that no state
// records. The providers' methods are called directly, as the dynamic-provider process does.
describe("instances left by interrupted runs", () => {
  let emulator: TestEmulator;
  let client: GpuCloudClient;
  const inputs: InstanceInputs = {
    askId: 31001,
    image: "img",
    diskGb: 10,
    runtype: "ssh",
    state: "running",
    createTimeoutSeconds: 60,
    maxAttempts: 2,
    pollIntervalSeconds: 0.05,
    owner: "proj/dev/trainer",
  };

  // One emulator for the file: the provider process keeps its first configuration.
  emulatorForProviders(
    (started) => {
      emulator = started;
      client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
    },
    { bootPolls: 1 },
  );

  // Instances are destroyed rather than the emulator reset: ids must not repeat, as on the
  // service, since the provider process remembers the ids it recorded.
  // Each test plays a new run (a new provider process): its creates list the account afresh.
  beforeEach(async () => {
    for (const instance of await client.instances.list())
      await client.instances.destroy(instance.id);
    await emulator.clearRequests();
    forgetRunListing();
  });

  /** Rents as an interrupted run of `owner` would have: with its markers, never recorded. */
  const rentLeftover = (of: InstanceInputs, image = of.image) =>
    client.instances.create(31001, {
      image,
      disk: of.diskGb,
      runtype: of.runtype,
      env: markersOf({ ...of, image }, "lost-token"),
    });
  const creates = async () =>
    (await emulator.requests()).filter((entry) => entry.path.startsWith("/api/v0/asks/"));

  it("adopts a booting instance of the same resource instead of renting another", async () => {
    const leftover = await rentLeftover(inputs);
    await emulator.clearRequests();

    const created = await instanceProvider.create(inputs);

    expect(created.id).toBe(String(leftover));
    expect(created.outs).toMatchObject({ instanceId: leftover, actualStatus: "running" });
    expect(await creates()).toEqual([]);
    expect((await emulator.state()).instances.map((instance) => instance.id)).toEqual([leftover]);
    // One list of the account is all that looking for leftovers costs.
    const lists = (await emulator.requests()).filter((entry) =>
      entry.path.startsWith("/api/v1/instances/"),
    );
    expect(lists).toHaveLength(1);
  });

  it("lists the account once per run, however many instances the run creates", async () => {
    const leftover = await rentLeftover({ ...inputs, owner: "proj/dev/third" });
    await emulator.clearRequests();

    const created = await Promise.all(
      ["first", "second", "third"].map((name) =>
        instanceProvider.create({ ...inputs, owner: `proj/dev/${name}` }),
      ),
    );
    const fourth = await instanceProvider.create({ ...inputs, owner: "proj/dev/fourth" });

    const lists = (await emulator.requests()).filter((entry) =>
      entry.path.startsWith("/api/v1/instances/"),
    );
    expect(lists).toHaveLength(1);
    // The list still finds what an earlier run left: the third adopted its leftover.
    expect(created.map((instance) => instance.id)[2]).toBe(String(leftover));
    expect(await creates()).toHaveLength(3);
    expect((await emulator.state()).instances.map((instance) => instance.id)).toEqual(
      expect.arrayContaining([...created.map((c) => Number(c.id)), Number(fourth.id)]),
    );
  });

  it("decides on a leftover as it is when its resource is created, not as the run's list showed it", async () => {
    const leftover = await rentLeftover(inputs);
    // Another resource's create takes the run's list while the leftover is still there.
    await instanceProvider.create({ ...inputs, owner: "proj/dev/first" });
    // Gone since (destroyed by hand): nothing to adopt, and no attempt spent on it.
    await client.instances.destroy(leftover);

    const created = await instanceProvider.create({ ...inputs, maxAttempts: 1 });

    expect(created.id).not.toBe(String(leftover));
    expect(created.outs?.attempts).toHaveLength(1);
  });

  it("destroys a leftover of another spec or at a dead end, and rents anew", async () => {
    await emulator.queueBoots([{ status: "exited", afterPolls: 0 }]);
    const deadEnd = await rentLeftover(inputs);
    await client.instances.show(deadEnd);
    const otherImage = await rentLeftover(inputs, "older-image");

    const created = await instanceProvider.create(inputs);

    const ids = (await emulator.state()).instances.map((instance) => instance.id);
    expect(ids).toEqual([Number(created.id)]);
    expect(ids).not.toContain(deadEnd);
    expect(ids).not.toContain(otherImage);
  });

  it("never touches another resource's, stack's or project's instance, nor a recorded one", async () => {
    const others = [
      await rentLeftover({ ...inputs, owner: "proj/dev/other" }),
      await rentLeftover({ ...inputs, owner: "proj/prod/trainer" }),
      await rentLeftover({ ...inputs, owner: "other/dev/trainer" }),
      await client.instances.create(31001, { image: "img", disk: 10 }),
    ];
    // The instance a replacement replaces: recorded, and seen by the diff before the create.
    const replaced = await rentLeftover(inputs);
    const recorded = {
      ...inputs,
      instanceId: replaced,
      attempts: [],
    } as unknown as InstanceOutputs;
    await instanceProvider.diff?.(String(replaced), recorded, { ...inputs, image: "new-image" });

    const created = await instanceProvider.create({ ...inputs, image: "new-image" });

    const ids = (await emulator.state()).instances.map((instance) => instance.id);
    expect(ids).toEqual([...others, replaced, Number(created.id)]);
  });

  it("the stack's sweeper destroys its unrecorded instances and nothing else", async () => {
    const mine = [
      await rentLeftover(inputs),
      await rentLeftover({ ...inputs, owner: "proj/dev/second" }),
    ];
    const untouched = [
      await rentLeftover({ ...inputs, owner: "proj/dev2/trainer" }),
      await client.instances.create(31001, { image: "img", disk: 10 }),
    ];

    await sweeperProvider.delete?.("proj/dev/", { ownerPrefix: "proj/dev/" });

    const ids = (await emulator.state()).instances.map((instance) => instance.id);
    expect(ids).toEqual(untouched);
    expect(ids).not.toEqual(expect.arrayContaining(mine));
  });

  it("marks every rented instance with its owner and spec", async () => {
    const created = await instanceProvider.create({ ...inputs, owner: "proj/dev/marked" });
    const [instance] = (await emulator.state()).instances;
    expect(instance).toMatchObject({
      id: Number(created.id),
      env: expect.objectContaining({
        [ownerVariable]: "proj/dev/marked",
        [specVariable]: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown,
      }) as unknown,
    });
  });
});
