import { diffInstance, type InstanceOutputs } from "../../provider/resources/instance";
import { diffSecret } from "../../provider/resources/secret";
import { diffVolume } from "../../provider/resources/volume";
import { diffWebhook } from "../../provider/resources/webhook";

describe("Secret diff", () => {
  const olds = { key: "API_TOKEN", value: "v1" };
  it("compares the desired value with the value recorded in state, never a mask", () => {
    expect(diffSecret(olds, { key: "API_TOKEN", value: "v1" })).toEqual({
      changes: false,
      replaces: [],
    });
    expect(diffSecret(olds, { key: "API_TOKEN", value: "v2" })).toEqual({
      changes: true,
      replaces: [],
    });
  });
  it("replaces on a new key", () => {
    expect(diffSecret(olds, { key: "OTHER", value: "v1" })).toEqual({
      changes: true,
      replaces: ["key"],
    });
  });
});

describe("Webhook diff", () => {
  const olds = {
    url: "https://a.example/",
    eventTypes: ["client:low_credit"],
    name: "n",
    webhookId: 1,
    webhookSecret: "s",
  };
  it("updates every field in place", () => {
    expect(
      diffWebhook(olds, { url: "https://a.example/", eventTypes: ["client:low_credit"], name: "n" })
        .changes,
    ).toBe(false);
    const changed = diffWebhook(olds, { url: "https://b.example/", eventTypes: ["x.y"] });
    expect(changed).toEqual({ changes: true, replaces: [] });
  });
  it("rotates the secret in place when secretRotation changes, and only then", () => {
    const same = { url: olds.url, eventTypes: olds.eventTypes, name: "n" };
    expect(diffWebhook(olds, { ...same, secretRotation: "2026-11" })).toEqual({
      changes: true,
      replaces: [],
    });
    const rotated = { ...olds, secretRotation: "2026-11" };
    expect(diffWebhook(rotated, { ...same, secretRotation: "2026-11" }).changes).toBe(false);
    expect(diffWebhook(rotated, same).changes).toBe(true);
  });
});

describe("Volume diff", () => {
  it("replaces on any change", () => {
    const olds = { askId: 1, sizeGb: 15, volumeName: "V.5", volumeId: 5 };
    expect(diffVolume(olds, { askId: 1, sizeGb: 15 })).toEqual({ changes: false, replaces: [] });
    expect(diffVolume(olds, { askId: 2, sizeGb: 20 })).toEqual({
      changes: true,
      replaces: ["askId", "sizeGb"],
    });
  });
});

describe("Instance diff", () => {
  const inputs = {
    askId: 31001,
    image: "img",
    diskGb: 20,
    runtype: "ssh" as const,
    state: "running" as const,
    createTimeoutSeconds: 1200,
    maxAttempts: 3,
    pollIntervalSeconds: 3,
  };
  const olds: InstanceOutputs = {
    ...inputs,
    instanceId: 7,
    actualStatus: "running",
    sshHost: null,
    sshPort: null,
    publicIp: null,
    gpuRamMb: null,
    statusMessage: null,
    attempts: [{ askId: 31001, instanceId: 7 }],
  };
  const noChange = { changes: false, replaces: [], deleteBeforeReplace: false };

  it("relabels and retimes in place", () => {
    expect(diffInstance(olds, inputs)).toEqual(noChange);
    expect(diffInstance(olds, { ...inputs, label: "x" })).toEqual({ ...noChange, changes: true });
    expect(diffInstance(olds, { ...inputs, maxAttempts: 5 })).toEqual({
      ...noChange,
      changes: true,
    });
  });

  it("stops and starts in place; a stack recorded before stop and start runs", () => {
    expect(diffInstance(olds, { ...inputs, state: "stopped" })).toEqual({
      ...noChange,
      changes: true,
    });
    const { state: _state, ...recordedBefore } = olds;
    expect(diffInstance(recordedBefore as InstanceOutputs, inputs)).toEqual(noChange);
    const stoppedOutside = { ...olds, state: "stopped" as const, actualStatus: "stopped" };
    expect(diffInstance(stoppedOutside, inputs)).toEqual({ ...noChange, changes: true });
  });

  it("keeps the instance when the ask list still holds the ask it was rented from", () => {
    const { askId: _askId, ...withoutAskId } = inputs;
    expect(diffInstance(olds, { ...withoutAskId, askIds: [31001, 31002] })).toEqual({
      ...noChange,
      changes: true,
    });
    expect(diffInstance(olds, { ...inputs, askId: 31002 })).toEqual({
      changes: true,
      replaces: ["askId"],
      deleteBeforeReplace: false,
    });
  });

  it.each([
    ["image", { image: "other" }],
    ["diskGb", { diskGb: 40 }],
    ["onstart", { onstart: "echo hi" }],
    ["env", { env: { A: "1" } }],
    ["runtype", { runtype: "jupyter" as const }],
    ["price", { price: 0.5 }],
  ])("replaces on a new %s, deleting first since the ask is the same", (field, change) => {
    expect(diffInstance(olds, { ...inputs, ...change })).toEqual({
      changes: true,
      replaces: [field],
      deleteBeforeReplace: true,
    });
  });

  it.each([
    [
      "kept after a failed create",
      { attempts: [{ askId: 31001, instanceId: 7, lastStatus: "exited" }] },
    ],
    ["found at a dead end by refresh", { actualStatus: "offline" }],
  ])("replaces an instance %s", (_case, state) => {
    expect(diffInstance({ ...olds, ...state }, inputs)).toEqual({
      changes: true,
      replaces: ["actualStatus"],
      deleteBeforeReplace: true,
    });
  });
});
