import {
  environmentOf,
  GpuCloudClient,
  type Instance,
  overlayJoinEnv,
} from "../../provider/client";
import { groupCreateVariable } from "../../provider/renting/group-witness";
import {
  creatingLabelOf,
  ownerVariable,
  stackTokenVariable,
} from "../../provider/renting/identity";
import { implementation as sweeperProvider } from "../../provider/resources/instance-sweeper";
import { settleGroupLeftovers } from "../../provider/resources/node-group/leftovers";
import {
  implementation as groupProvider,
  type NodeGroupInputs,
  type NodeGroupOutputs,
} from "../../provider/resources/node-group";
import { groupVariable, namePrefixOf } from "../../provider/renting/group-ownership";
import { request } from "undici";
import { useEmulator } from "../support/use-emulator";

// NodeGroup's provider methods, called directly as the provider process does, against the
// emulator's generated market: physical clusters 101 (A100 SXM4), 102 (H100 SXM), 103 (RTX
// A6000) and 104 (L40S), of 6 to 11 machines, and network volume offers in each.
describe("NodeGroup", () => {
  let client: GpuCloudClient;
  const stackToken = "nodegroup-contract-token-0001";
  const base = {
    nodeCount: 4,
    offerQuery: { gpuName: "H100 SXM" },
    image: "pytorch/pytorch",
    diskGb: 40,
    createTimeoutSeconds: 120,
    pollIntervalSeconds: 0.05,
    owner: "proj/dev/trainers",
    stackToken,
  } satisfies NodeGroupInputs;

  const providers = useEmulator({ per: "file", bootPolls: 1, market: { seed: 1 } });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  beforeEach(async () => {
    await emulator.clearRequests();
  });

  const checked = async (news: NodeGroupInputs) => {
    return groupProvider.check(providers.run, news, news);
  };
  const create = async (inputs: NodeGroupInputs) => {
    const { inputs: checkedInputs, failures } = await checked(inputs);
    expect(failures).toEqual([]);
    return groupProvider.create(providers.run, checkedInputs as NodeGroupInputs);
  };
  /** Runs `work` with the run's progress lines meanwhile collected in `lines`. */
  const withProgress = async <T>(lines: string[], work: () => Promise<T>): Promise<T> => {
    const from = providers.progress.length;
    try {
      return await work();
    } finally {
      lines.push(...providers.progress.slice(from));
    }
  };
  const shown = async (instanceId: number): Promise<Instance> => {
    const instance = await client.instances.show(instanceId);
    if (instance === undefined) throw new Error(`instance ${instanceId} is not shown`);
    return instance;
  };
  const everything = async () => {
    const state = await emulator.state();
    // A client of its own: a client shares a list read within 2 s, which may predate the change.
    const fresh = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
    return {
      instances: state.instances.map((instance) => instance.id),
      overlays: (await fresh.overlays.list()).map((overlay) => overlay.name),
      networkVolumes: (await fresh.volumes.list())
        .filter((volume) => volume.cluster_id !== null && volume.cluster_id !== undefined)
        .map((volume) => volume.id),
    };
  };

  /** The instance destroys the emulator saw, in order. */
  const instanceDestroys = async () =>
    (await emulator.requests()).flatMap((r) => {
      const id = /^\/api\/v0\/instances\/(\d+)\/?$/.exec(r.path)?.[1];
      return r.method === "DELETE" && id !== undefined ? [{ id: Number(id), seq: r.seq }] : [];
    });
  /** Every other instance's destroys were sent before the first destroy of any witness. */
  const expectWitnessLast = (
    destroys: readonly { id: number; seq: number }[],
    witnesses: readonly number[],
  ) => {
    const ofWitnesses = destroys.filter((destroy) => witnesses.includes(destroy.id));
    expect(ofWitnesses.length).toBeGreaterThan(0);
    const firstOfWitnesses = Math.min(...ofWitnesses.map((destroy) => destroy.seq));
    for (const destroy of destroys.filter((d) => !witnesses.includes(d.id))) {
      expect(destroy.seq).toBeLessThan(firstOfWitnesses);
    }
  };

  it("creates 4 nodes in one cluster on one overlay in one boot, with ranks, MASTER_ADDR and a network volume; delete leaves nothing", async () => {
    // Rank 0 (the first rent) boots for 3 s: every rank is rented before it runs.
    await emulator.queueBoots([{ status: "running", afterSeconds: 3 }]);
    const inputs = { ...base, networkVolume: { sizeGb: 100, mountPath: "/data" } };
    const { id, outs } = await create(inputs);
    const group = outs as NodeGroupOutputs;
    // Each node recorded as the status round that saw it running showed it: no show by id.
    const shows = (await emulator.requests()).filter(
      (r) => r.method === "GET" && /^\/api\/v0\/instances\/\d+\/?(\?|$)/.test(r.path),
    );
    expect(shows).toEqual([]);
    const rented = (await emulator.state()).instances.sort((a, b) => a.id - b.id);
    // Rank 0's rent answered first (the lowest id), the others' after it, before it ran.
    expect(rented[0]?.id).toBe(group.nodes[0]?.instanceId);
    const rentedAtMs = rented.map((node) => Number(node["createdAtMs"]));
    for (const atMs of rentedAtMs) expect(atMs).toBeLessThan((rentedAtMs[0] ?? 0) + 3000);
    // Every node's MASTER_ADDR is the subnet's first host, which rank 0 holds.
    expect(group.masterAddr).toBe(`${group.subnet?.replace(/\.0\/24$/, "") ?? ""}.1`);
    expect(group.clusterId).toBe(102);
    expect(id).toBe(group.overlayName);
    expect(group.nodes.map((node) => node.rank)).toEqual([0, 1, 2, 3]);
    const addresses = group.nodes.map((node) => node.localIp);
    expect(new Set(addresses).size).toBe(4);
    for (const address of addresses) expect(address).toMatch(/^10\.\d+\.0\.\d+$/);
    expect(group.masterAddr).toBe(group.nodes[0]?.localIp);

    const state = await emulator.state();
    const overlay = (await client.overlays.list()).find((o) => o.overlay_id === group.overlayId);
    expect(overlay?.instances?.slice().sort()).toEqual(
      group.nodes.map((node) => node.instanceId).sort(),
    );
    for (const node of group.nodes) {
      const instance = await shown(node.instanceId);
      const env = environmentOf(instance);
      expect(env).toMatchObject({
        NODE_RANK: String(node.rank),
        WORLD_SIZE: "4",
        MASTER_ADDR: group.masterAddr,
        [stackTokenVariable]: stackToken,
      });
      // Handed over: the program's label (none), never the being-created one.
      expect(instance?.label ?? "").not.toBe(creatingLabelOf(stackToken));
      expect(instance?.machine_id).toBe(node.machineId);
    }
    expect(state.instances).toHaveLength(4);
    expect(group.networkVolumeId).not.toBeNull();

    // Refresh sees the same group, and the next preview of the same program no change.
    const read = await groupProvider.read(providers.run, id, group);
    expect(read.props?.nodes).toEqual(group.nodes);
    const { inputs: sameInputs } = await checked(inputs);
    expect(
      await groupProvider.diff?.(
        providers.run,
        id,
        read.props as NodeGroupOutputs,
        sameInputs as NodeGroupInputs,
      ),
    ).toMatchObject({ changes: false });

    await groupProvider.delete?.(providers.run, id, group);
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
  });

  it("fails check on nodeCount 0, naming the field; fails at create, renting nothing, when no cluster holds the group, naming the largest that matched", async () => {
    const { failures } = await checked({ ...base, nodeCount: 0 });
    expect((failures ?? []).map((failure) => failure.reason)).toEqual([
      expect.stringMatching(/^nodeCount: must be at least 1/),
    ]);
    await expect(create({ ...base, nodeCount: 16 })).rejects.toThrow(
      /no physical cluster has 16 offers matching offerQuery; the largest that matched is cluster 102 with 9/,
    );
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
    expect(await emulator.writes()).toEqual([]);
  });

  it("stops the other ranks when one cannot run: a node still booting is destroyed, not waited for", async () => {
    // Rank 0 runs at once. Of ranks 1 and 2, rented together, one dead-ends at each of its 3
    // attempts while the other would boot for an hour, beyond this test's own timeout.
    await emulator.queueBoots([
      { status: "running", afterPolls: 0 },
      { status: "exited", afterPolls: 0 },
      { status: "running", afterSeconds: 3600 },
      { status: "exited", afterPolls: 0 },
      { status: "exited", afterPolls: 0 },
    ]);
    const progress: string[] = [];
    const failed = withProgress(progress, () =>
      create({ ...base, nodeCount: 3, createTimeoutSeconds: 3600 }),
    );
    await expect(failed).rejects.toThrow(
      /every one of 3 attempts ended without a running instance[\s\S]*The group was taken apart/,
    );
    expect(progress.some((line) => /rank [12] failed; stopping ranks [12]$/.test(line))).toBe(true);
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
  });

  it("fails whole when rank 0 does not get the overlay's first host, every node's MASTER_ADDR, and when rank 0, the create's witness, dead-ends (the witness destroyed last)", async () => {
    // The service promises no address order: here rank 0 (the first to join) gets the second.
    await emulator.setFaults({ overlayAddressSkipped: { next: 1 } });
    const progress: string[] = [];
    try {
      await expect(withProgress(progress, () => create({ ...base, nodeCount: 3 }))).rejects.toThrow(
        /rank 0 \(instance \d+\) got overlay address 10\.\d+\.0\.2, not 10\.\d+\.0\.1, the overlay's first host that every rank was rented with as MASTER_ADDR[\s\S]*The group was taken apart/,
      );
    } finally {
      await emulator.clearFaults();
    }
    expect(progress.join("\n")).toMatch(
      /renting ranks 0, 1, 2 at once with MASTER_ADDR \S+ \(the overlay's first host\), rank 0 first/,
    );
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });

    // Rank 0's instance, the create's witness, dead-ends: it is not replaced (destroying it
    // first would leave the others, handed over, with nothing proving them leftovers). The
    // group fails whole, the other ranks destroyed before it.
    await emulator.queueBoots([{ status: "exited", afterSeconds: 1 }]);
    await emulator.clearRequests();
    await expect(create({ ...base, nodeCount: 3 })).rejects.toThrow(
      /instance (\d+), the group create's witness, is not running: it did not reach running \(exited\); it is not replaced[\s\S]*The group was taken apart/,
    );
    const rents = (await emulator.requests()).filter((r) => r.path.startsWith("/api/v0/asks/"));
    expect(rents).toHaveLength(3);
    // Rank 0's rent is answered first: the witness has the lowest id.
    const destroys = await instanceDestroys();
    const witness = Math.min(...destroys.map((destroy) => destroy.id));
    expectWitnessLast(destroys, [witness]);
    expect(new Set(destroys.map((destroy) => destroy.id)).size).toBe(3);
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
  });

  it("grows and shrinks in place: the highest ranks are added or removed", async () => {
    const { id, outs } = await create({ ...base, nodeCount: 2 });
    let group = outs as NodeGroupOutputs;
    const grown = { ...group, nodeCount: 4 };
    const diff = await groupProvider.diff?.(providers.run, id, group, grown);
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    group = (await groupProvider.update?.(providers.run, id, group, grown))
      ?.outs as NodeGroupOutputs;
    expect(group.nodes.map((node) => node.rank)).toEqual([0, 1, 2, 3]);
    const added = await shown(group.nodes[3]?.instanceId ?? 0);
    expect(environmentOf(added)).toMatchObject({
      NODE_RANK: "3",
      WORLD_SIZE: "4",
      MASTER_ADDR: group.masterAddr,
    });
    const shrunk = { ...group, nodeCount: 1 };
    group = (await groupProvider.update?.(providers.run, id, group, shrunk))
      ?.outs as NodeGroupOutputs;
    expect(group.nodes.map((node) => node.rank)).toEqual([0]);
    expect((await emulator.state()).instances.map((i) => i.id)).toEqual([
      group.nodes[0]?.instanceId,
    ]);
    // More than any cluster holds: no replacement (it could only fail); the update says why.
    const tooMany = await groupProvider.diff?.(providers.run, id, group, {
      ...group,
      nodeCount: 12,
    });
    expect(tooMany).toMatchObject({ changes: true, replaces: [] });
    await groupProvider.delete?.(providers.run, id, group);
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
  });

  it("rebuilds every node's container in place on a new image, env and onstart, the ranks added at once launched alike", async () => {
    const { id, outs } = await create({ ...base, nodeCount: 2, env: { MODEL: "a" } });
    const group = outs as NodeGroupOutputs;
    const news = {
      ...group,
      nodeCount: 3,
      image: "vllm/vllm-openai:v0.6.1",
      env: { MODEL: "b" },
      onstart: "echo two",
    };
    const lines: string[] = [];
    const diff = await withProgress(lines, async () =>
      groupProvider.diff?.(providers.run, id, group, news),
    );
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    expect(lines.join("\n")).toContain(
      "the group's 2 nodes are updated in place (image, env, onstart changed)",
    );
    await emulator.clearRequests();

    const updated = (await groupProvider.update?.(providers.run, id, group, news))
      ?.outs as NodeGroupOutputs;

    const rebuilds = (await emulator.writes()).filter((w) => w.path.includes("update_template"));
    expect(rebuilds.map((w) => w.path)).toEqual(
      group.nodes.map((node) => `/api/v0/instances/update_template/${String(node.instanceId)}/`),
    );
    // The same instances on the same machines, at the same price; rank 2 rented beside them.
    expect(
      updated.nodes.slice(0, 2).map((n) => [n.instanceId, n.machineId, n.dollarsPerHour]),
    ).toEqual(group.nodes.map((n) => [n.instanceId, n.machineId, n.dollarsPerHour]));
    expect(updated.masterAddr).toBe(group.masterAddr);
    for (const node of updated.nodes) {
      const instance = await shown(node.instanceId);
      expect(instance).toMatchObject({
        image_uuid: "vllm/vllm-openai:v0.6.1",
        actual_status: "running",
      });
      expect(environmentOf(instance)).toMatchObject({
        MODEL: "b",
        NODE_RANK: String(node.rank),
        WORLD_SIZE: "3",
        MASTER_ADDR: group.masterAddr,
      });
    }
    await groupProvider.delete?.(providers.run, id, updated);
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
  });

  it("a larger count its cluster has no room for replaces the group (deleting it first) when another cluster holds it", async () => {
    const query = { gpuName: { in: ["H100 SXM", "RTX A6000"] } };
    const { id, outs } = await create({ ...base, offerQuery: query, nodeCount: 2 });
    const group = outs as NodeGroupOutputs;
    // The group's cluster is rented out, but for the group's own nodes.
    const rest = await client.offers.searchInstances({ ...query, clusterId: group.clusterId });
    for (const offer of rest.offers) await emulator.removeAsk("instance", offer.askId);
    const lines: string[] = [];
    const grown = await withProgress(lines, async () =>
      groupProvider.diff?.(providers.run, id, group, { ...group, nodeCount: 3 }),
    );
    expect(grown).toMatchObject({ replaces: ["nodeCount"], deleteBeforeReplace: true });
    // Preview says why, beside the engine's `replace`.
    expect(lines.join("\n")).toContain(
      "the group is replaced: nodeCount (the group's cluster has no room for the new count",
    );
    await groupProvider.delete?.(providers.run, id, group);
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
  });

  it("rents a broken node's rank again in place, destroying the old instance; without rank 0, every rank anew on the same overlay", async () => {
    const { id, outs } = await create({ ...base, nodeCount: 3 });
    let group = outs as NodeGroupOutputs;
    const broken = group.nodes[2];
    const refreshed = {
      ...group,
      nodes: group.nodes.map((node) =>
        node.rank === 2 ? { ...node, actualStatus: "exited" } : node,
      ),
    };
    expect(await groupProvider.diff?.(providers.run, id, refreshed, { ...group })).toMatchObject({
      changes: true,
      replaces: [],
    });
    group = (await groupProvider.update?.(providers.run, id, refreshed, group))
      ?.outs as NodeGroupOutputs;
    expect(group.nodes.map((node) => node.rank)).toEqual([0, 1, 2]);
    expect(group.nodes[2]?.instanceId).not.toBe(broken?.instanceId);
    const ids = (await emulator.state()).instances.map((instance) => instance.id);
    expect(ids).not.toContain(broken?.instanceId);
    expect(ids.sort()).toEqual(group.nodes.map((node) => node.instanceId).sort());

    // Rank 0 gone: its address was every node's MASTER_ADDR. Every rank is rented anew, on the
    // same overlay and network.
    const withoutRankZero = {
      ...group,
      nodes: group.nodes.map((node) =>
        node.rank === 0 ? { ...node, actualStatus: "gone" } : node,
      ),
    };
    const before = group.nodes.map((node) => node.instanceId);
    group = (await groupProvider.update?.(providers.run, id, withoutRankZero, group))
      ?.outs as NodeGroupOutputs;
    expect(group.overlayName).toBe(withoutRankZero.overlayName);
    expect(group.nodes.map((node) => node.rank)).toEqual([0, 1, 2]);
    for (const node of group.nodes) expect(before).not.toContain(node.instanceId);
    expect(group.masterAddr).toBe(group.nodes[0]?.localIp);
    for (const node of group.nodes) {
      expect(environmentOf(await shown(node.instanceId))["MASTER_ADDR"]).toBe(group.masterAddr);
    }
    await groupProvider.delete?.(providers.run, id, group);
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
  });

  it("rents interruptible nodes at the group's bid; outbid nodes wait, are won back, or have their ranks rented again, as onOutbid says", async () => {
    const bidding = { ...base, nodeCount: 3, price: 3 } satisfies NodeGroupInputs;
    const { id, outs } = await create(bidding);
    let group = outs as NodeGroupOutputs;
    const bidOf = async (instanceId: number | undefined) =>
      (await emulator.state()).instances.find((i) => i.id === instanceId)?.["bidDollarsPerHour"];
    for (const node of group.nodes) expect(await bidOf(node.instanceId)).toBe(3);
    const refresh = async (props: NodeGroupOutputs) =>
      (await groupProvider.read?.(providers.run, id, props))?.props as NodeGroupOutputs;
    const outbid = async (instanceId: number | undefined, dollarsPerHour: number) => {
      const response = await request(`${emulator.url}/_emulator/instances/${instanceId}/outbid`, {
        method: "POST",
        body: JSON.stringify({ dollarsPerHour }),
        headers: { "content-type": "application/json" },
      });
      expect(response.statusCode).toBe(200);
      await response.body.text();
    };

    // Rank 1 outbid: refresh records it; with onOutbid wait it stays paused, and diff says so.
    const rankOne = group.nodes[1]?.instanceId;
    await outbid(rankOne, 3.5);
    let refreshed = await refresh(group);
    expect(refreshed.nodes[1]).toMatchObject({
      actualStatus: "stopped",
      outbidByDollarsPerHour: 3.5,
    });
    expect(refreshed.nodes[0]).not.toHaveProperty("outbidByDollarsPerHour");
    await emulator.clearRequests();
    const lines: string[] = [];
    const waited = await withProgress(lines, async () =>
      groupProvider.diff?.(providers.run, id, refreshed, bidding),
    );
    expect(waited).toMatchObject({ changes: false, replaces: [] });
    expect(lines.join("\n")).toMatch(
      new RegExp(
        String.raw`trainers: nodes 1 \(instance ${rankOne}\) are outbid \(a bid of \$3\.5/h ` +
          String.raw`holds their machines\) and stay paused, their data kept and their disks ` +
          String.raw`billing \$[\d.]+/h; the group's job waits for them`,
      ),
    );

    // onOutbid raise: its bid rises a tenth of a cent above the winning one, in place.
    const raise = { ...bidding, onOutbid: "raise", maxBidDollarsPerHour: 4 } as const;
    expect(await groupProvider.diff?.(providers.run, id, refreshed, raise)).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect(await emulator.writes()).toEqual([]);
    group = (await groupProvider.update?.(providers.run, id, refreshed, raise))
      ?.outs as NodeGroupOutputs;
    expect(await bidOf(rankOne)).toBe(3.501);
    expect(group.nodes[1]).toMatchObject({ instanceId: rankOne, actualStatus: "running" });
    expect(group.nodes[1]).not.toHaveProperty("outbidByDollarsPerHour");

    // onOutbid replace: rank 2's paused instance is destroyed and its rank rented again.
    const rankTwo = group.nodes[2]?.instanceId;
    await outbid(rankTwo, 3.5);
    refreshed = await refresh(group);
    const replace = { ...bidding, onOutbid: "replace" } as const;
    expect(await groupProvider.diff?.(providers.run, id, refreshed, replace)).toMatchObject({
      changes: true,
      replaces: [],
    });
    group = (await groupProvider.update?.(providers.run, id, refreshed, replace))
      ?.outs as NodeGroupOutputs;
    expect(group.nodes.map((node) => node.rank)).toEqual([0, 1, 2]);
    expect(group.nodes[1]?.instanceId).toBe(rankOne);
    expect(group.nodes[2]?.instanceId).not.toBe(rankTwo);
    expect(group.nodes[2]).toMatchObject({ actualStatus: "running" });
    expect(await bidOf(group.nodes[2]?.instanceId)).toBe(3);
    const ids = (await emulator.state()).instances.map((instance) => instance.id);
    expect(ids).not.toContain(rankTwo);
    expect(ids.sort()).toEqual(group.nodes.map((node) => node.instanceId).sort());
    await groupProvider.delete?.(providers.run, id, group);
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
  });

  it("two stacks' groups of the same names (each its stack token): neither takes the other's nodes or overlay; one's delete and its stack's sweeper leave the other's as it was", async () => {
    const first = await create({ ...base, nodeCount: 2 });
    const firstGroup = first.outs as NodeGroupOutputs;
    const second = await create({ ...base, nodeCount: 2, stackToken: "another-stack-token-0004" });
    const secondGroup = second.outs as NodeGroupOutputs;
    const firstNodes = firstGroup.nodes.map((node) => node.instanceId);
    const secondNodes = secondGroup.nodes.map((node) => node.instanceId);
    expect(firstNodes.filter((instanceId) => secondNodes.includes(instanceId))).toEqual([]);
    expect(firstGroup.overlayName).not.toBe(secondGroup.overlayName);
    expect((await everything()).instances.sort()).toEqual([...firstNodes, ...secondNodes].sort());

    // The first stack's destroy: its group, then its sweeper.
    await groupProvider.delete?.(providers.run, first.id, firstGroup);
    await sweeperProvider.delete?.(providers.run, "proj/dev/", {
      ownerPrefix: "proj/dev/",
      stackToken,
    });
    const left = await everything();
    expect(left.instances.sort()).toEqual(secondNodes.sort());
    expect(left.overlays).toEqual([secondGroup.overlayName]);
    // The second's refresh sees its group as it was.
    expect((await groupProvider.read(providers.run, second.id, secondGroup)).props).toEqual(
      secondGroup,
    );
    await groupProvider.delete?.(providers.run, second.id, secondGroup);
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
  });

  it("removes what an interrupted create of the same group left, and nothing of another stack's", async () => {
    // An interrupted create of this group: its overlay, a node on it still being created.
    const prefix = namePrefixOf(base) ?? "";
    const overlay = await client.overlays.create(102, `${prefix}abcdef`);
    const search = await client.offers.searchInstances({ clusterId: 102 });
    const askId = search.offers[0]?.askId ?? 0;
    const leftover = await client.instances.create(askId, {
      image: "pytorch/pytorch",
      disk: 40,
      label: creatingLabelOf(stackToken),
      env: {
        [stackTokenVariable]: stackToken,
        PULUMI_GPUCLOUD_OWNER: "proj/dev/trainers/node-0",
        [groupVariable]: "proj/dev/trainers",
        [`-n ${overlay.name}`]: "1",
      },
    });
    // Another stack's group of the same names: its overlay and node are never touched.
    const other = { ...base, stackToken: "another-stack-token-0002" };
    const otherOverlay = await client.overlays.create(101, `${namePrefixOf(other) ?? ""}fedcba`);
    const otherLeftover = await client.instances.create(
      (await client.offers.searchInstances({ clusterId: 101 })).offers[0]?.askId ?? 0,
      {
        image: "pytorch/pytorch",
        disk: 40,
        label: creatingLabelOf(other.stackToken),
        env: {
          [stackTokenVariable]: other.stackToken,
          PULUMI_GPUCLOUD_OWNER: "proj/dev/trainers/node-0",
          [groupVariable]: "proj/dev/trainers",
          [`-n ${otherOverlay.name}`]: "1",
        },
      },
    );
    const { id, outs } = await create({ ...base, nodeCount: 2 });
    const after = await everything();
    expect(after.instances).not.toContain(leftover);
    expect(after.overlays).not.toContain(overlay.name);
    expect(after.instances).toContain(otherLeftover);
    expect(after.overlays).toContain(otherOverlay.name);
    await groupProvider.delete?.(providers.run, id, outs as NodeGroupOutputs);
    await client.instances.destroy(otherLeftover);
    await client.overlays.delete(otherOverlay.overlay_id);
  });

  it("hands ranks 1 and up over while the group boots, and rank 0, the create's witness, after every node runs: one relabel each, every node marked by the create", async () => {
    // Every node boots for 4 s from its rent.
    const bootMs = 4_000;
    await emulator.queueBoots(
      Array.from(
        { length: 4 },
        () => ({ status: "running", afterSeconds: bootMs / 1000 }) as const,
      ),
    );
    const { id, outs } = await create(base);
    const group = outs as NodeGroupOutputs;
    const rentedAtMs = new Map(
      (await emulator.state()).instances.map((i) => [i.id, Number(i["createdAtMs"])]),
    );
    const relabels = (await emulator.requests()).flatMap((r) => {
      const instanceId = /^\/api\/v0\/instances\/(\d+)\/?$/.exec(r.path)?.[1];
      return r.method === "PUT" && r.status === 200 && instanceId !== undefined
        ? [{ instanceId: Number(instanceId), atMs: r.atMs }]
        : [];
    });
    expect(relabels.map((r) => r.instanceId).sort()).toEqual(
      group.nodes.map((node) => node.instanceId).sort(),
    );
    const [witness, ...others] = group.nodes;
    const rankZeroRuns = (rentedAtMs.get(witness?.instanceId ?? 0) ?? 0) + bootMs;
    const lastRuns = Math.max(...rentedAtMs.values()) + bootMs;
    for (const node of others) {
      const relabel = relabels.find((r) => r.instanceId === node.instanceId);
      expect(relabel?.atMs).toBeLessThan(rankZeroRuns);
      expect(relabel?.atMs).toBeLessThan((rentedAtMs.get(node.instanceId) ?? 0) + bootMs);
    }
    const witnessRelabel = relabels.find((r) => r.instanceId === witness?.instanceId);
    expect(witnessRelabel?.atMs).toBeGreaterThanOrEqual(lastRuns);
    // One marker for the create, in every node's environment; not among the group's outputs.
    const markers = new Set<string | undefined>();
    for (const node of group.nodes) {
      const instance = await shown(node.instanceId);
      markers.add(environmentOf(instance)[groupCreateVariable]);
      expect(instance.label ?? "").toBe("");
    }
    expect([...markers]).toEqual([expect.stringMatching(/^[\w-]{22}$/)]);
    expect(JSON.stringify(group)).not.toContain(groupCreateVariable);
    await groupProvider.delete?.(providers.run, id, group);
    expect(await everything()).toEqual({ instances: [], overlays: [], networkVolumes: [] });
    // Four-second boots, and what a loaded machine adds.
  }, 30_000);

  /**
   * Leaves on the account what group creates of `proj/dev/trainers` left, as a killed `up`
   * leaves them: an unfinished create of this stack (its witness still being created, the other
   * ranks handed over, on the group's overlay beside a network volume named alike), a kept
   * group of this stack (its witness handed over too), an unfinished create of another stack of
   * the same names and the same marker, and a node of this stack whose create's witness is gone.
   */
  const leaveGroupCreates = async (suffix: string) => {
    const asks = async (clusterId: number, count: number) =>
      (await client.offers.searchInstances({ clusterId })).offers
        .slice(0, count)
        .map((offer) => offer.askId);
    const anywhere = (await client.offers.searchInstances({ gpuName: "RTX A6000" })).offers.map(
      (offer) => offer.askId,
    );
    const other = { ...base, stackToken: "another-stack-token-0003" };
    const node = (
      askId: number,
      of: { stackToken: string; rank: number; marker: string; label: string; overlay?: string },
    ) =>
      client.instances.create(askId, {
        image: "pytorch/pytorch",
        disk: 40,
        label: of.label,
        env: {
          [stackTokenVariable]: of.stackToken,
          [ownerVariable]: `proj/dev/trainers/node-${of.rank}`,
          [groupVariable]: "proj/dev/trainers",
          [groupCreateVariable]: of.marker,
          NODE_RANK: String(of.rank),
          ...(of.overlay === undefined ? {} : overlayJoinEnv(of.overlay)),
        },
      });
    const creating = creatingLabelOf(stackToken);
    const prefix = namePrefixOf(base) ?? "";
    const overlay = await client.overlays.create(102, `${prefix}${suffix}1`);
    const volumeOffer = (
      await client.offers.searchNetworkVolumes({ clusterId: 102, diskSpaceGb: { gte: 10 } })
    ).offers[0];
    const volume = await client.volumes.createNetworkVolume(volumeOffer?.askId ?? 0, 10, {
      name: overlay.name,
    });
    const [w, s1, s2] = await asks(102, 3);
    const unfinished = {
      witness: await node(w ?? 0, {
        stackToken,
        rank: 0,
        marker: "m-unfinished",
        label: creating,
        overlay: overlay.name,
      }),
      siblings: [
        await node(s1 ?? 0, {
          stackToken,
          rank: 1,
          marker: "m-unfinished",
          label: "",
          overlay: overlay.name,
        }),
        await node(s2 ?? 0, {
          stackToken,
          rank: 2,
          marker: "m-unfinished",
          label: "team-a",
          overlay: overlay.name,
        }),
      ],
    };
    const keptOverlay = await client.overlays.create(101, `${prefix}${suffix}2`);
    const [k0, k1] = await asks(101, 2);
    const kept = [
      await node(k0 ?? 0, {
        stackToken,
        rank: 0,
        marker: "m-kept",
        label: "",
        overlay: keptOverlay.name,
      }),
      await node(k1 ?? 0, {
        stackToken,
        rank: 1,
        marker: "m-kept",
        label: "",
        overlay: keptOverlay.name,
      }),
    ];
    const others = [
      await node(anywhere[0] ?? 0, {
        stackToken: other.stackToken,
        rank: 0,
        marker: "m-unfinished",
        label: creatingLabelOf(other.stackToken),
      }),
      await node(anywhere[1] ?? 0, {
        stackToken: other.stackToken,
        rank: 1,
        marker: "m-unfinished",
        label: "",
      }),
    ];
    const orphan = await node(anywhere[2] ?? 0, {
      stackToken,
      rank: 1,
      marker: "m-orphaned",
      label: "",
    });
    return { overlay, volume: volume.volumeId, unfinished, keptOverlay, kept, others, orphan };
  };
  type LeftGroups = Awaited<ReturnType<typeof leaveGroupCreates>>;

  /** Only the unfinished create of this stack is gone, its witness destroyed last. */
  const expectOnlyUnfinishedRemoved = async (left: LeftGroups, lines: readonly string[]) => {
    const after = await everything();
    const { witness, siblings } = left.unfinished;
    for (const gone of [witness, ...siblings]) expect(after.instances).not.toContain(gone);
    for (const kept of [...left.kept, ...left.others, left.orphan]) {
      expect(after.instances).toContain(kept);
    }
    expect(after.overlays).not.toContain(left.overlay.name);
    expect(after.overlays).toContain(left.keptOverlay.name);
    expect(after.networkVolumes).not.toContain(left.volume);
    expectWitnessLast(await instanceDestroys(), [witness]);
    expect([...new Set((await instanceDestroys()).map((d) => d.id))].sort()).toEqual(
      [witness, ...siblings].sort(),
    );
    // The node whose witness is gone is named, and left alone.
    expect(lines.join("\n")).toContain(
      `keeping instance ${left.orphan} (proj/dev/trainers/node-1): it carries this stack's ` +
        `${groupCreateVariable} of a group create whose witness`,
    );
    for (const id of [...left.kept, ...left.others, left.orphan]) {
      await client.instances.destroy(id);
    }
    await client.overlays.delete(left.keptOverlay.overlay_id);
  };

  it("a create killed after its other ranks were handed over: the next create of the group removes them, its witness last, and nothing of a kept group, another stack's, or a node whose witness is gone", async () => {
    const left = await leaveGroupCreates("a");
    await emulator.clearRequests();
    const lines: string[] = [];
    await withProgress(lines, () =>
      settleGroupLeftovers(providers.run, base, (line) => lines.push(line)),
    );
    await expectOnlyUnfinishedRemoved(left, lines);
  }, 30_000);

  it("a create killed after its other ranks were handed over: the stack's sweeper removes them, its witness last, and nothing of a kept group, another stack's, or a node whose witness is gone", async () => {
    const left = await leaveGroupCreates("b");
    await emulator.clearRequests();
    const lines: string[] = [];
    await withProgress(lines, async () =>
      sweeperProvider.delete?.(providers.run, "proj/dev/", {
        ownerPrefix: "proj/dev/",
        stackToken,
      }),
    );
    await expectOnlyUnfinishedRemoved(left, lines);
  }, 30_000);

  it("a witness is kept while a node it proves could not be destroyed, and removed by the next try", async () => {
    const left = await leaveGroupCreates("c");
    const [stuck] = left.unfinished.siblings;
    await emulator.clearRequests();
    await emulator.setFaults({
      serverErrors: {
        status: 500,
        methods: ["DELETE"],
        paths: [`/api/v0/instances/${stuck}/`],
        rate: 1,
      },
    });
    const lines: string[] = [];
    try {
      await expect(
        settleGroupLeftovers(providers.run, base, (line) => lines.push(line)),
      ).rejects.toThrow(
        new RegExp(
          `instances ${left.unfinished.witness}: kept while instances ${stuck} remain, as the ` +
            `proof that they are leftovers of an unfinished create`,
        ),
      );
    } finally {
      await emulator.clearFaults();
    }
    const between = await everything();
    expect(between.instances).toEqual(expect.arrayContaining([left.unfinished.witness, stuck]));
    expect(between.overlays).toContain(left.overlay.name);
    expect((await instanceDestroys()).map((d) => d.id)).not.toContain(left.unfinished.witness);
    await settleGroupLeftovers(providers.run, base, (line) => lines.push(line));
    await expectOnlyUnfinishedRemoved(left, lines);
  }, 30_000);
});
