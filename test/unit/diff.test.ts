import {
  diffInstance,
  instanceInputsSchema,
  type InstanceOutputs,
} from "../../provider/resources/instance";
import { outbidBy } from "../../provider/renting/outbid";
import { runningInstance } from "../../provider/resources/instance/test-data";
import { diffSecret } from "../../provider/resources/secret";
import { diffVolume } from "../../provider/resources/volume";
import { diffWebhook } from "../../provider/resources/webhook";
import { checkInputs } from "../../provider/shared/validation";

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
  it("changes forInstance in place: a volume is never moved for it", () => {
    const olds = { askId: 1, sizeGb: 15, volumeName: "V.5", volumeId: 5 };
    const forInstance = { offerQuery: { gpuName: "RTX 4090" }, maxDollarsPerHour: 1 };
    expect(diffVolume(olds, { askId: 1, sizeGb: 15, forInstance })).toEqual({
      changes: true,
      replaces: [],
    });
  });

  it("replaces on a new ask or size", () => {
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
  const olds: InstanceOutputs = runningInstance(inputs);
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
    ["diskGb", { diskGb: 40 }],
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
    ["image", { image: "other" }],
    ["onstart", { onstart: "echo hi" }],
    ["env", { env: { A: "1" } }],
    ["restartTrigger", { restartTrigger: "2" }],
  ])(
    "changes a new %s in place (the container is rebuilt or restarted on its machine)",
    (_f, change) => {
      expect(diffInstance(olds, { ...inputs, ...change })).toEqual({ ...noChange, changes: true });
    },
  );

  it("replaces a VM on a new image (the service rebuilds containers only), and on a new image with replaceOnChanges", () => {
    const vm = { ...olds, runtype: "vm" as const };
    expect(diffInstance(vm, { ...inputs, runtype: "vm", image: "other" })).toEqual({
      changes: true,
      replaces: ["image"],
      deleteBeforeReplace: true,
    });
    expect(diffInstance(olds, { ...inputs, image: "other", replaceOnChanges: ["image"] })).toEqual({
      changes: true,
      replaces: ["image"],
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

describe("Instance diff: by query, linking a volume", () => {
  const inputs = {
    offerQuery: { gpuName: "RTX A6000" },
    volume: { volumeId: 5001, mountPath: "/data" },
    image: "img",
    diskGb: 40,
    runtype: "ssh" as const,
    state: "running" as const,
    createTimeoutSeconds: 1200,
    maxAttempts: 3,
    pollIntervalSeconds: 3,
  };
  const olds: InstanceOutputs = {
    ...runningInstance(inputs, 40041),
    offer: {
      askId: 40041,
      gpuName: "RTX A6000",
      numGpus: 4,
      dollarsPerHour: 1.7089,
      machineId: 70021,
    },
  };

  it("replaces deleting first: the volume's machine must hold the replacement", () => {
    expect(diffInstance(olds, { ...inputs, diskGb: 60 })).toEqual({
      changes: true,
      replaces: ["diskGb"],
      deleteBeforeReplace: true,
    });
  });

  it("without a volume, by query, creates the replacement first", () => {
    const { volume: _volume, ...free } = inputs;
    const { volume: _recorded, ...freeOlds } = olds;
    expect(diffInstance(freeOlds, { ...free, diskGb: 60 })).toEqual({
      changes: true,
      replaces: ["diskGb"],
      deleteBeforeReplace: false,
    });
  });
});

describe("Instance diff: bids and templates", () => {
  const inputs = {
    askId: 31001,
    image: "img",
    diskGb: 20,
    runtype: "ssh" as const,
    state: "running" as const,
    createTimeoutSeconds: 1200,
    maxAttempts: 3,
    pollIntervalSeconds: 3,
    price: 0.2,
  };
  const olds: InstanceOutputs = runningInstance(inputs);
  const inPlace = { changes: true, replaces: [], deleteBeforeReplace: false };

  it("changes a bid for another in place, up or down", () => {
    expect(diffInstance(olds, { ...inputs, price: 0.35 })).toEqual(inPlace);
    expect(diffInstance(olds, { ...inputs, price: 0.1 })).toEqual(inPlace);
    expect(diffInstance(olds, inputs).changes).toBe(false);
  });

  it("replaces between on-demand and interruptible (a bid added or removed)", () => {
    const { price: _price, ...onDemand } = inputs;
    const replaced = { changes: true, replaces: ["price"], deleteBeforeReplace: true };
    expect(diffInstance(olds, onDemand)).toEqual(replaced);
    const { price: _recorded, ...onDemandOlds } = olds;
    expect(diffInstance(onDemandOlds, inputs)).toEqual(replaced);
  });

  it("acts on an instance refresh found outbid in place when a bid it may set wins, else leaves it paused", () => {
    const outbid = { ...olds, actualStatus: "stopped", outbidByDollarsPerHour: 0.5 };
    expect(diffInstance(outbid, inputs)).toEqual({ ...inPlace, changes: false });
    expect(diffInstance(outbid, { ...inputs, price: 0.6 })).toEqual(inPlace);
    const ceiling = { onOutbid: "raise" as const, maxBidDollarsPerHour: 0.5 };
    expect(diffInstance({ ...outbid, ...ceiling }, { ...inputs, ...ceiling })).toEqual({
      ...inPlace,
      changes: false,
    });
    const higher = { ...ceiling, maxBidDollarsPerHour: 0.502 };
    expect(diffInstance({ ...outbid, ...higher }, { ...inputs, ...higher })).toEqual(inPlace);
    // Never a replacement: a stopped instance is not at a dead end.
    expect(diffInstance(outbid, { ...inputs, state: "stopped" })).toEqual(inPlace);
  });

  it("changes a template hash or the image over it in place, never replacing", () => {
    const { image: _image, diskGb: _diskGb, ...fromTemplate } = inputs;
    const templated: InstanceOutputs = {
      ...olds,
      image: undefined,
      diskGb: undefined,
      templateHashId: "a".repeat(32),
    };
    delete templated.image;
    delete templated.diskGb;
    const same = { ...fromTemplate, templateHashId: "a".repeat(32) };
    expect(diffInstance(templated, same).changes).toBe(false);
    expect(diffInstance(templated, { ...same, templateHashId: "b".repeat(32) })).toEqual(inPlace);
    // A template named for the first time is recorded too.
    expect(diffInstance(olds, { ...inputs, templateHashId: "c".repeat(32) })).toEqual(inPlace);
    // The program's own image over the template's: rebuilt in place too.
    expect(diffInstance(templated, { ...same, image: "other" })).toEqual(inPlace);
  });
});

describe("Instance inputs: bids and templates at check", () => {
  const base = { askId: 31001, image: "img", diskGb: 20 };
  const reasons = (news: Record<string, unknown>) =>
    checkInputs(instanceInputsSchema, news, { type: "Instance" }).failures.map(
      (failure) => failure.reason,
    );

  it("takes a bid of 0.001 to 32 $/hour, the bounds of the service's bid change", () => {
    expect(reasons({ ...base, price: 0.001 })).toEqual([]);
    expect(reasons({ ...base, price: 32 })).toEqual([]);
    expect(reasons({ ...base, price: 0 })).toEqual([
      "price: (the bid, $/hour) must be at least 0.001; got 0",
    ]);
    expect(reasons({ ...base, price: -1 })).toEqual([
      "price: (the bid, $/hour) must be at least 0.001; got -1",
    ]);
    expect(reasons({ ...base, price: 32.5 })).toEqual([
      "price: (the bid, $/hour) must be at most 32; got 32.5",
    ]);
    expect(reasons({ ...base, price: "0.4" })).toEqual([
      "price: expected a number, received a string holding a number (convert it to a number) (price (the bid, $/hour) must be a number)",
    ]);
  });

  it("takes a template's hash_id, never echoing what it was given", () => {
    expect(reasons({ ...base, templateHashId: "4e17788f74f075dd9aab7d0d4427968f" })).toEqual([]);
    const bad = reasons({ ...base, templateHashId: "not-a-hash-SECRETISH" });
    expect(bad).toEqual([
      "templateHashId: must be a template's hash_id: 32 lowercase hexadecimal characters (received a string of 20 characters)",
    ]);
    expect(bad.join("")).not.toContain("SECRETISH");
  });

  it("leaves the image, disk and runtype to a template (provider check requires them without)", () => {
    const { inputs, failures } = checkInputs(
      instanceInputsSchema,
      {
        askId: 31001,
        templateHashId: "4e17788f74f075dd9aab7d0d4427968f",
      },
      { type: "Instance" },
    );
    expect(failures).toEqual([]);
    expect(inputs.image).toBeUndefined();
    expect(inputs.diskGb).toBeUndefined();
    expect(inputs.runtype).toBeUndefined();
  });
});

describe("Instance diff: the replaceOnChanges option", () => {
  const inputs = {
    askId: 31001,
    image: "img",
    diskGb: 20,
    runtype: "ssh" as const,
    state: "running" as const,
    createTimeoutSeconds: 1200,
    maxAttempts: 3,
    pollIntervalSeconds: 3,
    price: 0.2,
    templateHashId: "a".repeat(32),
  };
  const olds: InstanceOutputs = runningInstance(inputs);
  const replaced = (field: string) => ({
    changes: true,
    replaces: [field],
    deleteBeforeReplace: true,
  });

  it("relaunches on a changed template hash when the option names templateHashId", () => {
    const option = { replaceOnChanges: ["templateHashId"] };
    expect(diffInstance(olds, { ...inputs, ...option, templateHashId: "b".repeat(32) })).toEqual(
      replaced("templateHashId"),
    );
    // Other in-place changes stay in place; the option alone changes nothing.
    expect(diffInstance(olds, { ...inputs, ...option, price: 0.3 }).replaces).toEqual([]);
    expect(diffInstance(olds, { ...inputs, ...option }).changes).toBe(false);
  });

  it("relaunches on any change with *", () => {
    expect(diffInstance(olds, { ...inputs, replaceOnChanges: ["*"], price: 0.3 })).toEqual(
      replaced("price"),
    );
  });
});

describe("Instance outbid, as read from the service's row", () => {
  const row = {
    id: 7,
    is_bid: true,
    actual_status: "stopped",
    intended_status: "running",
    min_bid: 0.5,
  };
  it("is the winning price while a higher bid holds the machine", () => {
    expect(outbidBy(row, 0.3)).toBe(0.5);
  });
  it.each([
    ["an on-demand instance", { ...row, is_bid: false }, 0.3],
    ["no recorded bid", row, undefined],
    ["an instance stopped on purpose", { ...row, intended_status: "stopped" }, 0.3],
    ["a running instance", { ...row, actual_status: "running" }, 0.3],
    ["a bid at or above the lowest one", row, 0.5],
  ])("is nothing for %s", (_case, instance, bid) => {
    expect(outbidBy(instance, bid)).toBeUndefined();
  });
});
