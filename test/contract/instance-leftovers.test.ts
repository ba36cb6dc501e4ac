import { GpuCloudClient, overlayJoinEnv, volumeMountEnv } from "../../provider/client";
import { groupVariable, namePrefixOf } from "../../provider/renting/group-ownership";
import { implementation as sweeperProvider } from "../../provider/resources/instance-sweeper";
import {
  creatingLabelOf,
  markersOf,
  ownerVariable,
  specVariable,
  stackTokenVariable,
} from "../../provider/renting/identity";
import {
  implementation as instanceProvider,
  type InstanceInputs,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import { useEmulator } from "../support/use-emulator";

// What interrupted runs leave behind, and what is never theirs: instances of this stack still
// labelled as being created, against other stacks' (even of the same names), handed-over,
// hand-made and pre-token ones. The providers' methods are called directly, as the
// dynamic-provider process does.
describe("instances left by interrupted runs", () => {
  let client: GpuCloudClient;
  const stackToken = "1b4e28ba-2fa1-41d2-883f-0016d3cca427";
  const otherStackToken = "6fa459ea-ee8a-4ca4-894e-db77e160355e";
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
    stackToken,
  };

  // One emulator for the file; each test is a run of its own (a new provider process): its
  // creates list the account afresh.
  const providers = useEmulator({ per: "file", bootPolls: 1 });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  // Instances are destroyed rather than the emulator reset: ids must not repeat, as on the
  // service.
  beforeEach(async () => {
    for (const instance of await client.instances.list())
      await client.instances.destroy(instance.id);
    await emulator.clearFaults();
    await emulator.clearRequests();
  });

  /** Rents as an interrupted create of `of` would have: its markers and label, never handed over. */
  const rentLeftover = (of: InstanceInputs, image = of.image) =>
    client.instances.create(31001, {
      image,
      disk: of.diskGb,
      runtype: of.runtype,
      env: markersOf({ ...of, image }, "lost-token"),
      ...(of.stackToken === undefined ? {} : { label: creatingLabelOf(of.stackToken) }),
    });
  /** Rents as a finished create of `of` did: handed over, with the program's label (or none). */
  const rentHandedOver = async (of: InstanceInputs, label = "") => {
    const id = await rentLeftover(of);
    await client.instances.relabel(id, label);
    return id;
  };
  /** Rents as a release before stack tokens did: the owner, no token, the program's label. */
  const rentPreToken = (of: InstanceInputs) =>
    client.instances.create(31001, {
      image: of.image,
      disk: of.diskGb,
      env: markersOf({ ...of, stackToken: undefined }, "lost-token"),
    });
  const creates = async () =>
    (await emulator.requests()).filter((entry) => entry.path.startsWith("/api/v0/asks/"));
  const instanceIds = async () => (await emulator.state()).instances.map((i) => i.id);
  /** Lists looking for leftovers (status reads list the account too, by id). */
  const leftoverLists = async () =>
    (await emulator.requests()).filter(
      (entry) =>
        entry.path.startsWith("/api/v1/instances/") &&
        decodeURIComponent(entry.path).includes('"label"'),
    );

  it("adopts a booting leftover of the same resource instead of renting another", async () => {
    const leftover = await rentLeftover(inputs);
    await emulator.clearRequests();

    const created = await instanceProvider.create(providers.run, { ...inputs, label: "trainer" });

    expect(created.id).toBe(String(leftover));
    expect(created.outs).toMatchObject({ instanceId: leftover, actualStatus: "running" });
    expect(await creates()).toEqual([]);
    expect(await instanceIds()).toEqual([leftover]);
    // Handed over: the program's label replaces the being-created one.
    expect((await emulator.state()).instances[0]?.label).toBe("trainer");
    // One list of the account, filtered by the being-created label, is all looking costs.
    const lists = await leftoverLists();
    expect(lists).toHaveLength(1);
    expect(decodeURIComponent(lists[0]?.path ?? "")).toContain(creatingLabelOf(stackToken));
  });

  it("lists the account once per run, however many instances the run creates", async () => {
    const leftover = await rentLeftover({ ...inputs, owner: "proj/dev/third" });
    await emulator.clearRequests();

    const created = await Promise.all(
      ["first", "second", "third"].map((name) =>
        instanceProvider.create(providers.run, { ...inputs, owner: `proj/dev/${name}` }),
      ),
    );
    const fourth = await instanceProvider.create(providers.run, {
      ...inputs,
      owner: "proj/dev/fourth",
    });

    const lists = await leftoverLists();
    expect(lists).toHaveLength(1);
    // The list still finds what an earlier run left: the third adopted its leftover.
    expect(created.map((instance) => instance.id)[2]).toBe(String(leftover));
    expect(await creates()).toHaveLength(3);
    expect(await instanceIds()).toEqual(
      expect.arrayContaining([...created.map((c) => Number(c.id)), Number(fourth.id)]),
    );
  });

  it("decides on a leftover as it is when its resource is created, not as the run's list showed it", async () => {
    const leftover = await rentLeftover(inputs);
    const relabelled = await rentLeftover({ ...inputs, owner: "proj/dev/second" });
    // Another resource's create takes the run's list while both are still there.
    await instanceProvider.create(providers.run, { ...inputs, owner: "proj/dev/first" });
    // Gone since (destroyed by hand), or relabelled by a person: neither is adopted.
    await client.instances.destroy(leftover);
    await client.instances.relabel(relabelled, "keep me");

    const created = await instanceProvider.create(providers.run, { ...inputs, maxAttempts: 1 });
    const second = await instanceProvider.create(providers.run, {
      ...inputs,
      owner: "proj/dev/second",
      maxAttempts: 1,
    });

    expect(created.id).not.toBe(String(leftover));
    expect(created.outs?.attempts).toHaveLength(1);
    expect(second.id).not.toBe(String(relabelled));
    expect(await instanceIds()).toContain(relabelled);
  });

  it("destroys a leftover of another spec or at a dead end, and rents anew", async () => {
    await emulator.queueBoots([{ status: "exited", afterPolls: 0 }]);
    const deadEnd = await rentLeftover(inputs);
    await client.instances.show(deadEnd);
    const otherImage = await rentLeftover(inputs, "older-image");

    const created = await instanceProvider.create(providers.run, inputs);

    const ids = await instanceIds();
    expect(ids).toEqual([Number(created.id)]);
    expect(ids).not.toContain(deadEnd);
    expect(ids).not.toContain(otherImage);
  });

  it("never adopts or destroys another stack's (even of the same names), a handed-over, a pre-token, a hand-made or a recorded instance", async () => {
    const others = [
      // A namesake stack in another backend: same project, stack and resource names.
      await rentLeftover({ ...inputs, stackToken: otherStackToken }),
      await rentHandedOver({ ...inputs, stackToken: otherStackToken }),
      // This resource's, handed over and then retained or dropped from the state.
      await rentHandedOver(inputs),
      await rentHandedOver(inputs, "trainer"),
      // Rented by a release before stack tokens: its owner alone proves nothing.
      await rentPreToken(inputs),
      // Another resource of this stack, and an instance rented by hand.
      await rentLeftover({ ...inputs, owner: "proj/dev/other" }),
      await client.instances.create(31001, { image: "img", disk: 10 }),
    ];
    // The instance a replacement replaces: recorded, and seen by the diff before the create.
    const replaced = await rentLeftover(inputs);
    const recorded = {
      ...inputs,
      instanceId: replaced,
      attempts: [],
    } as unknown as InstanceOutputs;
    await instanceProvider.diff?.(providers.run, String(replaced), recorded, {
      ...inputs,
      image: "new-image",
    });
    await emulator.clearRequests();

    const created = await instanceProvider.create(providers.run, { ...inputs, image: "new-image" });

    expect(await instanceIds()).toEqual([...others, replaced, Number(created.id)]);
    const destroys = (await emulator.requests()).filter((entry) => entry.method === "DELETE");
    expect(destroys).toEqual([]);
  });

  it("the sweeper removes the overlay and volume an interrupted NodeGroup create made around its nodes, never a program's own Overlay and NetworkVolume", async () => {
    const groupOwner = "proj/dev/trainers";
    const prefix = namePrefixOf({ owner: groupOwner, stackToken }) ?? "";
    // The program's own overlay and network volume, joined by an Instance whose create was
    // interrupted: kept, as the program declares them.
    const lan = await client.overlays.create(7, "lan");
    const shared = await client.volumes.createNetworkVolume(25001, 10, { name: "lan" });
    const loneLeftover = await client.instances.create(31003, {
      image: inputs.image,
      disk: inputs.diskGb,
      label: creatingLabelOf(stackToken),
      env: {
        ...markersOf(inputs, "lost-token"),
        ...overlayJoinEnv("lan"),
        ...volumeMountEnv(shared.volumeId, "/data"),
      },
    });
    const kept = { overlays: [lan.name], volumes: [shared.volumeId] };
    await sweeperProvider.delete?.(providers.run, "proj/dev/", {
      ownerPrefix: "proj/dev/",
      stackToken,
    });
    expect(await instanceIds()).not.toContain(loneLeftover);
    const overlayNames = async () => (await client.overlays.list()).map((o) => o.name);
    const networkVolumes = async () =>
      (await client.volumes.list()).filter((v) => v.cluster_id === 7).map((v) => v.id);
    expect({ overlays: await overlayNames(), volumes: await networkVolumes() }).toEqual(kept);

    // A group's interrupted create: its overlay and volume (named alike) around a node of it.
    const groupNet = await client.overlays.create(7, `${prefix}c0ffee`);
    const groupVolume = await client.volumes.createNetworkVolume(25001, 10, {
      name: groupNet.name,
    });
    const node = await client.instances.create(31003, {
      image: inputs.image,
      disk: inputs.diskGb,
      label: creatingLabelOf(stackToken),
      env: {
        ...markersOf({ ...inputs, owner: `${groupOwner}/node-0` }, "lost-token"),
        [groupVariable]: groupOwner,
        ...overlayJoinEnv(groupNet.name),
        ...volumeMountEnv(groupVolume.volumeId, "/data"),
      },
    });
    await sweeperProvider.delete?.(providers.run, "proj/dev/", {
      ownerPrefix: "proj/dev/",
      stackToken,
    });
    expect(await instanceIds()).not.toContain(node);
    expect({ overlays: await overlayNames(), volumes: await networkVolumes() }).toEqual(kept);
    await client.overlays.delete(lan.overlay_id);
    await client.volumes.delete(shared.volumeId);
    // Two sweeps, each confirming its destroy at the sweeper's 3 s status interval.
  }, 30_000);

  it("a being-created label alone proves nothing: the stack's token must be in the environment too", async () => {
    const label = creatingLabelOf(stackToken);
    const impostors = [
      await client.instances.create(31001, {
        image: inputs.image,
        disk: inputs.diskGb,
        label,
        env: markersOf({ ...inputs, stackToken: otherStackToken }, "lost-token"),
      }),
      await client.instances.create(31001, {
        image: inputs.image,
        disk: inputs.diskGb,
        label,
        env: markersOf({ ...inputs, stackToken: undefined }, "lost-token"),
      }),
    ];

    const created = await instanceProvider.create(providers.run, inputs);
    await sweeperProvider.delete?.(providers.run, "proj/dev/", {
      ownerPrefix: "proj/dev/",
      stackToken,
    });

    expect(await instanceIds()).toEqual([...impostors, Number(created.id)]);
  });

  it("an instance of the same resource and spec that was handed over is never adopted", async () => {
    // Retained, or dropped with `pulumi state delete`, and then declared again.
    const retained = await rentHandedOver(inputs, "trainer");

    const created = await instanceProvider.create(providers.run, { ...inputs, label: "trainer" });

    expect(created.id).not.toBe(String(retained));
    expect(await instanceIds()).toEqual([retained, Number(created.id)]);
  });

  it("an instance recorded before its hand-over says so in its label, and the next update hands it over", async () => {
    // The relabel and then the destroy fail: the instance is kept in the stack (init error).
    await emulator.setFaults({
      serverErrors: {
        status: 500,
        methods: ["PUT", "DELETE"],
        paths: ["/api/v0/instances/"],
        rate: 1,
      },
    });
    const failure: unknown = await instanceProvider
      .create(providers.run, { ...inputs, label: "trainer" })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    await emulator.clearFaults();
    const kept = failure as { id?: string; properties?: InstanceOutputs };
    expect(kept.properties?.label).toBe(creatingLabelOf(stackToken));
    const [instance] = (await emulator.state()).instances;
    expect(instance?.label).toBe(creatingLabelOf(stackToken));

    // Recorded: this process's sweeps leave it alone; the next up relabels it.
    const olds = kept.properties as InstanceOutputs;
    const news = { ...inputs, label: "trainer" };
    expect(
      instanceProvider.diff &&
        (await instanceProvider.diff(providers.run, kept.id ?? "", olds, news)),
    ).toMatchObject({
      changes: true,
      replaces: [],
    });
    await instanceProvider.update?.(providers.run, kept.id ?? "", olds, news);
    expect((await emulator.state()).instances.map((i) => [i.id, i.label])).toEqual([
      [Number(kept.id), "trainer"],
    ]);
  });

  it("refresh sees no drift in an instance relabelled to nothing", async () => {
    const created = await instanceProvider.create(providers.run, inputs);
    expect((await emulator.state()).instances[0]?.label).toBe("");
    const read = await instanceProvider.read?.(providers.run, created.id, created.outs);
    expect(read?.inputs).toBeUndefined();
    expect(read?.props?.label).toBeUndefined();
  });

  it("the stack's sweeper destroys its leftovers and nothing else", async () => {
    const mine = [
      await rentLeftover(inputs),
      await rentLeftover({ ...inputs, owner: "proj/dev/second" }),
    ];
    const untouched = [
      await rentLeftover({ ...inputs, stackToken: otherStackToken }),
      await rentHandedOver({ ...inputs, stackToken: otherStackToken }),
      await rentHandedOver(inputs),
      await rentPreToken(inputs),
      await client.instances.create(31001, { image: "img", disk: 10 }),
    ];

    await sweeperProvider.delete?.(providers.run, "proj/dev/", {
      ownerPrefix: "proj/dev/",
      stackToken,
    });

    const ids = await instanceIds();
    expect(ids).toEqual(untouched);
    expect(ids).not.toEqual(expect.arrayContaining(mine));
  });

  it("a sweep never takes what the run's own creates rented, though it carries the stack's being-created label", async () => {
    await emulator.queueBoots([{ status: "running", afterPolls: 20 }]);
    const creating = instanceProvider.create(providers.run, { ...inputs, label: "trainer" });
    let booting: number | undefined;
    const deadline = Date.now() + 30_000;
    while (booting === undefined && Date.now() < deadline) {
      booting = (await emulator.state()).instances[0]?.id;
    }

    await sweeperProvider.delete?.(providers.run, "proj/dev/", {
      ownerPrefix: "proj/dev/",
      stackToken,
    });

    const created = await creating;
    expect(Number(created.id)).toBe(booting);
    expect(await instanceIds()).toEqual([booting]);
  });

  it("a sweeper written before stack tokens destroys nothing", async () => {
    const ids = [await rentPreToken(inputs), await rentLeftover(inputs)];
    await emulator.clearRequests();

    await sweeperProvider.delete?.(providers.run, "proj/dev/", { ownerPrefix: "proj/dev/" });

    expect(await instanceIds()).toEqual(ids);
    expect(await emulator.requests()).toEqual([]);
  });

  it("the sweeper makes the stack's token once: at create, or at the first update of an older sweeper", async () => {
    const news = { ownerPrefix: "proj/dev/" };
    const created = await sweeperProvider.create(providers.run, news);
    const token = created.outs?.stackToken;
    expect(token).toMatch(/^[\w-]{22}$/);
    const again = await sweeperProvider.create(providers.run, news);
    expect(again.outs?.stackToken).not.toBe(token);

    const kept = { ownerPrefix: "proj/dev/", stackToken: token };
    expect(await sweeperProvider.diff?.(providers.run, "proj/dev/", kept, news)).toMatchObject({
      changes: false,
    });
    expect(
      (await sweeperProvider.update?.(providers.run, "proj/dev/", kept, news))?.outs?.stackToken,
    ).toBe(token);

    // A stack written before tokens gets one in place, without a replacement.
    const older = { ownerPrefix: "proj/dev/" };
    expect(await sweeperProvider.diff?.(providers.run, "proj/dev/", older, news)).toEqual({
      changes: true,
      replaces: [],
    });
    const updated = await sweeperProvider.update?.(providers.run, "proj/dev/", older, news);
    expect(updated?.outs?.stackToken).toMatch(/^[\w-]{22}$/);
  });

  it("marks every rented instance with its owner, stack and spec, and hands it over with one relabel", async () => {
    await emulator.queueBoots([{ status: "running", afterPolls: 5 }]);
    const creating = instanceProvider.create(providers.run, {
      ...inputs,
      owner: "proj/dev/marked",
      label: "marked",
    });
    // While it boots, it is labelled as being created by this stack.
    let labelWhileBooting: string | null | undefined;
    const deadline = Date.now() + 30_000;
    while (labelWhileBooting === undefined && Date.now() < deadline) {
      labelWhileBooting = (await emulator.state()).instances[0]?.label;
    }
    expect(labelWhileBooting).toBe(creatingLabelOf(stackToken));
    const created = await creating;
    const [instance] = (await emulator.state()).instances;
    expect(instance).toMatchObject({
      id: Number(created.id),
      label: "marked",
      env: expect.objectContaining({
        [ownerVariable]: "proj/dev/marked",
        [stackTokenVariable]: stackToken,
        [specVariable]: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown,
      }) as unknown,
    });
    const writes = (await emulator.requests()).filter((entry) => entry.method !== "GET");
    // The rent (labelled as being created) and one relabel: the only extra request.
    expect(writes.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      "PUT /api/v0/asks/31001/",
      `PUT /api/v0/instances/${created.id}/`,
    ]);
  });

  it("an instance whose relabel is refused is destroyed, not recorded", async () => {
    await emulator.setFaults({
      serverErrors: { status: 500, methods: ["PUT"], paths: ["/api/v0/instances/"], next: 1 },
    });

    await expect(instanceProvider.create(providers.run, inputs)).rejects.toThrow(
      /setting its label failed .* destroyed; nothing is left running/,
    );

    expect(await instanceIds()).toEqual([]);
  });
});
