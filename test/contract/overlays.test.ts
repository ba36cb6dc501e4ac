import { GpuCloudClient, overlayJoinEnv } from "../../provider/client";
import {
  autonameOf,
  type OverlayInputs,
  type OverlayOutputs,
  implementation as provider,
} from "../../provider/resources/overlay";
import { unknownValue } from "../../provider/shared/validation";
import { useEmulator } from "../support/use-emulator";
import { requestsTo, summary } from "./harness";

// The Overlay resource's methods against the emulator's small market, whose one physical
// cluster is 7 (machine 52011, instance ask 31003).

const CLUSTER = 7;
const ASK_IN_CLUSTER = 31003;

describe("Overlay against the emulator", () => {
  let client!: GpuCloudClient;
  const providers = useEmulator({ per: "file", bootPolls: 0, market: false });
  const { emulator } = providers;
  beforeAll(() => {
    client = new GpuCloudClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  });

  const check = async (olds: Partial<OverlayInputs>, news: Record<string, unknown>) => {
    const checked = await provider.check?.(
      providers.run,
      olds as OverlayInputs,
      news as OverlayInputs,
    );
    return {
      inputs: (checked?.inputs ?? {}) as Record<string, unknown>,
      failures: (checked?.failures ?? []).map((failure) => failure.reason),
    };
  };

  const created = async (inputs: OverlayInputs) => {
    const result = await provider.create(providers.run, inputs);
    return { id: result.id, outs: result.outs as OverlayOutputs };
  };

  it("names an overlay from the resource's name once, and keeps the name from then on", async () => {
    const first = await check({}, { clusterId: CLUSTER, resourceName: "Train Net_2!" });
    expect(first.failures).toEqual([]);
    expect(first.inputs).toEqual({
      clusterId: CLUSTER,
      resourceName: "Train Net_2!",
      name: expect.stringMatching(/^train-net-2-[0-9a-f]{7}$/) as unknown,
    });
    // Another stack of the same names gets another name.
    const namesake = await check({}, { clusterId: CLUSTER, resourceName: "Train Net_2!" });
    expect(namesake.inputs["name"]).not.toEqual(first.inputs["name"]);
    // The next run keeps the recorded one.
    const again = await check(first.inputs, { clusterId: CLUSTER, resourceName: "Train Net_2!" });
    expect(again.inputs).toEqual(first.inputs);
    expect(autonameOf("---")).toMatch(/^overlay-[0-9a-f]{7}$/);
    expect(autonameOf("x".repeat(100))).toHaveLength(64);
    // Nothing but reads: offer searches and the overlay list.
    expect(await emulator.writes()).toEqual([]);
  });

  it("fails check on bad input, naming the field, and sends no write", async () => {
    await emulator.clearRequests();
    expect((await check({}, { clusterId: "7", name: "Train Net" })).failures).toEqual([
      "clusterId: expected a number, received a string holding a number (convert it to a number) (the id of a physical cluster, as offers show it (clusterId))",
      "name: may hold only lowercase letters, digits and - (instances join an overlay by its name, and the official client drops any other) (received a string of 9 characters)",
    ]);
    expect((await check({}, { clusterId: 7.5, name: "n".repeat(65) })).failures).toEqual([
      "clusterId: expected a whole number, received 7.5 (clusterId must be a whole number)",
      "name: must be at most 64 characters; got 65 characters",
    ]);
    expect((await check({}, { name: "ok" })).failures).toEqual([
      "clusterId: required: the id of a physical cluster, as offers show it (clusterId)",
    ]);
    expect((await check({}, { clusterId: 99, name: "ok" })).failures).toEqual([
      expect.stringMatching(/^clusterId: no physical cluster 99 in the market: no offer names it/),
    ]);
    // Not known yet at preview: left for the real run.
    expect((await check({}, { clusterId: unknownValue, name: "later" })).failures).toEqual([]);
    expect(await emulator.writes()).toEqual([]);
  });

  it("creates, reads, shows its members, replaces on change, and deletes (members keep running)", async () => {
    const checked = await check({}, { clusterId: CLUSTER, name: "train-net" });
    expect(checked.failures).toEqual([]);
    await emulator.clearRequests();
    const overlay = await created(checked.inputs as OverlayInputs);
    expect(overlay).toEqual({
      id: expect.any(String) as unknown,
      outs: {
        clusterId: CLUSTER,
        name: "train-net",
        overlayId: Number(overlay.id),
        subnet: expect.stringMatching(/^10\.\d+\.0\.0\/24$/) as unknown,
        instanceIds: [],
      },
    });
    expect(summary(await emulator.writes())).toEqual(["POST /api/v0/overlay/ 200"]);
    expect((await emulator.state()).overlays).toEqual([
      expect.objectContaining({
        id: overlay.outs.overlayId,
        name: "train-net",
        clusterId: CLUSTER,
      }),
    ]);
    // Found as recorded.
    expect(await provider.read(providers.run, overlay.id, overlay.outs)).toEqual({
      id: overlay.id,
      props: overlay.outs,
    });

    // The name is this overlay's own: the next check of the same resource passes; another
    // resource of that name fails.
    expect((await check(checked.inputs, checked.inputs)).failures).toEqual([]);
    expect((await check({}, { clusterId: CLUSTER, name: "train-net" })).failures).toEqual([
      expect.stringMatching(
        /^name: an overlay named train-net already exists on the account \(overlay \d+, cluster 7;/,
      ),
    ]);

    // An instance joins at create: refresh shows it as a member.
    const member = await client.instances.create(ASK_IN_CLUSTER, {
      image: "img",
      disk: 10,
      env: overlayJoinEnv("train-net"),
    });
    const refreshed = await provider.read(providers.run, overlay.id, overlay.outs);
    expect(refreshed.props?.instanceIds).toEqual([member]);
    expect(refreshed.inputs).toEqual({ clusterId: CLUSTER, name: "train-net" });

    // Either change replaces; under the same name the old one goes first.
    const outs = refreshed.props ?? overlay.outs;
    expect(
      await provider.diff?.(providers.run, overlay.id, outs, {
        clusterId: CLUSTER,
        name: "train-net",
      }),
    ).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    expect(
      await provider.diff?.(providers.run, overlay.id, outs, { clusterId: 8, name: "train-net" }),
    ).toEqual({
      changes: true,
      replaces: ["clusterId"],
      deleteBeforeReplace: true,
    });
    expect(
      await provider.diff?.(providers.run, overlay.id, outs, { clusterId: CLUSTER, name: "other" }),
    ).toEqual({
      changes: true,
      replaces: ["name"],
      deleteBeforeReplace: false,
    });
    // The resource's own name (renamed with an alias) changes nothing.
    expect(
      await provider.diff?.(providers.run, overlay.id, outs, {
        clusterId: CLUSTER,
        name: "train-net",
        resourceName: "renamed",
      }),
    ).toMatchObject({ changes: false });

    // Deleted: the member leaves it and keeps running; deleting again is done already.
    await provider.delete?.(providers.run, overlay.id, outs);
    const state = await emulator.state();
    expect(state.overlays).toEqual([]);
    expect(state.instances).toEqual([
      expect.objectContaining({ id: member, overlay: null, intendedStatus: "running" }),
    ]);
    await provider.delete?.(providers.run, overlay.id, outs);
    expect(await provider.read(providers.run, overlay.id, outs)).toEqual({});
    await client.instances.destroy(member);
  });

  it("refuses a create whose name is taken, before sending it", async () => {
    await client.overlays.create(CLUSTER, "taken-name");
    await emulator.clearRequests();
    await expect(created({ clusterId: CLUSTER, name: "taken-name" })).rejects.toThrow(
      /^name: an overlay named taken-name already exists on the account \(overlay \d+\); nothing was created/,
    );
    expect(await emulator.writes()).toEqual([]);
    const [taken] = await client.overlays.list();
    await client.overlays.delete(taken?.overlay_id ?? 0);
  });

  it("takes the overlay a lost reply created, creating it once", async () => {
    await emulator.clearRequests();
    await emulator.setFaults({
      drops: { next: 1, afterHandling: true, methods: ["POST"], paths: ["/api/v0/overlay/"] },
    });
    let overlay: Awaited<ReturnType<typeof created>>;
    try {
      overlay = await created({ clusterId: CLUSTER, name: "lost-reply" });
    } finally {
      await emulator.clearFaults();
    }
    const [stored] = (await emulator.state()).overlays;
    expect(overlay.outs).toMatchObject({ name: "lost-reply", overlayId: stored?.id });
    expect(requestsTo(await emulator.requests(), "POST", "/api/v0/overlay/")).toEqual([
      expect.objectContaining({ status: 0 }),
    ]);
    await provider.delete?.(providers.run, overlay.id, overlay.outs);
  });

  it("fails a create whose request was lost before the service saw it, leaving nothing", async () => {
    await emulator.clearRequests();
    await emulator.setFaults({
      drops: { next: 1, afterHandling: false, methods: ["POST"], paths: ["/api/v0/overlay/"] },
    });
    try {
      await expect(created({ clusterId: CLUSTER, name: "never-made" })).rejects.toThrow(
        /No overlay named never-made is on cluster 7 now: nothing is left to clean up; run `pulumi up` again\.$/,
      );
    } finally {
      await emulator.clearFaults();
    }
    // Sent once, never again.
    expect(requestsTo(await emulator.requests(), "POST", "/api/v0/overlay/")).toHaveLength(1);
    expect((await emulator.state()).overlays).toEqual([]);
  });

  it("imports by id or by name: the inputs pass check and diff with no change", async () => {
    const made = await client.overlays.create(CLUSTER, "by-hand");
    for (const id of [String(made.overlay_id), "by-hand"]) {
      const read = await provider.read(providers.run, id, undefined);
      expect(read).toEqual({
        id: String(made.overlay_id),
        props: {
          clusterId: CLUSTER,
          name: "by-hand",
          overlayId: made.overlay_id,
          subnet: made.internal_subnet,
          instanceIds: [],
        },
        inputs: { clusterId: CLUSTER, name: "by-hand" },
      });
      const inputs = read.inputs as OverlayInputs;
      // As the engine checks an import (and the class or the plugin adds the resource's name).
      const checked = await check(inputs, { ...inputs, resourceName: "net" });
      expect(checked).toEqual({ inputs: { ...inputs, resourceName: "net" }, failures: [] });
      expect(
        await provider.diff?.(
          providers.run,
          id,
          read.props as OverlayOutputs,
          checked.inputs as OverlayInputs,
        ),
      ).toMatchObject({ changes: false });
    }
    expect(await provider.read(providers.run, "no-such-overlay", undefined)).toEqual({});
    expect(await provider.read(providers.run, "424242", undefined)).toEqual({});
    await client.overlays.delete(made.overlay_id);
  });
});
